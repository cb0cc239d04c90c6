/// Walks the image file directories (IFDs) of a TIFF stream: collects the EXIF/GPS fields photodrop uses and, for a
/// TIFF or TIFF-based RAW file, checks that every directory, strip, tile and thumbnail lies inside the file.
///
/// Loops, absurd counts and offsets outside the stream end the walk of that directory quietly: metadata is best
/// effort. Only the image structure (directories of the main chain and their sub-IFDs, strip and tile data) can make
/// a file `corrupt`.
struct TIFFWalker {
    /// One image directory of the main chain or a sub-IFD.
    struct Image: Equatable {
        var width: Int?
        var height: Int?
        var subfileType: UInt64?
        var photometric: UInt64?
        var compression: UInt64?
    }

    /// What the walk found.
    struct Result {
        var exif = ExifFields()
        var images: [Image] = []
        /// Why the file lacks data at its end: the first directory or image data that lies past the end.
        var missingData: String?
        /// Why the structure is broken (unreadable header, empty first directory).
        var broken: String?
        /// `DNGVersion` is present.
        var isDNG = false
        /// The TIFF header's magic number (42; 0x4F52/0x5352 for ORF, 0x55 for RW2).
        var magic: UInt16 = 0
    }

    /// What a directory holds.
    enum Kind {
        case image(depth: Int)
        case exif
        case gps
    }

    private var stream: TIFFStream
    private let checksStructure: Bool
    private var result = Result()
    private var visited: Set<Int64> = []
    private var budget = 64
    /// Bytes of strip/tile tables still allowed to be read (directories may share one huge table).
    private var tableBudget = 16 << 20
    private let firstKind: Kind

    /// The EXIF of an ISO-BMFF `Exif` item or box (HEIF, JPEG XL): a 4-byte big-endian offset from the end of itself
    /// to the TIFF header, then the TIFF block; nil when the offset points past the data.
    static func exif(inISOBMFFBlock data: [UInt8]) throws(ProbeError) -> ExifFields? {
        guard data.count >= 4 else { return nil }
        let tiffStart = 4 + Int(ByteReader.load32(data, 0, false))
        guard tiffStart < data.count else { return nil }
        return try walk(TIFFStream(bytes: data, range: tiffStart..<data.count), structure: false).exif
    }

    /// Walks `stream`. With `structure` (a TIFF/RAW file) the main chain, sub-IFDs and image data are checked too;
    /// without it (EXIF inside another format) only IFD0, the EXIF and GPS directories are read. `firstKind` says
    /// what the header's first directory is (Canon CR3 stores the EXIF and GPS directories as TIFF streams of their
    /// own).
    static func walk(_ stream: TIFFStream, structure: Bool, firstKind: Kind = .image(depth: 0)) throws(ProbeError)
        -> Result
    {
        var walker = TIFFWalker(stream: stream, checksStructure: structure, firstKind: firstKind)
        try walker.run()
        return walker.result
    }

    private init(stream: TIFFStream, checksStructure: Bool, firstKind: Kind) {
        self.stream = stream
        self.checksStructure = checksStructure
        self.firstKind = firstKind
    }

    private mutating func run() throws(ProbeError) {
        guard let header = try stream.bytes(at: 0, count: 8) else {
            result.broken = "the TIFF header is cut short"
            if checksStructure { result.missingData = "the file ends inside the TIFF header" }
            return
        }
        let b0 = header[header.startIndex]
        let b1 = header[header.startIndex + 1]
        if b0 == 0x49, b1 == 0x49 {
            stream.littleEndian = true
        } else if b0 == 0x4D, b1 == 0x4D {
            stream.littleEndian = false
        } else {
            result.broken = "the TIFF header has no byte-order mark"
            return
        }
        result.magic = stream.u16(header, header.startIndex + 2)
        var next = Int64(stream.u32(header, header.startIndex + 4))
        var index = 0
        while next != 0, index < (checksStructure ? 16 : 1) {
            let isFirst = index == 0
            guard let following = try visit(next, kind: isFirst ? firstKind : .image(depth: 0), isFirst: isFirst)
            else { break }
            next = following
            index += 1
        }
    }

