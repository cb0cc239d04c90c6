/// Probes a WebP: the RIFF size against the file, then its chunks (`VP8 `, `VP8L`, `VP8X`, `ANIM`/`ANMF`, `EXIF`,
/// `XMP `).
enum WebPProbe {
    static func probe(_ source: ByteSource) throws(ProbeError) -> ProbeResult {
        var metadata = MediaMetadata(container: "webp")
        func truncated(_ message: String) -> ProbeResult {
            ISOBMFFProbe.truncated("WebP \(message)", mime: "image/webp", ext: "webp", metadata: metadata)
        }
        func broken(_ message: String) -> ProbeResult {
            .rejected(
                .corrupt, message: "not a valid WebP: \(message)", mime: "image/webp", fileExtension: "webp",
                metadata: metadata)
        }
        guard let header = try source.read(at: 0, count: 12) else { return truncated("the file ends in the header") }
        let riffSize = Int64(ByteReader.load32(header, 4, true))
        guard riffSize >= 4 else { return broken("the RIFF size is \(riffSize)") }
        let riffEnd = 8 + riffSize
        guard riffEnd <= source.size else {
            return truncated("the RIFF header declares \(riffEnd) bytes but the file has \(source.size)")
        }
        var offset: Int64 = 12
        var frames = 0
        var sawImage = false
        var milliseconds = 0
        var exif: ExifFields?
        var xmp: XMPMetadata?
        var chunks = 0
        while offset + 8 <= riffEnd {
            chunks += 1
            guard chunks <= 1_000_000 else { return broken("more than 1000000 chunks") }
            guard let chunkHeader = try source.read(at: offset, count: 8) else {
                return truncated("the file ends in a chunk header")
            }
            let type = FourCC(chunkHeader, at: 0)
            let size = Int64(ByteReader.load32(chunkHeader, 4, true))
            let payload = offset + 8
            let end = payload + size + (size & 1)
            guard payload + size <= riffEnd else {
                return broken("chunk '\(type)' at offset \(offset) runs past the end of the RIFF data")
            }
            switch type {
            case "VP8X":
                if size >= 10, let b = try source.read(at: payload, count: 10) {
                    let w = Int(b[4]) | Int(b[5]) << 8 | Int(b[6]) << 16
                    let h = Int(b[7]) | Int(b[8]) << 8 | Int(b[9]) << 16
                    metadata.pixelWidth = w + 1
                    metadata.pixelHeight = h + 1
                }
            case "VP8 ":
                sawImage = true
                if metadata.pixelWidth == nil, size >= 10, let b = try source.read(at: payload, count: 10),
                    b[3] == 0x9D, b[4] == 0x01, b[5] == 0x2A
                {
                    metadata.pixelWidth = Int(ByteReader.load16(b, 6, true) & 0x3FFF)
                    metadata.pixelHeight = Int(ByteReader.load16(b, 8, true) & 0x3FFF)
                }
            case "VP8L":
                sawImage = true
                if metadata.pixelWidth == nil, size >= 5, let b = try source.read(at: payload, count: 5), b[0] == 0x2F {
                    let bits = ByteReader.load32(b, 1, true)
                    metadata.pixelWidth = Int(bits & 0x3FFF) + 1
                    metadata.pixelHeight = Int((bits >> 14) & 0x3FFF) + 1
                }
            case "ANMF":
                sawImage = true
                frames += 1
                if size >= 16, let b = try source.read(at: payload + 12, count: 3) {
                    milliseconds += Int(b[0]) | Int(b[1]) << 8 | Int(b[2]) << 16
                }
            case "EXIF":
                if exif == nil, size >= 8, size <= 4 << 20, let bytes = try source.read(at: payload, count: Int(size)) {
                    let start = bytes.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) ? 6 : 0
                    exif = try TIFFWalker.walk(TIFFStream(bytes: bytes, range: start..<bytes.count), structure: false)
                        .exif
                }
            case "XMP ":
                if xmp == nil, size <= Int64(XMPMetadata.maximumBytes),
                    let bytes = try source.read(at: payload, count: Int(size))
                {
                    xmp = try? XMPMetadata.parse(bytes)
                }
            default:
                break
            }
            offset = end
        }
        guard sawImage else { return broken("there is no image data (VP8, VP8L or ANMF chunk)") }
        if frames > 1 {
            metadata.isAnimated = true
            metadata.frameCount = frames
            if milliseconds > 0 { metadata.duration = Double(milliseconds) / 1000 }
        }
        EmbeddedMetadata(exif: exif, xmp: xmp).apply(to: &metadata)
        let animated = metadata.isAnimated ? "animated " : ""
        return .accepted(
            .photo, message: "\(animated)WebP photo\(metadata.sizeText)", mime: "image/webp", fileExtension: "webp",
            metadata: metadata)
    }
}
