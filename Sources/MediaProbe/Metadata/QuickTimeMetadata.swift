/// The QuickTime metadata photodrop uses: `meta` with `keys`/`ilst` (`com.apple.quicktime.*`, and the iTunes-style
/// items ffmpeg writes), the `udta` atoms of other cameras and tools (`©day`, `©xyz`, `©nam` …), and 3GPP's `udta`
/// boxes that Android phones write (`date`: the recording's start with its zone; `loci`: the location). Read from the
/// movie's `moov` and from each track's `trak`; the movie's own values come first.
struct QuickTimeMetadata: Equatable {
    /// `com.apple.quicktime.creationdate` (ISO 8601 with offset).
    var creationDate: String?
    /// 3GPP `date` (Android): the recording's start as ISO 8601 text with its zone.
    var recordingDate: String?
    /// `©day`.
    var dayText: String?
    /// `com.apple.quicktime.content.identifier`: the Live Photo pairing UUID.
    var contentIdentifier: String?
    /// `com.apple.quicktime.location.ISO6709` or `©xyz`, as ISO 6709 text.
    var location: String?
    /// 3GPP `loci`: the location as numbers.
    var locationInformation: MediaMetadata.Location?
    var make: String?
    var model: String?
    /// `com.apple.quicktime.title`, `©nam`, 3GPP `titl`.
    var title: String?
    /// `com.apple.quicktime.description`, `desc`, `©des`, `ldes`, `©cmt`, 3GPP `dscp`.
    var caption: String?
    /// `com.apple.quicktime.author`/`artist`, `©ART`, `©aut`, 3GPP `auth`.
    var artist: String?
    /// `com.apple.quicktime.copyright`, `cprt`, `©cpy`.
    var copyright: String?
    /// `com.apple.quicktime.keywords`, `keyw`: comma-separated.
    var keywords: String?
    /// Where an `XMP_` box's packet lies in the parsed bytes.
    var xmpPacket: Range<Int>?

    /// Reads a QuickTime `meta` box (`hdlr` `mdta`, `keys`, `ilst`) in `bytes`; malformed parts are skipped.
    mutating func readMeta(_ bytes: [UInt8], _ meta: BoxHeader) {
        var iterator = BoxIterator(bytes, payloadOf: meta, skip: Self.metaSkip(bytes, meta))
        let children = (try? iterator.all(lenient: true)) ?? []
        var keys: [String] = []
        if let keysBox = children.first(where: { $0.type == "keys" }) {
            var r = BoxIterator.payload(bytes, keysBox)
            if (try? r.skip(4)) != nil, let count = try? r.u32() {
                for _ in 0..<min(Int(count), 1024) {
                    guard let size = try? r.u32(), size >= 8, (try? r.skip(4)) != nil,
                        let name = try? r.slice(Int(size) - 8)
                    else { break }
                    keys.append(String(decoding: name, as: UTF8.self))
                }
            }
        }
        guard let ilst = children.first(where: { $0.type == "ilst" }) else { return }
        var items = BoxIterator(bytes, payloadOf: ilst)
        for item in (try? items.all(lenient: true)) ?? [] {
            let index = Int(item.type.rawValue)
            let name: String
            if index >= 1, index <= keys.count {
                name = keys[index - 1]
            } else {
                name = item.type.description
            }
            guard let value = Self.dataValue(bytes, item) else { continue }
            switch name {
            case "com.apple.quicktime.creationdate": creationDate = value
            case "com.apple.quicktime.content.identifier": contentIdentifier = value
            case "com.apple.quicktime.location.ISO6709": location = value
            case "com.apple.quicktime.make": make = value
            case "com.apple.quicktime.model": model = value
            case "com.apple.quicktime.title": title = value
            case "com.apple.quicktime.description": caption = value
            case "com.apple.quicktime.author", "com.apple.quicktime.artist": if artist == nil { artist = value }
            case "com.apple.quicktime.copyright": copyright = value
            case "com.apple.quicktime.keywords": keywords = value
            case "©day": if dayText == nil { dayText = value }
            case "©xyz": if location == nil { location = value }
            default: noteText(name, value)
            }
        }
    }

