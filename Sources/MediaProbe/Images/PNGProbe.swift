/// Probes a PNG (and APNG) by walking its chunks to `IEND`.
enum PNGProbe {
    static let maxChunks = 2_000_000

    static func probe(_ source: ByteSource) throws(ProbeError) -> ProbeResult {
        var metadata = MediaMetadata(container: "png")
        func result(_ reason: RejectionReason?, _ message: String, truncated: Bool = false) -> ProbeResult {
            if let reason {
                if truncated {
                    return ISOBMFFProbe.truncated("PNG — \(message)", mime: "image/png", ext: "png", metadata: metadata)
                }
                return .rejected(
                    reason, message: "not a valid PNG: \(message)", mime: "image/png", fileExtension: "png",
                    metadata: metadata)
            }
            return .accepted(.photo, message: message, mime: "image/png", fileExtension: "png", metadata: metadata)
        }
        var offset: Int64 = 8
        var chunks = 0
        var sawImageData = false
        var exif: ExifFields?
        while true {
            chunks += 1
            guard chunks <= maxChunks else { return result(.corrupt, "more than \(maxChunks) chunks") }
            guard let header = try source.read(at: offset, count: 8) else {
                return result(.corrupt, "the file ends at offset \(offset), before the IEND chunk", truncated: true)
            }
            let length = Int64(ByteReader.load32(header, 0, false))
            let type = FourCC(header, at: 4)
            guard length <= 0x7FFF_FFFF else {
                return result(.corrupt, "chunk '\(type)' at offset \(offset) declares \(length) bytes")
            }
            let end = offset + 12 + length
            guard end <= source.size else {
                return result(
                    .corrupt,
                    "chunk '\(type)' at offset \(offset) (\(length) bytes) runs past the end of the file "
                        + "(\(source.size) bytes)", truncated: true)
            }
            if chunks == 1 {
                guard type == "IHDR", length >= 13, let ihdr = try source.read(at: offset + 8, count: 8) else {
                    return result(.corrupt, "the first chunk is '\(type)', not IHDR")
                }
                let w = Int(ByteReader.load32(ihdr, 0, false))
                let h = Int(ByteReader.load32(ihdr, 4, false))
                if w > 0, h > 0, w <= 1_000_000, h <= 1_000_000 {
                    metadata.pixelWidth = w
                    metadata.pixelHeight = h
                }
            }
            switch type {
            case "IDAT":
                sawImageData = true
            case "acTL":
                if length >= 8, let actl = try source.read(at: offset + 8, count: 8) {
                    let frames = Int(ByteReader.load32(actl, 0, false))
                    if frames > 1 {
                        metadata.isAnimated = true
                        metadata.frameCount = frames
                    }
                }
            case "eXIf":
                if exif == nil, length >= 8, length <= 4 << 20,
                    let bytes = try source.read(at: offset + 8, count: Int(length))
                {
                    let start = bytes.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0]) ? 6 : 0
                    exif = try TIFFWalker.walk(TIFFStream(bytes: bytes, range: start..<bytes.count), structure: false)
                        .exif
                }
            case "IEND":
                guard sawImageData else { return result(.corrupt, "there is no image data (IDAT)") }
                exif?.apply(to: &metadata)
                let animated = metadata.isAnimated ? "animated " : ""
                return result(nil, "\(animated)PNG photo\(metadata.sizeText)")
            default:
                break
            }
            offset = end
        }
    }
}
