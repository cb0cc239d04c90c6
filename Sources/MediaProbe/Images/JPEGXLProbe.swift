/// Probes a JPEG XL image, a bare codestream (`FF 0A`) or the ISO-BMFF-style container (`JXL ` signature box, then
/// `ftyp`, `jxlc` or `jxlp` codestream boxes, `Exif`, `xml `): the size and orientation from the codestream's
/// `SizeHeader` and `ImageMetadata`, EXIF and XMP from the container. Apple devices show JPEG XL since iOS 17 and macOS 14.
enum JPEGXLProbe {
    /// The container's first 12 bytes.
    static let containerSignature: [UInt8] = [0, 0, 0, 0x0C, 0x4A, 0x58, 0x4C, 0x20, 0x0D, 0x0A, 0x87, 0x0A]

    static func probe(_ source: ByteSource, container: Bool) throws(ProbeError) -> ProbeResult {
        var metadata = MediaMetadata(container: "jxl")
        func truncated(_ message: String) -> ProbeResult {
            ISOBMFFProbe.truncated("JPEG XL \(message)", mime: "image/jxl", ext: "jxl", metadata: metadata)
        }
        func broken(_ message: String) -> ProbeResult {
            .rejected(
                .corrupt, message: "not a valid JPEG XL image: \(message)", mime: "image/jxl", fileExtension: "jxl",
                metadata: metadata)
        }
        var codestream: [UInt8]?
        var exif: ExifFields?
        var xmp: XMPMetadata?
        if container {
            var offset: Int64 = 0
            var boxes = 0
            while offset < source.size {
                boxes += 1
                guard boxes <= 100_000 else { return broken("more than 100000 boxes") }
                guard let header = try source.read(at: offset, count: Int(min(16, source.size - offset))),
                    header.count >= 8
                else { return truncated("ends inside the header of a box at offset \(offset)") }
                let type = FourCC(header, at: 4)
                var size = Int64(ByteReader.load32(header, 0, false))
                var headerSize: Int64 = 8
                if size == 1 {
                    guard header.count >= 16 else { return truncated("ends inside the header of box '\(type)'") }
                    let wide = UInt64(ByteReader.load32(header, 8, false)) << 32 | UInt64(ByteReader.load32(header, 12, false))
                    size = Int64(clamping: wide)
                    headerSize = 16
                } else if size == 0 {
                    size = source.size - offset
                }
                guard size >= headerSize else {
                    return broken("box '\(type)' at offset \(offset) declares \(size) bytes, less than its header")
                }
                guard offset + size <= source.size else {
                    return truncated(
                        "box '\(type)' at offset \(offset) declares \(size) bytes but the file ends after "
                            + "\(source.size - offset) of them")
                }
                let payload = offset + headerSize
                let payloadSize = size - headerSize
                switch type {
                case "jxlc":
                    if codestream == nil {
                        codestream = try source.read(at: payload, count: Int(min(payloadSize, 64)))
                    }
                case "jxlp":
                    // Partial codestreams: a 4-byte index, then the part; the first part holds the headers.
                    if codestream == nil, payloadSize > 4 {
                        codestream = try source.read(at: payload + 4, count: Int(min(payloadSize - 4, 64)))
                    }
                case "Exif":
                    if exif == nil, payloadSize >= 12, payloadSize <= maxMetadataBytes,
                        let bytes = try source.read(at: payload, count: Int(payloadSize))
                    {
                        exif = try TIFFWalker.exif(inISOBMFFBlock: bytes)
                    }
                case "xml ":
                    if xmp == nil, payloadSize <= maxMetadataBytes,
                        let bytes = try source.read(at: payload, count: Int(payloadSize))
                    {
                        xmp = try? XMPMetadata.parse(bytes)
                    }
                case "brob":
                    // A Brotli-compressed box (cjxl writes Exif and XMP this way): its real type, then the stream.
                    if payloadSize > 4, payloadSize <= maxMetadataBytes,
                        let bytes = try source.read(at: payload, count: Int(payloadSize))
                    {
                        let inner = FourCC(bytes, at: 0)
                        guard (inner == "Exif" && exif == nil) || (inner == "xml " && xmp == nil),
                            let inflated = BrotliDecompressor.decompress(Array(bytes[4...]), limit: Int(maxMetadataBytes))
                        else { break }
                        if inner == "Exif" {
                            exif = try TIFFWalker.exif(inISOBMFFBlock: inflated)
                        } else {
                            xmp = try? XMPMetadata.parse(inflated)
                        }
                    }
                default:
                    break
                }
                offset += size
            }
            guard codestream != nil else { return broken("there is no codestream (jxlc or jxlp box)") }
        } else {
            codestream = try source.read(at: 0, count: Int(min(source.size, 64)))
        }
        guard let codestream, codestream.count >= 2, codestream[0] == 0xFF, codestream[1] == 0x0A else {
            return broken("the codestream does not start with FF 0A")
        }
        guard let header = CodestreamHeader(codestream) else {
            return truncated("ends inside the codestream's size header")
        }
        metadata.pixelWidth = header.width
        metadata.pixelHeight = header.height
        // The codestream's orientation is the one decoders apply; EXIF's is informative only (the JPEG XL spec).
        metadata.orientation = header.orientation
        EmbeddedMetadata(exif: exif, xmp: xmp).apply(to: &metadata, orientation: false)
        return .accepted(
            .photo, message: "JPEG XL photo\(metadata.sizeText)", mime: "image/jxl", fileExtension: "jxl",
            metadata: metadata)
    }

