import CZlib

/// zlib (RFC 1950) decompression with a bound on the output: a few kilobytes of a PNG's compressed text chunk could
/// otherwise expand into gigabytes.
enum ZlibDecompressor {
    /// The decompressed bytes, or nil when the data is not a complete zlib stream or expands beyond `limit` bytes.
    static func decompress(_ compressed: [UInt8], limit: Int) -> [UInt8]? {
        var stream = z_stream()
        guard photodrop_inflate_init(&stream) == Z_OK else { return nil }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        return compressed.withUnsafeBufferPointer { input -> [UInt8]? in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = UInt32(input.count)
            while true {
                let (status, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                    stream.next_out = buffer.baseAddress
                    stream.avail_out = UInt32(buffer.count)
                    let status = inflate(&stream, Z_NO_FLUSH)
                    return (status, buffer.count - Int(stream.avail_out))
                }
                guard output.count + produced <= limit else { return nil }
                output += chunk[0..<produced]
                switch status {
                case Z_STREAM_END: return output
                case Z_OK: if produced == 0 && stream.avail_in == 0 { return nil }
                default: return nil  // an error, or input that ends before the stream does
                }
            }
        }
    }
}
