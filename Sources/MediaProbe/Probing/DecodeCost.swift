import PhotodropSystem

/// How much memory decoding a file for its pictures takes, estimated from its format, its pixel size and (when the
/// file is at hand) its header, so that decodes can be admitted against one memory budget before they start.
///
/// The figures are what the decoders photodrop uses hold at once for an image of `width` × `height`:
/// - a sequential JPEG streams (libjpeg's DCT scaling shrinks it while it is decoded): a few rows;
/// - a progressive JPEG keeps every coefficient of the whole image (2 bytes per sample) before any row comes out,
///   whatever it is shrunk to; so does an interlaced PNG with its pixels;
/// - HEIF/AVIF (Debian's libheif decodes the whole image: its planes, then RGB), WebP, GIF and JPEG XL decode the
///   whole image; TIFF and camera RAW (LibRaw at half size) about their pixels' worth;
/// - a video's poster frame: the decoder's reference frames.
///
/// A fixed overhead per decode (the decoders' own state and the pictures made) comes on top.
public enum DecodeCost {
    /// What every decode costs besides its pixels.
    public static let overhead: Int64 = 24 << 20

    /// The worst case for `mimeType` at `width` × `height`, without the file (a JPEG is assumed progressive, a PNG
    /// interlaced): for choosing a lane before the file is opened. Unknown sizes count as 12 megapixels.
    public static func worstCase(mimeType: String?, pixelWidth: Int, pixelHeight: Int) -> Int64 {
        let pixels = pixelCount(pixelWidth, pixelHeight)
        let perPixel: Double
        switch kind(mimeType) {
        case .jpeg: perPixel = 6
        case .png: perPixel = 8
        default: perPixel = bytesPerPixel(kind(mimeType))
        }
        return overhead + Int64(Double(pixels) * perPixel)
    }

    /// The estimate for the file open at `descriptor` (read from offset 0, at most its first 64 KiB): a JPEG's frame
    /// header says whether it is progressive and how its colour is sampled, a PNG's whether it is interlaced and
    /// how deep its pixels are.
    public static func estimate(fileDescriptor: FileDescriptor, mimeType: String?, pixelWidth: Int, pixelHeight: Int) -> Int64 {
        let pixels = pixelCount(pixelWidth, pixelHeight)
        switch kind(mimeType) {
        case .jpeg:
            guard let frame = jpegFrame(fileDescriptor) else {
                return worstCase(mimeType: mimeType, pixelWidth: pixelWidth, pixelHeight: pixelHeight)
            }
            let frameWidth = Int64(frame.width)
            if frame.isSequential {
                // Rows of one MCU (up to 32 pixels) of every component, shrunk or not, plus libvips's buffers.
                return overhead + frameWidth * 32 * 3 * 4
            }
            return overhead + Int64(Double(frameWidth * Int64(frame.height)) * frame.samplesPerPixel * 2)
        case .png:
            guard let header = pngHeader(fileDescriptor) else {
                return worstCase(mimeType: mimeType, pixelWidth: pixelWidth, pixelHeight: pixelHeight)
            }
            if header.interlaced { return overhead + Int64(header.width) * Int64(header.height) * Int64(header.bytesPerPixel) }
            return overhead + Int64(header.width) * Int64(header.bytesPerPixel) * 16
        case let other:
            return overhead + Int64(Double(pixels) * bytesPerPixel(other))
        }
    }

    private enum Kind { case jpeg, png, heif, webp, gif, jxl, tiff, bmp, raw, video, other }

    private static func kind(_ mimeType: String?) -> Kind {
        guard let mime = mimeType?.lowercased() else { return .other }
        switch mime {
        case "image/jpeg": return .jpeg
        case "image/png", "image/apng": return .png
        case "image/heic", "image/heif", "image/avif", "image/heic-sequence", "image/heif-sequence": return .heif
        case "image/webp": return .webp
        case "image/gif": return .gif
        case "image/jxl": return .jxl
        case "image/tiff": return .tiff
        case "image/bmp", "image/x-ms-bmp": return .bmp
        default:
            if mime.hasPrefix("video/") { return .video }
            if mime.hasPrefix("image/x-") { return .raw }
            return .other
        }
    }