    /// The most bytes an Exif or XMP box may hold (compressed or not) for photodrop to read it.
    static let maxMetadataBytes: Int64 = 4 << 20

    /// The start of a codestream: `SizeHeader` and the orientation from `ImageMetadata` (ISO/IEC 18181-1, A.2 and
    /// A.3), read least significant bit first after the `FF 0A` signature.
    struct CodestreamHeader: Equatable {
        var width: Int
        var height: Int
        var orientation: Int

        init(width: Int, height: Int, orientation: Int) {
            self.width = width
            self.height = height
            self.orientation = orientation
        }

        /// Nil when the bytes end first.
        init?(_ bytes: [UInt8]) {
            var bits = BitReader(bytes: bytes, bitOffset: 16)
            guard let small = bits.read(1) else { return nil }
            func dimension() -> Int? {
                if small == 1 { return bits.read(5).map { Int($0 + 1) * 8 } }
                guard let selector = bits.read(2) else { return nil }
                let width = [9, 13, 18, 30][Int(selector)]
                return bits.read(width).map { Int($0) + 1 }
            }
            guard let height = dimension(), let ratio = bits.read(3) else { return nil }
            let width: Int
            switch ratio {
            case 0:
                guard let explicit = dimension() else { return nil }
                width = explicit
            default:
                let (numerator, denominator) = [(1, 1), (12, 10), (4, 3), (3, 2), (16, 9), (5, 4), (2, 1)][Int(ratio) - 1]
                width = height * numerator / denominator
            }
            // ImageMetadata: all_default, then extra_fields, then the orientation.
            var orientation = 1
            guard let allDefault = bits.read(1) else { return nil }
            if allDefault == 0 {
                guard let extraFields = bits.read(1) else { return nil }
                if extraFields == 1 {
                    guard let value = bits.read(3) else { return nil }
                    orientation = Int(value) + 1
                }
            }
            self.init(width: width, height: height, orientation: orientation)
        }
    }

    /// Reads bits least significant first, as JPEG XL stores them.
    struct BitReader {
        let bytes: [UInt8]
        var bitOffset: Int

        /// The next `count` (≤ 32) bits, or nil past the end.
        mutating func read(_ count: Int) -> UInt32? {
            guard bitOffset + count <= bytes.count * 8 else { return nil }
            var value: UInt32 = 0
            for index in 0..<count {
                let bit = bitOffset + index
                if bytes[bit >> 3] >> UInt8(bit & 7) & 1 == 1 { value |= 1 << UInt32(index) }
            }
            bitOffset += count
            return value
        }
    }
}