    /// Reads `udta`: text atoms (`©day`, `©xyz`, `©nam` …), 3GPP's `date`, `loci`, `titl`, `dscp`, `auth`, `cprt`,
    /// an `XMP_` packet and an iTunes-style `meta`.
    mutating func readUserData(_ bytes: [UInt8], _ udta: BoxHeader) {
        var iterator = BoxIterator(bytes, payloadOf: udta)
        for child in (try? iterator.all(lenient: true)) ?? [] {
            switch child.type {
            case "meta": readMeta(bytes, child)
            case "date":
                // 3GPP (Android): the recording's start as ISO 8601 text with its zone, the whole payload.
                let text = String(decoding: bytes[Int(child.payloadOffset)..<Int(child.end)].prefix(64), as: UTF8.self)
                    .trimmingSpaces()
                if !text.isEmpty, recordingDate == nil { recordingDate = text }
            case "loci":
                if locationInformation == nil { locationInformation = Self.locationInformation(bytes, child) }
            case "titl", "dscp", "auth", "cprt":
                // 3GPP asset information: version and flags, a 16-bit language, then the text.
                if let text = Self.languageText(bytes, child) { noteText(child.type.description, text) }
            case "XMP_":
                if xmpPacket == nil { xmpPacket = Int(child.payloadOffset)..<Int(child.end) }
            case FourCC.userDataDay:
                if dayText == nil { dayText = Self.userDataText(bytes, child) }
            case FourCC.userDataLocation:
                if location == nil { location = Self.userDataText(bytes, child) }
            default:
                if let text = Self.userDataText(bytes, child) { noteText(child.type.description, text) }
            }
        }
    }

    /// The capture date to use: `com.apple.quicktime.creationdate`, else 3GPP's `date`, else `©day`.
    var captureDate: String? { creationDate ?? recordingDate ?? dayText }

    /// Files a text value under the field its atom or item name stands for (the first one found wins).
    private mutating func noteText(_ name: String, _ value: String) {
        switch name {
        case "©nam", "titl": if title == nil { title = value }
        case "desc", "©des", "ldes", "dscp", "©cmt": if caption == nil { caption = value }
        case "©ART", "©aut", "auth": if artist == nil { artist = value }
        case "cprt", "©cpy": if copyright == nil { copyright = value }
        case "keyw": if keywords == nil { keywords = value }
        default: break
        }
    }

    /// Fills what this metadata leaves unknown from a track's (`trak/udta`, `trak/meta`).
    mutating func fillMissing(from track: QuickTimeMetadata) {
        let strings: [WritableKeyPath<QuickTimeMetadata, String?>] = [
            \.creationDate, \.recordingDate, \.dayText, \.contentIdentifier, \.location, \.make, \.model, \.title, \.caption,
            \.artist, \.copyright, \.keywords,
        ]
        for path in strings where self[keyPath: path] == nil { self[keyPath: path] = track[keyPath: path] }
        if locationInformation == nil { locationInformation = track.locationInformation }
        if xmpPacket == nil { xmpPacket = track.xmpPacket }
    }