    private struct Entry {
        let tag: UInt16
        let type: UInt16
        let count: UInt32
        /// The 4-byte value-or-offset field.
        let field: ArraySlice<UInt8>

        var unitSize: Int? {
            switch type {
            case 1, 2, 6, 7: return 1
            case 3, 8: return 2
            case 4, 9, 11, 13: return 4
            case 5, 10, 12: return 8
            default: return nil
            }
        }

        var byteCount: Int64? { unitSize.map { Int64($0) * Int64(count) } }
    }

    /// Reads the directory at `offset`; returns the next directory's offset (main chain only), `nil` when the walk
    /// of this directory failed.
    private mutating func visit(_ offset: Int64, kind: Kind, isFirst: Bool = false) throws(ProbeError) -> Int64? {
        guard budget > 0, visited.insert(offset).inserted else { return nil }
        budget -= 1
        let structural: Bool
        if case .image = kind { structural = checksStructure } else { structural = false }
        guard let countBytes = try stream.bytes(at: offset, count: 2) else {
            if structural {
                noteMissing("the image directory at offset \(offset) lies past the end of the file")
            }
            return nil
        }
        let count = Int(stream.u16(countBytes, countBytes.startIndex))
        guard count > 0, count <= 4096 else {
            if structural, isFirst { result.broken = "the first image directory has \(count) entries" }
            return nil
        }
        var block = try stream.bytes(at: offset + 2, count: count * 12 + 4)
        var hasNext = true
        if block == nil {
            block = try stream.bytes(at: offset + 2, count: count * 12)
            hasNext = false
            if block == nil {
                if structural {
                    noteMissing("the image directory at offset \(offset) runs past the end of the file")
                }
                return nil
            }
        }
        guard let block else { return nil }
        var image = Image()
        var strips: (offsets: Entry?, counts: Entry?) = (nil, nil)
        var tiles: (offsets: Entry?, counts: Entry?) = (nil, nil)
        var thumbnail: (offset: Entry?, length: Entry?) = (nil, nil)
        var subIFDs: [Int64] = []
        var exifIFD: Int64?
        var gpsIFD: Int64?
        let start = block.startIndex
        for i in 0..<count {
            let at = start + i * 12
            let entry = Entry(
                tag: stream.u16(block, at), type: stream.u16(block, at + 2), count: stream.u32(block, at + 4),
                field: block[(at + 8)..<(at + 12)])
            if structural, let size = entry.byteCount, size > 4 {
                // An image directory's own values (ICC profile, XMP, bit depths …) belong to the image.
                let valueOffset = Int64(stream.u32(entry.field, entry.field.startIndex))
                if !stream.contains(offset: valueOffset, count: size) {
                    noteMissing(
                        "the value of tag 0x\(String(entry.tag, radix: 16)) (bytes \(valueOffset)…"
                            + "\(valueOffset + size)) lies past the end of the file (\(stream.length) bytes)")
                }
            }
            switch kind {
            case .image(let depth):
                switch entry.tag {
                case 0x00FE: image.subfileType = try uint(entry)
                case 0x0100: image.width = try uint(entry).flatMap(Self.dimension)
                case 0x0101: image.height = try uint(entry).flatMap(Self.dimension)
                case 0x0103: image.compression = try uint(entry)
                case 0x0106: image.photometric = try uint(entry)
                case 0x0111: strips.offsets = entry
                case 0x0117: strips.counts = entry
                case 0x0144: tiles.offsets = entry
                case 0x0145: tiles.counts = entry
                case 0x0201: thumbnail.offset = entry
                case 0x0202: thumbnail.length = entry
                case 0x014A where checksStructure && depth < 2:
                    subIFDs = (try uints(entry, limit: 64) ?? []).map { Int64($0) }
                case 0xC612: result.isDNG = true
                case 0x8769: exifIFD = try uint(entry).map { Int64($0) }
                case 0x8825: gpsIFD = try uint(entry).map { Int64($0) }
                case 0x010F where depth == 0 && result.exif.make == nil: result.exif.make = try string(entry)
                case 0x0110 where depth == 0 && result.exif.model == nil: result.exif.model = try string(entry)
                case 0x0112 where depth == 0 && result.exif.orientation == nil:
                    result.exif.orientation = try uint(entry).map { Int(clamping: $0) }
                case 0x0132 where depth == 0 && result.exif.dateTime == nil: result.exif.dateTime = try string(entry)
                case 0x010E where depth == 0 && result.exif.imageDescription == nil:
                    result.exif.imageDescription = try string(entry)
                case 0x013B where depth == 0 && result.exif.artist == nil: result.exif.artist = try string(entry)
                case 0x8298 where depth == 0 && result.exif.copyright == nil:
                    result.exif.copyright = try copyright(entry)
                case 0x4746 where depth == 0 && result.exif.rating == nil:
                    result.exif.rating = try uint(entry).flatMap { $0 <= 5 ? Int($0) : nil }
                case 0x9C9B where depth == 0 && result.exif.windowsTitle == nil:
                    result.exif.windowsTitle = try windowsText(entry)
                case 0x9C9E where depth == 0 && result.exif.windowsKeywords == nil:
                    result.exif.windowsKeywords = try windowsText(entry)
                case 0x02BC where depth == 0 && result.exif.xmpPacket == nil:
                    result.exif.xmpPacket = try data(entry, limit: XMPMetadata.maximumBytes).map(Array.init)
                case 0x83BB where depth == 0 && result.exif.iptcRecords == nil:
                    result.exif.iptcRecords = try data(entry, limit: 1 << 20).map(Array.init)
                default: break
                }
            case .exif:
                switch entry.tag {
                case 0x9003: result.exif.dateTimeOriginal = try string(entry)
                case 0x9004: result.exif.dateTimeDigitized = try string(entry)
                case 0x9010: result.exif.offsetTime = try string(entry)
                case 0x9011: result.exif.offsetTimeOriginal = try string(entry)
                case 0x9012: result.exif.offsetTimeDigitized = try string(entry)
                case 0x9290: result.exif.subSecTime = try string(entry)
                case 0x9291: result.exif.subSecTimeOriginal = try string(entry)
                case 0x9292: result.exif.subSecTimeDigitized = try string(entry)
                case 0xA002: result.exif.pixelXDimension = try uint(entry).flatMap(Self.dimension)
                case 0xA003: result.exif.pixelYDimension = try uint(entry).flatMap(Self.dimension)
                case 0x829A: result.exif.exposureTime = try rationals(entry)?.first.flatMap(Self.positive)
                case 0x829D: result.exif.fNumber = try rationals(entry)?.first.flatMap(Self.positive)
                case 0x8827 where result.exif.iso == nil:
                    result.exif.iso = try uint(entry).flatMap { $0 > 0 && $0 < 10_000_000 ? Int($0) : nil }
                case 0x9209: result.exif.flash = try uint(entry).flatMap { $0 <= 0xFFFF ? Int($0) : nil }
                case 0x920A: result.exif.focalLength = try rationals(entry)?.first.flatMap(Self.positive)
                case 0xA405:
                    result.exif.focalLength35mm = try uint(entry).flatMap { $0 > 0 && $0 < 100_000 ? Int($0) : nil }
                case 0xA433: result.exif.lensMake = try string(entry)
                case 0xA434: result.exif.lensModel = try string(entry)
                case 0x927C:
                    if let note = try data(entry, limit: 1 << 20) {
                        result.exif.contentIdentifier = AppleMakerNote.contentIdentifier(note)
                    }
                default: break
                }
            case .gps:
                switch entry.tag {
                case 0x0001: result.exif.gpsLatitudeRef = try string(entry)
                case 0x0002: result.exif.gpsLatitude = try rationals(entry)
                case 0x0003: result.exif.gpsLongitudeRef = try string(entry)
                case 0x0004: result.exif.gpsLongitude = try rationals(entry)
                case 0x0005: result.exif.gpsAltitudeRef = try uint(entry).map { Int(clamping: $0) }
                case 0x0006: result.exif.gpsAltitude = try rationals(entry)?.first
                case 0x0007: result.exif.gpsTimeStamp = try rationals(entry)
                case 0x001D: result.exif.gpsDateStamp = try string(entry)
                case 0x0010: result.exif.gpsImgDirectionRef = try string(entry)
                case 0x0011: result.exif.gpsImgDirection = try rationals(entry)?.first
                default: break
                }
            }
        }
        if case .image(let depth) = kind {
            if structural {
                result.images.append(image)
                try checkData(offsets: strips.offsets, counts: strips.counts, what: "strip")
                try checkData(offsets: tiles.offsets, counts: tiles.counts, what: "tile")
                try checkData(offsets: thumbnail.offset, counts: thumbnail.length, what: "preview image")
                for sub in subIFDs { _ = try visit(sub, kind: .image(depth: depth + 1)) }
            }
            if depth == 0 {
                if let exifIFD { _ = try visit(exifIFD, kind: .exif) }
                if let gpsIFD { _ = try visit(gpsIFD, kind: .gps) }
            }
        }
        guard hasNext, case .image(depth: 0) = kind else { return nil }
        return Int64(stream.u32(block, start + count * 12))
    }

