/// The QuickTime metadata photodrop uses: `moov/meta` with `keys`/`ilst` (`com.apple.quicktime.*`) and the `udta`
/// atoms `©day`/`©xyz` that other cameras (Android, GoPro) write.
struct QuickTimeMetadata: Equatable {
    /// `com.apple.quicktime.creationdate` (ISO 8601 with offset) or `©day`.
    var creationDate: String?
    /// `com.apple.quicktime.content.identifier`: the Live Photo pairing UUID.
    var contentIdentifier: String?
    /// `com.apple.quicktime.location.ISO6709` or `©xyz`.
    var location: String?
    var make: String?
    var model: String?

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
            case "©day": if creationDate == nil { creationDate = value }
            case "©xyz": if location == nil { location = value }
            default: break
            }
        }
    }

    /// Reads `udta`: the `©day` and `©xyz` text atoms and an iTunes-style `meta`.
    mutating func readUserData(_ bytes: [UInt8], _ udta: BoxHeader) {
        var iterator = BoxIterator(bytes, payloadOf: udta)
        for child in (try? iterator.all(lenient: true)) ?? [] {
            switch child.type {
            case "meta": readMeta(bytes, child)
            case FourCC.userDataDay:
                if creationDate == nil { creationDate = Self.userDataText(bytes, child) }
            case FourCC.userDataLocation:
                if location == nil { location = Self.userDataText(bytes, child) }
            default: break
            }
        }
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
