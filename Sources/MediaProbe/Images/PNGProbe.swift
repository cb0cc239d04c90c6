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
        var imageDataBytes: Int64 = 0
        var imageHeader: ImageHeader?
        var exif: ExifFields?
        var xmp: XMPMetadata?
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
                guard type == "IHDR", length >= 13, let ihdr = try source.read(at: offset + 8, count: 13) else {
                    return result(.corrupt, "the first chunk is '\(type)', not IHDR")
                }
                let parsed = ImageHeader(ihdr)
                if let problem = parsed.problem { return result(.corrupt, problem) }
                imageHeader = parsed
                metadata.pixelWidth = parsed.width
                metadata.pixelHeight = parsed.height
            }
            switch type {
            case "IDAT":
                sawImageData = true
                imageDataBytes += length
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
            case "iTXt":
                if xmp == nil, length <= Int64(XMPMetadata.maximumBytes),
                    let bytes = try source.read(at: offset + 8, count: Int(length))
                {
                    xmp = xmpPacket(inInternationalText: bytes).flatMap { try? XMPMetadata.parse($0) }
                }
            case "IEND":
                guard sawImageData else { return result(.corrupt, "there is no image data (IDAT)") }
                if let imageHeader, let problem = imageHeader.problem(imageDataBytes: imageDataBytes) {
                    return result(.corrupt, problem)
                }
                EmbeddedMetadata(exif: exif, xmp: xmp).apply(to: &metadata)
                let animated = metadata.isAnimated ? "animated " : ""
                return result(nil, "\(animated)PNG photo\(metadata.sizeText)")
            default:
                break
            }
            offset = end
        }
    }
}

extension PNGProbe {
    /// The XMP packet of an `iTXt` chunk whose keyword is `XML:com.adobe.xmp` (keyword, NUL, compression flag and
    /// method, language tag, NUL, translated keyword, NUL, text; compressed with zlib when the flag is 1).
    static func xmpPacket(inInternationalText bytes: [UInt8]) -> [UInt8]? {
        let keyword = Array("XML:com.adobe.xmp".utf8) + [0]
        guard bytes.starts(with: keyword), bytes.count > keyword.count + 2 else { return nil }
        let compressed = bytes[keyword.count] == 1
        var i = keyword.count + 2
        for _ in 0..<2 {
            guard let end = bytes[i...].firstIndex(of: 0) else { return nil }
            i = end + 1
        }
        let text = Array(bytes[i...])
        return compressed ? ZlibDecompressor.decompress(text, limit: XMPMetadata.maximumBytes) : text
    }

    /// What a PNG's `IHDR` declares, checked against the specification and against what its image data can hold.
    struct ImageHeader {
        let width: Int
        let height: Int
        let bitDepth: Int
        let colourType: Int

        /// The most pixels per side a PNG decoder reads (libvips's coordinate limit; libpng refuses more).
        static let maximumSide = 10_000_000

        init(_ ihdr: [UInt8]) {
            width = Int(ByteReader.load32(ihdr, 0, false))
            height = Int(ByteReader.load32(ihdr, 4, false))
            bitDepth = Int(ihdr[8])
            colourType = Int(ihdr[9])
        }

        /// Samples per pixel by colour type (greyscale, RGB, palette, grey + alpha, RGBA); nil for another type.
        var channels: Int? { [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][colourType] }

        /// What is wrong with the header by itself, if anything.
        var problem: String? {
            guard width > 0, height > 0 else {
                return "the header (IHDR) declares \(width) × \(height) pixels; PNG images have at least one"
            }
            guard width <= Self.maximumSide, height <= Self.maximumSide else {
                return "the header (IHDR) declares \(width) × \(height) pixels, more than \(Self.maximumSide) per side, "
                    + "which no PNG decoder reads"
            }
            guard channels != nil, [1, 2, 4, 8, 16].contains(bitDepth) else {
                return "the header (IHDR) declares colour type \(colourType) with \(bitDepth)-bit samples, which PNG does "
                    + "not have"
            }
            return nil
        }

        /// Deflate packs at most 1032 bytes into one (RFC 1951's longest match, 258 bytes, in under two bits).
        static let deflateLimit: Int64 = 1032

        /// Whether `imageDataBytes` of compressed image data can hold the image the header declares: every row is a
        /// filter byte and its packed samples, and no deflate stream is smaller than 1/1032 of what it inflates to.
        func problem(imageDataBytes: Int64) -> String? {
            guard let channels else { return nil }
            let rowBytes = 1 + (Int64(width) * Int64(channels) * Int64(bitDepth) + 7) / 8
            let raw = rowBytes * Int64(height)
            let least = raw / Self.deflateLimit
            guard imageDataBytes < least else { return nil }
            return "the header (IHDR) declares \(width) × \(height) pixels (\(raw) bytes of image data), but its "
                + "\(imageDataBytes) bytes of compressed data (IDAT) can hold at most \(imageDataBytes * Self.deflateLimit)"
        }
    }
}
