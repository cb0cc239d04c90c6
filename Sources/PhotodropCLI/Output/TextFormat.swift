import PhotodropSystem
import FoundationEssentials
import LibraryJSON
import PhotoCatalog

/// How the text output writes dates, sizes and identifiers.
enum TextFormat {
    /// `2024-05-01 12:00:00 UTC`.
    static func date(_ date: Date?) -> String {
        guard let date else { return "-" }
        let text = CatalogJSON.timestamp(date)  // 2024-05-01T12:00:00.000Z
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(8)) + " UTC"
    }

    /// `2024-05-01 12:00` (UTC), for tables.
    static func shortDate(_ date: Date?) -> String {
        guard let date else { return "-" }
        let text = CatalogJSON.timestamp(date)
        return String(text.prefix(10)) + " " + String(text.dropFirst(11).prefix(5))
    }

    /// `3.4 MB`, `512 B` (decimal units, as disks are sold).
    static func bytes(_ count: Int64) -> String {
        if count < 1000 { return "\(count) B" }
        let units = ["kB", "MB", "GB", "TB", "PB"]
        var value = Double(count) / 1000
        var unit = 0
        while value >= 999.95 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return NumberText.fixed(value, places: value < 9.995 ? 2 : value < 99.95 ? 1 : 0) + " " + units[unit]
    }

    /// ``bytes(_:)`` for a right-aligned table column: the unit padded to two characters (`512 B ` above `1.03 MB`),
    /// so that the numbers end in one column whatever their unit.
    static func bytesForColumn(_ count: Int64) -> String {
        let text = bytes(count)
        return text.hasSuffix(" B") ? text + " " : text
    }

    /// `1,234,567`.
    static func count(_ value: some BinaryInteger) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (index, character) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result += "," }
            result.append(character)
        }
        return (value < 0 ? "-" : "") + result
    }

    /// `3 assets`, `1 asset`.
    static func plural(_ value: Int, _ singular: String, _ plural: String? = nil) -> String {
        "\(count(value)) \(value == 1 ? singular : plural ?? singular + "s")"
    }

    /// The short form of an identifier shown in tables: the first 13 characters of the UUID (`3F2A9C1B-7D4E`), which
    /// every command accepts as a prefix; smart albums keep their readable identifier.
    static func shortIdentifier(_ identifier: String) -> String {
        if identifier.hasPrefix("SmartAlbum-") { return identifier }
        return String(identifier.prefix(13))
    }

    /// `4032×3024`, or `-` when unknown.
    static func pixels(_ width: Int, _ height: Int) -> String {
        width > 0 && height > 0 ? "\(width)×\(height)" : "-"
    }

    /// `12.3 s`, `1:02:03`.
    static func duration(_ seconds: Double) -> String {
        if seconds < 60 { return NumberText.fixed(seconds, places: 1) + " s" }
        let total = Int(seconds.rounded())
        let (hours, minutes, rest) = (total / 3600, total / 60 % 60, total % 60)
        return hours > 0
            ? "\(hours):\(NumberText.decimal(minutes, width: 2)):\(NumberText.decimal(rest, width: 2))"
            : "\(minutes):\(NumberText.decimal(rest, width: 2))"
    }

    /// `5 minutes ago`, for a date in the past.
    static func age(_ date: Date, now: Date = Date()) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case 0..<60: return plural(seconds, "second") + " ago"
        case 60..<3600: return plural(seconds / 60, "minute") + " ago"
        case 3600..<86_400: return plural(seconds / 3600, "hour") + " ago"
        default: return plural(seconds / 86_400, "day") + " ago"
        }
    }

    /// `Canon EOS R5` (the maker left out where the model repeats it, as most cameras write it).
    static func camera(make: String?, model: String?) -> String {
        guard let model else { return make ?? "" }
        guard let make, !model.lowercased().hasPrefix(make.lowercased().split(separator: " ").first ?? "") else {
            return model
        }
        return make + " " + model
    }

    /// `1/250 s` for short exposures, `2.5 s` for long ones.
    static func exposure(_ seconds: Double) -> String {
        seconds >= 0.3 ? NumberText.compact((seconds * 10).rounded() / 10) + " s" : "1/\(Int((1 / seconds).rounded())) s"
    }

    /// The lines `show` prints of how an asset was made: exposure, lens, artist, copyright, direction, frame rate.
    static func captureLines(_ details: CaptureDetails) -> [(String, String)] {
        var lines: [(String, String)] = []
        var exposure: [String] = []
        if let f = details.fNumber { exposure.append("f/" + NumberText.compact((f * 10).rounded() / 10)) }
        if let time = details.exposureTime { exposure.append(Self.exposure(time)) }
        if let iso = details.iso { exposure.append("ISO \(iso)") }
        if let focal = details.focalLength {
            var text = NumberText.compact((focal * 10).rounded() / 10) + " mm"
            if let equivalent = details.focalLength35mm { text += " (" + NumberText.compact(equivalent.rounded()) + " mm in 35 mm film)" }
            exposure.append(text)
        }
        if let fired = details.flashFired { exposure.append(fired ? "flash fired" : "no flash") }
        if !exposure.isEmpty { lines.append(("Exposure", exposure.joined(separator: ", "))) }
        if details.lensMake != nil || details.lensModel != nil {
            lines.append(("Lens", camera(make: details.lensMake, model: details.lensModel)))
        }
        if let artist = details.artist { lines.append(("Artist", artist)) }
        if let copyright = details.copyright { lines.append(("Copyright", copyright)) }
        if let direction = details.imageDirection { lines.append(("Direction", NumberText.fixed(direction, places: 0) + "°")) }
        if let rate = details.frameRate { lines.append(("Frame rate", NumberText.compact((rate * 100).rounded() / 100) + " fps")) }
        return lines
    }
}
