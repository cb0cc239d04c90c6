/// Probes a Fujifilm RAF: the embedded JPEG, the CFA header and the CFA data its header points at must lie inside
/// the file; metadata comes from the embedded JPEG's EXIF, the sensor size from the CFA header.
enum RAFProbe {
    static let mime = "image/x-fuji-raf"

    static func probe(_ source: ByteSource) throws(ProbeError) -> ProbeResult {
        var metadata = MediaMetadata(container: "raf")
        func truncated(_ message: String) -> ProbeResult {
            ISOBMFFProbe.truncated("RAF \(message)", mime: mime, ext: "raf", metadata: metadata)
        }
        guard let header = try source.read(at: 84, count: 24) else {
            return truncated("the file ends in the RAF header")
        }
        let jpeg = (Int64(ByteReader.load32(header, 0, false)), Int64(ByteReader.load32(header, 4, false)))
        let cfaHeader = (Int64(ByteReader.load32(header, 8, false)), Int64(ByteReader.load32(header, 12, false)))
        let cfa = (Int64(ByteReader.load32(header, 16, false)), Int64(ByteReader.load32(header, 20, false)))
        if jpeg.0 > 0, jpeg.0 + 4 <= source.size, jpeg.0 + jpeg.1 <= source.size,
            try source.u8(at: jpeg.0) == 0xFF, try source.u8(at: jpeg.0 + 1) == 0xD8
        {
            let s = try JPEGWalker.walk(source, from: jpeg.0, findEnd: false)
            s.embedded.apply(to: &metadata)
        }
        if cfaHeader.0 > 0, cfaHeader.1 >= 4, cfaHeader.1 <= 1 << 20, cfaHeader.0 + cfaHeader.1 <= source.size,
            let records = try source.read(at: cfaHeader.0, count: Int(cfaHeader.1))
        {
            readSensorSize(records, into: &metadata)
        }
        for (name, range) in [("embedded JPEG", jpeg), ("CFA header", cfaHeader), ("CFA data", cfa)]
        where range.0 > 0 || range.1 > 0 {
            guard range.0 + range.1 <= source.size else {
                return truncated(
                    "\(name) (bytes \(range.0)…\(range.0 + range.1)) lies past the end of the file "
                        + "(\(source.size) bytes)"
                )
            }
        }
        guard cfa.1 > 0 || jpeg.1 > 0 else {
            return .rejected(
                .corrupt, message: "not a valid RAF: the header points at no image data", mime: mime,
                fileExtension: "raf", metadata: metadata)
        }
        return .accepted(
            .photo, message: "camera RAW photo (Fujifilm RAF)\(metadata.sizeText)", mime: mime, fileExtension: "raf",
            metadata: metadata)
    }

    /// CFA header records (tag, size, data): 0x111 is the cropped sensor size, 0x100 the full one (height first).
    private static func readSensorSize(_ bytes: [UInt8], into metadata: inout MediaMetadata) {
        let count = Int(ByteReader.load32(bytes, 0, false))
        var p = 4
        var full: (Int, Int)?
        var cropped: (Int, Int)?
        for _ in 0..<min(count, 4096) {
            guard p + 4 <= bytes.count else { break }
            let tag = ByteReader.load16(bytes, p, false)
            let size = Int(ByteReader.load16(bytes, p + 2, false))
            guard p + 4 + size <= bytes.count else { break }
            if size == 4, tag == 0x100 || tag == 0x111 {
                let h = Int(ByteReader.load16(bytes, p + 4, false))
                let w = Int(ByteReader.load16(bytes, p + 6, false))
                if w > 0, h > 0 {
                    if tag == 0x100 { full = (w, h) } else { cropped = (w, h) }
                }
            }
            p += 4 + size
        }
        if let (w, h) = cropped ?? full {
            metadata.pixelWidth = w
            metadata.pixelHeight = h
        }
    }
}
