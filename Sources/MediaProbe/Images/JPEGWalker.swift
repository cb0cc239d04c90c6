/// Walks a JPEG's marker segments up to the first scan (frame size, EXIF) and then finds its end-of-image marker:
/// at once when the file ends with `FFD9`, else by scanning the entropy-coded data (data after the end marker, such
/// as a motion photo's movie, is allowed).
enum JPEGWalker {
    struct Structure {
        var width: Int?
        var height: Int?
        var exif: ExifFields?
        /// The capture date of an XMP packet (APP1) and of IPTC records (APP13), when present.
        var xmpDate: (seconds: Double, offset: Int?)?
        /// The XMP packet's `exif:GPSDateTime` (UTC).
        var xmpGPSDate: Double?
        var sawXMP = false
        var iptcDate: (seconds: Double, offset: Int?)?
        /// Offset just after the first scan header.
        var scanStart: Int64?
        /// Offset just after the end-of-image marker, when found.
        var end: Int64?
        /// Whether an MP4 movie follows the image (a Google or Samsung motion photo).
        var trailingMovie = false
        /// Why data is missing at the end.
        var missingData: String?
        /// Why the structure is broken.
        var broken: String?
    }

    /// Whether an ISO-BMFF movie (an `ftyp` box of a plausible size) follows the image within 1 MiB: Google's
    /// motion photos append the MP4 after the image (and after an HDR gain map's JPEG, in newer ones), Samsung's
    /// after a short `MotionPhoto_Data` marker. Only JPEGs with data after their end pay for this read.
    static func movieFollows(_ source: ByteSource, at end: Int64) throws(ProbeError) -> Bool {
        let limit = min(source.size, end + (1 << 20))
        var offset = end
        while offset + 12 <= limit {
            let count = Int(min(Int64(64 << 10), limit - offset))
            guard let bytes = try source.read(at: offset, count: count) else { return false }
            var index = 4
            while index + 8 <= bytes.count {
                if bytes[index] == 0x66, bytes[index + 1] == 0x74, bytes[index + 2] == 0x79, bytes[index + 3] == 0x70 {
                    let size = Int(bytes[index - 4]) << 24 | Int(bytes[index - 3]) << 16 | Int(bytes[index - 2]) << 8
                        | Int(bytes[index - 1])
                    if (16...256).contains(size) { return true }
                }
                index += 1
            }
            // Overlap by 8 bytes so that a signature across two reads is seen.
            offset += Int64(max(count - 8, 1))
        }
        return false
    }

    /// The SOF markers that carry the frame size.
    private static func isStartOfFrame(_ m: UInt8) -> Bool {
        (0xC0...0xCF).contains(m) && m != 0xC4 && m != 0xC8 && m != 0xCC
    }