    /// Bytes per pixel of the formats decoded whole.
    private static func bytesPerPixel(_ kind: Kind) -> Double {
        switch kind {
        case .heif: return 7  // YUV planes (up to 16-bit), then RGB: 1.5 GiB for 15800 × 15800, as measured
        case .webp: return 5.5
        case .gif: return 8
        case .jxl: return 16  // libjxl's float buffers
        case .tiff, .raw, .bmp: return 6
        case .video: return 12  // reference frames of 1.5 bytes a pixel
        case .jpeg: return 6
        case .png: return 8
        case .other: return 8
        }
    }

    private static func pixelCount(_ width: Int, _ height: Int) -> Int64 {
        guard width > 0, height > 0 else { return 12_000_000 }
        return Int64(width) * Int64(height)
    }

    /// A JPEG's frame header: its size, whether it is sequential Huffman (which libjpeg streams), and how many
    /// samples a pixel has across its components (3 for 4:4:4, 1.5 for 4:2:0).
    private static func jpegFrame(_ descriptor: FileDescriptor) -> (width: Int, height: Int, isSequential: Bool, samplesPerPixel: Double)? {
        guard let bytes = head(descriptor), bytes.count > 4, bytes[0] == 0xFF, bytes[1] == 0xD8 else { return nil }
        var i = 2
        while i + 4 <= bytes.count {
            guard bytes[i] == 0xFF else {
                i += 1  // stray bytes, skipped as decoders skip them
                continue
            }
            let marker = bytes[i + 1]
            if marker == 0xFF || marker == 0x00 || marker == 0x01 || (0xD0...0xD7).contains(marker) {
                i += marker == 0xFF ? 1 : 2
                continue
            }
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            if (0xC0...0xCF).contains(marker), marker != 0xC4, marker != 0xC8, marker != 0xCC {
                guard i + 2 + length <= bytes.count, length >= 8 else { return nil }
                let height = Int(bytes[i + 5]) << 8 | Int(bytes[i + 6])
                let width = Int(bytes[i + 7]) << 8 | Int(bytes[i + 8])
                let count = Int(bytes[i + 9])
                var factors: [(Int, Int)] = []
                for c in 0..<count where i + 10 + 3 * c + 2 <= i + 2 + length {
                    let f = bytes[i + 10 + 3 * c + 1]
                    factors.append((Int(f >> 4), Int(f & 0x0F)))
                }
                let maxH = factors.map(\.0).max() ?? 1
                let maxV = factors.map(\.1).max() ?? 1
                let samples = factors.reduce(0.0) { $0 + Double($1.0 * $1.1) / Double(max(1, maxH * maxV)) }
                return (width, height, marker == 0xC0 || marker == 0xC1, max(1, samples))
            }
            if marker == 0xDA || marker == 0xD9 { return nil }
            i += 2 + length
        }
        return nil
    }

    /// A PNG's IHDR: size, whether it is interlaced, bytes per pixel.
    private static func pngHeader(_ descriptor: FileDescriptor) -> (width: Int, height: Int, interlaced: Bool, bytesPerPixel: Int)? {
        guard let bytes = head(descriptor, count: 33), bytes.count >= 29, bytes[12..<16].elementsEqual("IHDR".utf8)
        else { return nil }
        let width = Int(ByteReader.load32(bytes, 16, false))
        let height = Int(ByteReader.load32(bytes, 20, false))
        let depth = Int(bytes[24])
        let channels = [0: 1, 2: 3, 3: 1, 4: 2, 6: 4][Int(bytes[25])] ?? 4
        return (width, height, bytes[28] == 1, max(1, channels * depth / 8))
    }

    private static func head(_ descriptor: FileDescriptor, count: Int = 64 * 1024) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { (try? descriptor.readFully(into: $0, at: 0)) ?? 0 }
        guard read > 0 else { return nil }
        return Array(bytes.prefix(read))
    }
}
