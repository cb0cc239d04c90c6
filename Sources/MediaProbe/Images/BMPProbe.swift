/// Probes a Windows bitmap: the pixel array the header describes must lie inside the file.
enum BMPProbe {
    static func probe(_ source: ByteSource) throws(ProbeError) -> ProbeResult {
        var metadata = MediaMetadata(container: "bmp")
        func truncated(_ message: String) -> ProbeResult {
            ISOBMFFProbe.truncated("BMP \(message)", mime: "image/bmp", ext: "bmp", metadata: metadata)
        }
        func broken(_ message: String) -> ProbeResult {
            .rejected(
                .corrupt, message: "not a valid BMP: \(message)", mime: "image/bmp", fileExtension: "bmp",
                metadata: metadata)
        }
        guard let h = try source.read(at: 0, count: 26) else { return truncated("the file ends in the header") }
        let dataOffset = Int64(ByteReader.load32(h, 10, true))
        let dibSize = ByteReader.load32(h, 14, true)
        var width: Int64
        var height: Int64
        var bitsPerPixel: Int64
        var compression: UInt32 = 0
        var imageSize: Int64 = 0
        if dibSize == 12 {
            width = Int64(ByteReader.load16(h, 18, true))
            height = Int64(ByteReader.load16(h, 20, true))
            bitsPerPixel = Int64(ByteReader.load16(h, 24, true))
        } else {
            guard let d = try source.read(at: 14, count: 40) else { return truncated("the file ends in the header") }
            width = Int64(Int32(bitPattern: ByteReader.load32(d, 4, true)))
            height = Int64(Int32(bitPattern: ByteReader.load32(d, 8, true)))
            bitsPerPixel = Int64(ByteReader.load16(d, 14, true))
            compression = ByteReader.load32(d, 16, true)
            imageSize = Int64(ByteReader.load32(d, 20, true))
        }
        height = abs(height)
        guard width > 0, height > 0, width <= 1_000_000, height <= 1_000_000 else {
            return broken("the header gives a size of \(width)×\(height)")
        }
        metadata.pixelWidth = Int(width)
        metadata.pixelHeight = Int(height)
        guard [1, 2, 4, 8, 16, 24, 32, 64].contains(bitsPerPixel) || (bitsPerPixel == 0 && compression >= 4) else {
            return broken("\(bitsPerPixel) bits per pixel")
        }
        guard dataOffset >= 14 + Int64(dibSize) || dibSize == 12 else {
            return broken("the pixel data offset \(dataOffset) lies inside the header")
        }
        let needed: Int64
        switch compression {
        case 0, 3, 6:
            let stride = ((width * bitsPerPixel + 31) / 32) * 4
            needed = stride * height
        default:
            needed = imageSize
        }
        guard dataOffset + needed <= source.size else {
            return truncated(
                "the pixel data (bytes \(dataOffset)…\(dataOffset + needed)) runs past the end of the file "
                    + "(\(source.size) bytes)")
        }
        return .accepted(
            .photo, message: "BMP photo\(metadata.sizeText)", mime: "image/bmp", fileExtension: "bmp",
            metadata: metadata)
    }
}