    /// Walks the JPEG starting at `start` (its SOI). With `findEnd` false the walk stops at the first scan.
    static func walk(_ source: ByteSource, from start: Int64 = 0, findEnd: Bool = true) throws(ProbeError)
        -> Structure
    {
        var s = Structure()
        var offset = start + 2
        var segments = 0
        while true {
            segments += 1
            guard segments <= 65_536 else {
                s.broken = "more than 65536 marker segments before the image data"
                return s
            }
            guard let b0 = try source.u8(at: offset), let b1 = try source.u8(at: offset + 1) else {
                s.missingData = "the file ends in the JPEG header, before the image data"
                return s
            }
            guard b0 == 0xFF else {
                s.broken = "expected a JPEG marker at offset \(offset), found 0x\(String(b0, radix: 16))"
                return s
            }
            if b1 == 0xFF {
                offset += 1  // fill byte
                continue
            }
            if b1 == 0x01 || (0xD0...0xD7).contains(b1) {
                offset += 2
                continue
            }
            if b1 == 0xD8 || b1 == 0xD9 || b1 == 0x00 {
                s.broken = "marker FF\(hex(b1)) at offset \(offset), before any image data"
                return s
            }
            guard let l0 = try source.u8(at: offset + 2), let l1 = try source.u8(at: offset + 3) else {
                s.missingData = "the file ends in the JPEG header, before the image data"
                return s
            }
            let length = Int64(l0) << 8 | Int64(l1)
            guard length >= 2 else {
                s.broken = "segment FF\(hex(b1)) at offset \(offset) has length \(length)"
                return s
            }
            let payload = offset + 4
            let end = offset + 2 + length
            guard end <= source.size else {
                s.missingData =
                    "segment FF\(hex(b1)) at offset \(offset) (\(length) bytes) runs past the end of the file "
                    + "(\(source.size) bytes), before the image data"
                return s
            }
            if b1 == 0xE1 {
                var wasExif = false
                if s.exif == nil, length >= 2 + 6 + 8 {
                    s.exif = try readExif(source, payload: payload, end: end)
                    wasExif = s.exif != nil
                }
                if !wasExif, !s.sawXMP, length > 2 + Int64(xmpHeader.count), length <= 1 << 20,
                    let bytes = try source.read(at: payload, count: Int(end - payload)), bytes.starts(with: xmpHeader)
                {
                    let packet = Array(bytes[xmpHeader.count...])
                    s.sawXMP = true
                    s.xmpDate = EmbeddedDates.xmp(packet)
                    s.xmpGPSDate = EmbeddedDates.xmpGPSDate(packet)
                }
            } else if b1 == 0xED, s.iptcDate == nil, length <= 1 << 20 {
                if let bytes = try source.read(at: payload, count: Int(end - payload)) {
                    s.iptcDate = EmbeddedDates.iptc(photoshopResources: bytes)
                }
            } else if isStartOfFrame(b1), s.width == nil, length >= 7 {
                if let bytes = try source.read(at: payload, count: 5) {
                    let h = Int(bytes[1]) << 8 | Int(bytes[2])
                    let w = Int(bytes[3]) << 8 | Int(bytes[4])
                    if w > 0 { s.width = w }
                    if h > 0 { s.height = h }
                }
            } else if b1 == 0xDA {
                guard s.width != nil else {
                    s.broken = "the image data starts without a frame header (SOF)"
                    return s
                }
                s.scanStart = end
                break
            }
            offset = end
        }
        guard findEnd, let scanStart = s.scanStart else { return s }
        // Fast path: a file that ends with EOI is complete (the header walk proved the segments before the scan
        // lie inside the file; EOI cannot occur inside entropy-coded data).
        if source.size >= scanStart + 2, try source.u8(at: source.size - 2) == 0xFF,
            try source.u8(at: source.size - 1) == 0xD9
        {
            s.end = source.size
            return s
        }
        var reader = SequentialReader(source, at: scanStart)
        while true {
            guard try reader.find(0xFF) else {
                s.missingData = "the file ends inside the image data, before the end-of-image marker (FFD9)"
                return s
            }
            _ = try reader.u8()
            var marker: UInt8? = try reader.u8()
            while marker == 0xFF { marker = try reader.u8() }
            guard let m = marker else {
                s.missingData = "the file ends inside the image data, before the end-of-image marker (FFD9)"
                return s
            }
            switch m {
            case 0x00, 0x01, 0xD0...0xD7:
                continue
            case 0xD9:
                s.end = reader.offset
                s.trailingMovie = try Self.movieFollows(source, at: reader.offset)
                return s
            case 0xD8:
                s.broken = "a second start-of-image marker inside the image data at offset \(reader.offset - 2)"
                return s
            default:
                // A marker segment between scans (DHT, DQT, SOS of a progressive JPEG …): skip it by its length.
                guard let length = try reader.u16be() else {
                    s.missingData = "the file ends inside a marker segment of the image data"
                    return s
                }
                guard length >= 2 else {
                    s.broken = "segment FF\(hex(m)) in the image data has length \(length)"
                    return s
                }
                guard try reader.skip(Int64(length) - 2) else {
                    s.missingData = "segment FF\(hex(m)) in the image data runs past the end of the file"
                    return s
                }
            }
        }
    }

    /// The start of an APP1 segment that holds XMP.
    private static let xmpHeader = Array("http://ns.adobe.com/xap/1.0/".utf8) + [0]

    private static func hex(_ b: UInt8) -> String {
        let s = String(b, radix: 16, uppercase: true)
        return s.count == 1 ? "0" + s : s
    }

    /// Reads `Exif\0\0` + TIFF from an APP1 payload.
    private static func readExif(_ source: ByteSource, payload: Int64, end: Int64) throws(ProbeError) -> ExifFields? {
        let tiff = payload + 6
        if end <= Int64(source.headCount) {
            let h = source.head
            let p = Int(payload)
            guard h[p] == 0x45, h[p + 1] == 0x78, h[p + 2] == 0x69, h[p + 3] == 0x66, h[p + 4] == 0, h[p + 5] == 0
            else { return nil }
            return try TIFFWalker.walk(TIFFStream(bytes: h, range: Int(tiff)..<Int(end)), structure: false).exif
        }
        guard let bytes = try source.read(at: payload, count: Int(end - payload)),
            bytes.starts(with: [0x45, 0x78, 0x69, 0x66, 0, 0])
        else { return nil }
        return try TIFFWalker.walk(TIFFStream(bytes: bytes, range: 6..<bytes.count), structure: false).exif
    }
}