    private mutating func noteMissing(_ message: String) {
        if result.missingData == nil { result.missingData = message }
    }

    /// Checks that each `offsets[i] ..< offsets[i] + counts[i]` lies inside the file.
    private mutating func checkData(offsets: Entry?, counts: Entry?, what: String) throws(ProbeError) {
        guard let offsets else { return }
        let tableBytes = Int(offsets.byteCount ?? 0) + Int(counts?.byteCount ?? 0)
        guard tableBytes <= tableBudget else { return }
        tableBudget -= tableBytes
        guard let starts = try uints(offsets, limit: 1 << 20) else {
            if let bytes = offsets.byteCount, offsets.count > 1,
                !stream.contains(offset: Int64(stream.u32(offsets.field, offsets.field.startIndex)), count: bytes)
            {
                noteMissing("the \(what) offset table lies past the end of the file")
            }
            return
        }
        let lengths = try counts.flatMap { e throws(ProbeError) in try uints(e, limit: 1 << 20) } ?? []
        for (i, start) in starts.enumerated() {
            let length = i < lengths.count ? lengths[i] : 1
            guard start <= UInt64(Int64.max), length <= UInt64(Int64.max) else { continue }
            if !stream.contains(offset: Int64(start), count: Int64(length)) {
                noteMissing(
                    "\(what) \(i + 1) of \(starts.count) (bytes \(start)…\(start &+ length)) lies past the end of "
                        + "the file (\(stream.length) bytes)")
                return
            }
        }
    }

