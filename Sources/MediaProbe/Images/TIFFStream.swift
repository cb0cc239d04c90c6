/// Random access to a TIFF-structured stream: a whole TIFF/RAW file, or an EXIF block inside a JPEG, HEIF item, PNG or
/// WebP chunk. Offsets are relative to the TIFF header, as TIFF offsets are.
struct TIFFStream {
    enum Storage {
        /// The stream is `bytes[base..<base+length]`.
        case memory([UInt8], base: Int)
        /// The stream starts at `base` in the file.
        case file(ByteSource, base: Int64)
    }

    let storage: Storage
    /// Bytes in the stream.
    let length: Int64
    var littleEndian = false

    init(bytes: [UInt8], range: Range<Int>) {
        storage = .memory(bytes, base: range.lowerBound)
        length = Int64(range.count)
    }

    init(source: ByteSource, base: Int64) {
        storage = .file(source, base: base)
        length = max(0, source.size - base)
    }

    /// Whether `offset..<offset+count` lies inside the stream.
    func contains(offset: Int64, count: Int64) -> Bool {
        offset >= 0 && count >= 0 && offset <= length && count <= length - offset
    }

    /// Bytes `offset..<offset+count` of the stream, or `nil` outside it.
    func bytes(at offset: Int64, count: Int) throws(ProbeError) -> ArraySlice<UInt8>? {
        guard contains(offset: offset, count: Int64(count)) else { return nil }
        switch storage {
        case .memory(let bytes, let base):
            let start = base + Int(offset)
            return bytes[start..<start + count]
        case .file(let source, let base):
            guard let bytes = try source.read(at: base + offset, count: count) else { return nil }
            return bytes[...]
        }
    }

    func u16(_ slice: ArraySlice<UInt8>, _ index: Int) -> UInt16 {
        let a = UInt16(slice[index])
        let b = UInt16(slice[index + 1])
        return littleEndian ? b << 8 | a : a << 8 | b
    }

    func u32(_ slice: ArraySlice<UInt8>, _ index: Int) -> UInt32 {
        let a = UInt32(slice[index])
        let b = UInt32(slice[index + 1])
        let c = UInt32(slice[index + 2])
        let d = UInt32(slice[index + 3])
        return littleEndian ? d << 24 | c << 16 | b << 8 | a : a << 24 | b << 16 | c << 8 | d
    }
}