    /// 3GPP `loci` (TS 26.244): version and flags, a 16-bit language, the place's name (NUL-terminated, UTF-8 or
    /// UTF-16 with a byte-order mark), a role byte, then longitude, latitude and altitude as signed 16.16 numbers.
    static func locationInformation(_ bytes: [UInt8], _ box: BoxHeader) -> MediaMetadata.Location? {
        var i = Int(box.payloadOffset) + 6
        let end = Int(box.end)
        guard i < end else { return nil }
        if i + 1 < end, bytes[i] == 0xFE, bytes[i + 1] == 0xFF {
            i += 2
            while i + 1 < end, bytes[i] != 0 || bytes[i + 1] != 0 { i += 2 }
            i += 2
        } else {
            while i < end, bytes[i] != 0 { i += 1 }
            i += 1
        }
        i += 1  // role
        guard i + 12 <= end else { return nil }
        func fixed(_ at: Int) -> Double { Double(Int32(bitPattern: ByteReader.load32(bytes, at, false))) / 65536 }
        let longitude = fixed(i)
        let latitude = fixed(i + 4)
        let altitude = fixed(i + 8)
        guard abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0 else { return nil }
        return MediaMetadata.Location(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    /// A 3GPP text box: version and flags, a 16-bit packed language, then NUL-terminated UTF-8 (or UTF-16 with a
    /// byte-order mark).
    private static func languageText(_ bytes: [UInt8], _ box: BoxHeader) -> String? {
        let start = Int(box.payloadOffset) + 6
        guard start < Int(box.end) else { return nil }
        let raw = bytes[start..<min(Int(box.end), start + 4096)]
        let text: String
        if raw.starts(with: [0xFE, 0xFF]) {
            var units: [UInt16] = []
            var i = raw.startIndex + 2
            while i + 1 < raw.endIndex {
                let unit = UInt16(raw[i]) << 8 | UInt16(raw[i + 1])
                if unit == 0 { break }
                units.append(unit)
                i += 2
            }
            text = String(decoding: units, as: UTF16.self)
        } else {
            text = String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
        }
        let trimmed = text.trimmingSpaces()
        return trimmed.isEmpty ? nil : trimmed
    }

    /// QuickTime's `meta` is a plain container, ISO's a full box with 4 bytes of version and flags.
    static func metaSkip(_ bytes: [UInt8], _ meta: BoxHeader) -> Int {
        let p = Int(meta.payloadOffset)
        if p + 8 <= Int(meta.end), FourCC(bytes, at: p + 4) == "hdlr" { return 0 }
        return 4
    }

    /// The text (or number) of the first `data` box inside an `ilst` item.
    private static func dataValue(_ bytes: [UInt8], _ item: BoxHeader) -> String? {
        guard let data = BoxIterator.first("data", in: bytes, payloadOf: item) else {
            return userDataText(bytes, item)
        }
        var r = BoxIterator.payload(bytes, data)
        guard let type = try? r.u32(), (try? r.skip(4)) != nil else { return nil }
        let rest = r.rest
        let payload = bytes[rest.position..<rest.end]
        switch type & 0x00FF_FFFF {
        case 1:
            let text = String(decoding: payload.prefix(4096), as: UTF8.self).trimmingSpaces()
            return text.isEmpty ? nil : text
        default:
            return nil
        }
    }

    /// A QuickTime user-data text atom: 16-bit length, 16-bit language, text; or, failing that, the raw bytes.
    private static func userDataText(_ bytes: [UInt8], _ box: BoxHeader) -> String? {
        var r = BoxIterator.payload(bytes, box)
        guard let length = try? r.u16(), (try? r.skip(2)) != nil else { return nil }
        let count = min(Int(length), r.remaining, 1024)
        guard count > 0, let text = try? r.slice(count) else { return nil }
        let s = String(decoding: text.prefix { $0 != 0 }, as: UTF8.self).trimmingSpaces()
        return s.isEmpty ? nil : s
    }

    /// Parses ISO 6709 (`+37.3318-122.0312+010.000/`, also `±DDMM.M` and `±DDMMSS.S` forms).
    static func parseISO6709(_ text: String) -> MediaMetadata.Location? {
        var parts: [(sign: Double, digits: String)] = []
        var current = ""
        var sign = 1.0
        var started = false
        for c in text.unicodeScalars {
            if c == "+" || c == "-" {
                if started { parts.append((sign, current)) }
                sign = c == "-" ? -1 : 1
                current = ""
                started = true
            } else if c == "/" {
                break
            } else if started, (c >= "0" && c <= "9") || c == "." {
                current.unicodeScalars.append(c)
            } else if started {
                return nil
            }
        }
        if started { parts.append((sign, current)) }
        guard parts.count >= 2,
            let lat = degrees(parts[0].digits, degreeDigits: 2),
            let lon = degrees(parts[1].digits, degreeDigits: 3)
        else { return nil }
        let latitude = lat * parts[0].sign
        let longitude = lon * parts[1].sign
        guard abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0 else { return nil }
        var altitude: Double?
        if parts.count >= 3, let a = Double(parts[2].digits), a.isFinite, a < 100_000 { altitude = a * parts[2].sign }
        return MediaMetadata.Location(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    private static func degrees(_ digits: String, degreeDigits: Int) -> Double? {
        let integerPart = digits.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        guard let value = Double(digits), value.isFinite, !integerPart.isEmpty else { return nil }
        switch integerPart.count - degreeDigits {
        case ...0: return value
        case 2:
            let d = (value / 100).rounded(.towardZero)
            return d + (value - d * 100) / 60
        case 4:
            let d = (value / 10_000).rounded(.towardZero)
            let m = ((value - d * 10_000) / 100).rounded(.towardZero)
            return d + m / 60 + (value - d * 10_000 - m * 100) / 3600
        default: return nil
        }
    }
}
