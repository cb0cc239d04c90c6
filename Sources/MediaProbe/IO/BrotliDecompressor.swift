import CBrotli

/// Brotli decompression with a bound on the output (libbrotlidec's streaming decoder): a few kilobytes of a JPEG XL
/// `brob` box could otherwise expand into gigabytes.
enum BrotliDecompressor {
    /// The decompressed bytes, or nil when the data is not a complete Brotli stream or expands beyond `limit` bytes.
    static func decompress(_ compressed: [UInt8], limit: Int) -> [UInt8]? {
        guard let state = BrotliDecoderCreateInstance(nil, nil, nil) else { return nil }
        defer { BrotliDecoderDestroyInstance(state) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return compressed.withUnsafeBufferPointer { input -> [UInt8]? in
            var availableIn = input.count
            var nextIn = input.baseAddress
            while true {
                var availableOut = chunk.count
                let result = chunk.withUnsafeMutableBufferPointer { buffer -> BrotliDecoderResult in
                    var nextOut = buffer.baseAddress
                    return BrotliDecoderDecompressStream(state, &availableIn, &nextIn, &availableOut, &nextOut, nil)
                }
                let produced = chunk.count - availableOut
                guard output.count + produced <= limit else { return nil }
                output += chunk[0..<produced]
                switch result {
                case BROTLI_DECODER_RESULT_SUCCESS: return output
                case BROTLI_DECODER_RESULT_NEEDS_MORE_OUTPUT: continue
                default: return nil  // an error, or input that ends before the stream does
                }
            }
        }
    }
}
