/// Walks a JPEG's marker segments up to the first scan (frame size, EXIF) and then finds its end-of-image marker:
/// at once when the file ends with `FFD9`, else by scanning the entropy-coded data (data after the end marker, such
/// as a motion photo's movie, is allowed).
enum JPEGWalker {
    struct Structure {
        var width: Int?
        var height: Int?
        var exif: ExifFields?
        /// The XMP packet (APP1), with its extension (Extended XMP, further APP1 segments) merged in.
        var xmp: XMPMetadata?
        var sawXMP = false
        /// Extended XMP chunks by GUID: offset into the extended packet, and the bytes.
        var extendedXMP: [String: [(offset: Int, bytes: ArraySlice<UInt8>)]] = [:]
        var extendedXMPBytes = 0
        /// IPTC records (APP13).
        var iptc: IPTCRecords?
        var sawIPTC = false
        /// Bytes that were not where a marker had to be, skipped as libjpeg skips them ("extraneous bytes before
        /// marker"): padding between segments, an XMP packet's end spilled past its segment.
        var strayBytes = 0

        /// The file's EXIF, XMP and IPTC, for ``EmbeddedMetadata``.
        var embedded: EmbeddedMetadata { EmbeddedMetadata(exif: exif, xmp: xmp, iptc: iptc) }
        /// The frame header's marker (C0 baseline, C1 extended, C2 progressive …) and its components' sampling
        /// factors.
        var frameMarker: UInt8?
        var sampling: [(horizontal: Int, vertical: Int)] = []
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
                // As libjpeg does: bytes before a marker are skipped (and counted), up to the next 0xFF.
                guard let next = try nextFF(source, after: offset, limit: maximumStrayBytes - s.strayBytes) else {
                    if offset + Int64(maximumStrayBytes - s.strayBytes) < source.size {
                        s.broken =
                            "more than \(maximumStrayBytes) stray bytes where JPEG markers should be (from offset "
                            + "\(offset)); this is not JPEG data"
                    } else {
                        s.missingData = "the file ends in the JPEG header, before the image data"
                    }
                    return s
                }
                s.strayBytes += Int(next - offset)
                offset = next
                continue
            }
            if b1 == 0xFF {
                offset += 1  // fill byte
                continue
            }
            if b1 == 0x01 || (0xD0...0xD7).contains(b1) {
                offset += 2
                continue
            }
            if b1 == 0x00 {
                // FF 00 is no marker: libjpeg counts both bytes as stray and looks further.
                s.strayBytes += 2
                offset += 2
                continue
            }
            if b1 == 0xD8 || b1 == 0xD9 {
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
                if !wasExif, length > 2 + Int64(extendedXMPHeader.count) {
                    try readXMP(source, payload: payload, end: end, into: &s)
                }
            } else if b1 == 0xED, !s.sawIPTC {
                if let bytes = try source.read(at: payload, count: Int(end - payload)) {
                    s.iptc = IPTCRecords.parse(photoshopResources: bytes)
                    s.sawIPTC = s.iptc != nil
                }
            } else if isStartOfFrame(b1), s.width == nil, length >= 7 {
                if let bytes = try source.read(at: payload, count: Int(min(length - 2, 6 + 3 * 255))) {
                    let h = Int(bytes[1]) << 8 | Int(bytes[2])
                    let w = Int(bytes[3]) << 8 | Int(bytes[4])
                    if w > 0 { s.width = w }
                    if h > 0 { s.height = h }
                    s.frameMarker = b1
                    if bytes.count >= 6 {
                        let count = min(Int(bytes[5]), (bytes.count - 6) / 3)
                        s.sampling = (0..<count).map { (i: Int) -> (horizontal: Int, vertical: Int) in
                            let factors: UInt8 = bytes[6 + 3 * i + 1]
                            return (horizontal: Int(factors >> 4), vertical: Int(factors & 0x0F))
                        }
                    }
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
        s.mergeExtendedXMP()
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
    /// The start of an APP1 segment that holds a part of Extended XMP: then a 32-character GUID, the extended
    /// packet's full length and this part's offset (32-bit, big-endian), and the part.
    private static let extendedXMPHeader = Array("http://ns.adobe.com/xmp/extension/".utf8) + [0]
    /// The most stray bytes skipped before giving up on a file as not JPEG.
    static let maximumStrayBytes = 1 << 20

    /// The offset of the next 0xFF after `offset`, looking at most `limit` bytes ahead; nil when none is there.
    private static func nextFF(_ source: ByteSource, after offset: Int64, limit: Int) throws(ProbeError) -> Int64? {
        var start = offset
        let end = min(source.size, offset + Int64(max(limit, 0)))
        while start < end {
            let count = Int(min(4096, end - start))
            guard let bytes = try source.read(at: start, count: count) else { return nil }
            if let index = bytes.firstIndex(of: 0xFF) { return start + Int64(index - bytes.startIndex) }
            start += Int64(count)
        }
        return nil
    }

    /// Reads an APP1 segment that holds XMP: the main packet, or a part of the extended one.
    private static func readXMP(_ source: ByteSource, payload: Int64, end: Int64, into s: inout Structure)
        throws(ProbeError)
    {
        guard let head = try source.read(at: payload, count: min(Int(end - payload), extendedXMPHeader.count)) else {
            return
        }
        if head.starts(with: xmpHeader), !s.sawXMP {
            guard let bytes = try source.read(at: payload, count: Int(end - payload)) else { return }
            s.sawXMP = true
            s.xmp = try? XMPMetadata.parse(Array(bytes[(bytes.startIndex + xmpHeader.count)...]))
        } else if head.starts(with: extendedXMPHeader), end - payload > Int64(extendedXMPHeader.count + 40),
            s.extendedXMPBytes + Int(end - payload) <= XMPMetadata.maximumBytes,
            let bytes = try source.read(at: payload, count: Int(end - payload))
        {
            let at = bytes.startIndex + extendedXMPHeader.count
            let guid = String(decoding: bytes[at..<(at + 32)], as: UTF8.self)
            let offset = Int(ByteReader.load32(bytes, at + 36, false))
            s.extendedXMP[guid, default: []].append((offset, bytes[(at + 40)...]))
            s.extendedXMPBytes += bytes.count
        }
    }

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

extension JPEGWalker.Structure {
    /// Puts the parts of the extended packet that the main packet names (`xmpNote:HasExtendedXMP`) together in
    /// offset order and fills what the main packet leaves unknown from it; parts that overlap, leave gaps or belong
    /// to another GUID are ignored.
    mutating func mergeExtendedXMP() {
        defer { extendedXMP = [:] }
        guard let guid = xmp?.extendedPacketGUID, let parts = extendedXMP[guid] else { return }
        var packet: [UInt8] = []
        for part in parts.sorted(by: { $0.offset < $1.offset }) {
            guard part.offset == packet.count else { return }
            packet.append(contentsOf: part.bytes)
        }
        if let extended = try? XMPMetadata.parse(packet) { xmp?.fillMissing(from: extended) }
    }
}

extension JPEGWalker.Structure {
    /// The fewest bytes of entropy-coded data that can hold the image the frame header declares, for the Huffman
    /// coding processes: every 8 × 8 block of every component costs at least two bits in a sequential JPEG (a DC code
    /// and an end-of-block code, each at least one bit) and at least one in a progressive one (its DC code in the
    /// first DC scan; later scans may skip blocks by end-of-band runs). Nil for arithmetic and lossless coding, whose
    /// codes have no such floor, and for a header without usable sampling factors.
    var leastImageDataBytes: Int64? {
        guard let width, let height, let frameMarker, !sampling.isEmpty else { return nil }
        let bitsPerBlock: Int64
        switch frameMarker {
        case 0xC0, 0xC1: bitsPerBlock = 2
        case 0xC2: bitsPerBlock = 1
        default: return nil
        }
        var maxH = 0
        var maxV = 0
        for component in sampling {
            guard (1...4).contains(component.horizontal), (1...4).contains(component.vertical) else { return nil }
            maxH = max(maxH, component.horizontal)
            maxV = max(maxV, component.vertical)
        }
        // A component's blocks when it is coded alone (fewer than in interleaved scans, whose MCUs pad the edges).
        var blocks: Int64 = 0
        for component in sampling {
            let across = (Int64(width) * Int64(component.horizontal) + Int64(maxH) - 1) / Int64(maxH)
            let down = (Int64(height) * Int64(component.vertical) + Int64(maxV) - 1) / Int64(maxV)
            blocks += ((across + 7) / 8) * ((down + 7) / 8)
        }
        return blocks * bitsPerBlock / 8
    }

    /// Why the image data cannot hold the image the frame header declares (a small image's data under a huge
    /// header decodes as a grey field), if it cannot.
    var dataShortfall: String? {
        guard let scanStart, let end, let least = leastImageDataBytes, end - scanStart < least else { return nil }
        return "the frame header declares \(width ?? 0) × \(height ?? 0) pixels, whose blocks need at least \(least) "
            + "bytes of image data, but the file has \(end - scanStart) before its end-of-image marker"
    }
}
