/// A format recognised from its first bytes by photodrop's own sniffers, which run before (and usually instead of)
/// libmagic.
enum SniffedFormat: Equatable {
    case jpeg
    case png
    case gif
    case webp
    case bmp
    /// JPEG XL: a bare codestream (`FF 0A`) or the container (`JXL ` signature box).
    case jpegXL(container: Bool)
    /// TIFF and TIFF-based RAW (DNG, NEF, ARW, PEF …); `cr2` is set by Canon's `CR\x02` marker, ORF and RW2 by their
    /// own header magic.
    case tiff(cr2: Bool)
    /// BigTIFF (`II+`/`MM+`), which Apple devices do not show.
    case bigTIFF
    case fujiRAF
    /// ISO-BMFF or QuickTime: `ftyp` first, or a QuickTime top-level atom.
    case isoBMFF
    /// MPEG transport stream with 188-byte (TS) or 192-byte (M2TS) packets.
    case mpegTS(packetSize: Int)
    /// MP3 audio behind an ID3v2 tag.
    case id3Audio

    /// Recognises the format from the head of a file of `size` bytes; `nil` when none of the sniffers knows it.
    static func sniff(_ h: [UInt8], count n: Int, size: Int64) -> SniffedFormat? {
        guard n >= 2 else { return nil }
        func at(_ i: Int) -> UInt8 { i < n ? h[i] : 0 }
        func matches(_ bytes: [UInt8], at offset: Int = 0) -> Bool {
            guard offset + bytes.count <= n else { return false }
            for (i, b) in bytes.enumerated() where h[offset + i] != b { return false }
            return true
        }
        switch h[0] {
        case 0xFF:
            if at(1) == 0xD8, at(2) == 0xFF { return .jpeg }
            if at(1) == 0x0A, n >= 3 { return .jpegXL(container: false) }
        case 0x00:
            if matches(JPEGXLProbe.containerSignature) { return .jpegXL(container: true) }
        case 0x89:
            if matches([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        case 0x47:
            if matches(Array("GIF87a".utf8)) || matches(Array("GIF89a".utf8)) { return .gif }
            if let ts = transportStream(h, n, offset: 0, packet: 188) { return ts }
        case 0x52:
            if matches(Array("RIFF".utf8)), matches(Array("WEBP".utf8), at: 8) { return .webp }
        case 0x42:
            if at(1) == 0x4D, n >= 18 {
                let dib = ByteReader.load32(h, 14, true)
                if [12, 40, 52, 56, 64, 108, 124].contains(dib) { return .bmp }
            }
        case 0x49, 0x4D:
            guard n >= 8, at(1) == h[0] else { break }
            let le = h[0] == 0x49
            let magic = ByteReader.load16(h, 2, le)
            if magic == 42 || magic == 0x4F52 || magic == 0x5352 || (le && magic == 0x55) {
                return .tiff(cr2: n >= 11 && at(8) == 0x43 && at(9) == 0x52 && at(10) == 2)
            }
            if magic == 43 { return .bigTIFF }
        case 0x46:
            if matches(Array("FUJIFILMCCD-RAW ".utf8)) { return .fujiRAF }
        default:
            break
        }
        if matches(Array("ID3".utf8)), at(3) >= 2, at(3) <= 4, at(4) != 0xFF { return .id3Audio }
        if n >= 8, isISOBMFF(h, n, size: size) { return .isoBMFF }
        if n >= 4, at(4) == 0x47, let ts = transportStream(h, n, offset: 4, packet: 192) { return ts }
        return nil
    }

    /// QuickTime atoms that may come first in a file without `ftyp`.
    private static let quickTimeFirstAtoms: Set<FourCC> = [
        "moov", "mdat", "wide", "free", "skip", "pnot", "PICT", "junk", "pict", "uuid",
    ]

    private static func isISOBMFF(_ h: [UInt8], _ n: Int, size: Int64) -> Bool {
        let size32 = Int64(ByteReader.load32(h, 0, false))
        let type = FourCC(h, at: 4)
        if type == "ftyp" { return size32 >= 12 && size32 <= 4096 }
        guard quickTimeFirstAtoms.contains(type) else { return false }
        if size32 == 1 { return n >= 16 }
        return size32 == 0 || size32 >= 8
    }

    /// A transport stream: the sync byte 0x47 at every packet start we can see, at least three of them.
    private static func transportStream(_ h: [UInt8], _ n: Int, offset: Int, packet: Int) -> SniffedFormat? {
        var seen = 0
        var i = offset
        while i < n, seen < 8 {
            guard h[i] == 0x47 else { return nil }
            seen += 1
            i += packet
        }
        return seen >= 3 ? .mpegTS(packetSize: packet) : nil
    }

    /// For a file too short to sniff: the name of the format whose signature these bytes begin (an upload cut after
    /// a few bytes), or `nil`.
    static func signaturePrefix(_ h: [UInt8], count n: Int) -> String? {
        let signatures: [(String, [UInt8])] = [
            ("JPEG", [0xFF, 0xD8, 0xFF]), ("PNG", [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]),
            ("GIF", Array("GIF87a".utf8)), ("GIF", Array("GIF89a".utf8)), ("WebP", Array("RIFF".utf8)),
            ("TIFF", Array("II*\u{0}".utf8)),
            ("TIFF", [0x4D, 0x4D, 0x00, 0x2A]), ("RAF", Array("FUJIFILMCCD-RAW ".utf8)),
        ]
        // "BM", then the file size: plausible when it promises more than is here.
        if n >= 2, h[0] == 0x42, h[1] == 0x4D, n < 18 {
            if n < 6 { return "BMP" }
            let declared = ByteReader.load32(h, 2, true)
            if declared > UInt32(n), declared < 1 << 31 { return "BMP" }
        }
        guard n >= 1 else { return nil }
        for (name, signature) in signatures where n < signature.count || name == "WebP" {
            let m = min(n, signature.count)
            if Array(h[0..<m]) == Array(signature[0..<m]) {
                if name == "WebP", n >= 12 {
                    if Array(h[8..<12]) == Array("WEBP".utf8) { return name }
                    continue
                }
                return name
            }
        }
        if n > 4, n < 8 {
            let size = ByteReader.load32(h, 0, false)
            let ftyp = Array("ftyp".utf8)
            if size >= 8, size <= 4096, Array(h[4..<n]) == Array(ftyp[0..<(n - 4)]) { return "MP4/HEIF" }
        }
        return nil
    }
}