    /// A finite value above zero (an exposure, an aperture, a focal length), else nil: cameras write 0/0 or 0/1
    /// for "unknown".
    private static func positive(_ value: Double) -> Double? {
        value.isFinite && value > 0 && value < 1_000_000 ? value : nil
    }

    /// `Copyright`: the photographer's and the editor's notices, NUL-separated; both when both are there.
    private func copyright(_ e: Entry) throws(ProbeError) -> String? {
        guard e.type == 2 || e.type == 7, e.count > 0, let bytes = try data(e, limit: 4096) else { return nil }
        let notices = bytes.split(separator: 0).map { String(decoding: $0, as: UTF8.self).trimmingSpaces() }
            .filter { !$0.isEmpty }
        return notices.isEmpty ? nil : notices.joined(separator: "; ")
    }

    /// Microsoft's `XP*` tags (Windows Explorer's title and keywords): UTF-16 little-endian text, NUL-terminated.
    private func windowsText(_ e: Entry) throws(ProbeError) -> String? {
        guard e.type == 1 || e.type == 7, e.count >= 2, let bytes = try data(e, limit: 8192) else { return nil }
        var units: [UInt16] = []
        var i = bytes.startIndex
        while i + 1 < bytes.endIndex {
            let unit = UInt16(bytes[i]) | UInt16(bytes[i + 1]) << 8
            if unit == 0 { break }
            units.append(unit)
            i += 2
        }
        let text = String(decoding: units, as: UTF16.self).trimmingSpaces()
        return text.isEmpty ? nil : text
    }

    private static func dimension(_ value: UInt64) -> Int? {
        value > 0 && value <= 1_000_000 ? Int(value) : nil
    }

    /// The entry's value bytes when they are at most `limit` bytes and inside the stream.
    private func data(_ e: Entry, limit: Int) throws(ProbeError) -> ArraySlice<UInt8>? {
        guard let size = e.byteCount, size <= Int64(limit) else { return nil }
        if size <= 4 { return e.field.prefix(Int(size)) }
        let offset = Int64(stream.u32(e.field, e.field.startIndex))
        return try stream.bytes(at: offset, count: Int(size))
    }

    private func uints(_ e: Entry, limit: Int) throws(ProbeError) -> [UInt64]? {
        guard e.count > 0, e.count <= UInt32(limit), let size = e.unitSize, [1, 3, 4, 13].contains(e.type),
            let bytes = try data(e, limit: limit * 4)
        else { return nil }
        var values: [UInt64] = []
        values.reserveCapacity(Int(e.count))
        var i = bytes.startIndex
        for _ in 0..<Int(e.count) {
            switch size {
            case 1: values.append(UInt64(bytes[i]))
            case 2: values.append(UInt64(stream.u16(bytes, i)))
            default: values.append(UInt64(stream.u32(bytes, i)))
            }
            i += size
        }
        return values
    }

    private func uint(_ e: Entry) throws(ProbeError) -> UInt64? {
        guard e.count >= 1, let size = e.unitSize, [1, 3, 4, 13].contains(e.type) else { return nil }
        switch size {
        case 1: return UInt64(e.field[e.field.startIndex])
        case 2: return UInt64(stream.u16(e.field, e.field.startIndex))
        default:
            return e.count == 1 ? UInt64(stream.u32(e.field, e.field.startIndex)) : try uints(e, limit: 1)?.first
        }
    }

    private func string(_ e: Entry) throws(ProbeError) -> String? {
        guard e.type == 2 || e.type == 7 || e.type == 1, e.count > 0, let bytes = try data(e, limit: 4096) else {
            return nil
        }
        let text = bytes.prefix { $0 != 0 }
        let s = String(decoding: text, as: UTF8.self).trimmingSpaces()
        return s.isEmpty ? nil : s
    }

    private func rationals(_ e: Entry) throws(ProbeError) -> [Double]? {
        guard e.type == 5 || e.type == 10, e.count > 0, e.count <= 16, let bytes = try data(e, limit: 128) else {
            return nil
        }
        var values: [Double] = []
        var i = bytes.startIndex
        for _ in 0..<Int(e.count) {
            let n = stream.u32(bytes, i)
            let d = stream.u32(bytes, i + 4)
            i += 8
            guard d != 0 else { return nil }
            if e.type == 5 {
                values.append(Double(n) / Double(d))
            } else {
                values.append(Double(Int32(bitPattern: n)) / Double(Int32(bitPattern: d)))
            }
        }
        return values
    }
}

extension String {
    /// The string without leading and trailing spaces, tabs and newlines.
    func trimmingSpaces() -> String {
        var scalars = Substring(self)
        while let first = scalars.first, first == " " || first == "\t" || first == "\n" || first == "\r" {
            scalars = scalars.dropFirst()
        }
        while let last = scalars.last, last == " " || last == "\t" || last == "\n" || last == "\r" {
            scalars = scalars.dropLast()
        }
        return String(scalars)
    }
}
