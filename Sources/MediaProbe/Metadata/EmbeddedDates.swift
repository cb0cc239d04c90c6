import Foundation

/// Capture dates that photo editors and news workflows write besides EXIF: XMP packets (an APP1 segment, or a box) and
/// IPTC-IIM records (inside Photoshop's APP13 image resources).
enum EmbeddedDates {
    /// The XMP properties that carry the capture date, best first.
    static let xmpProperties = ["exif:DateTimeOriginal", "photoshop:DateCreated", "xmp:CreateDate"]

    /// The first capture date in an XMP packet (as an attribute `name="…"` or an element `<name>…</name>`), with its
    /// UTC offset when the value has one; nil when none parses.
    static func xmp(_ packet: [UInt8]) -> (seconds: Double, offset: Int?)? {
        xmpValue(packet, properties: xmpProperties)
    }

    /// The packet's `exif:GPSDateTime`, UTC by the XMP specification (read as UTC when it names no zone).
    static func xmpGPSDate(_ packet: [UInt8]) -> Double? {
        xmpValue(packet, properties: ["exif:GPSDateTime"])?.seconds
    }

    private static func xmpValue(_ packet: [UInt8], properties: [String]) -> (seconds: Double, offset: Int?)? {
        let text = String(decoding: packet.prefix(1 << 20), as: UTF8.self)
        for property in properties {
            for opener in [property + "=\"", property + "='", "<" + property + ">"] {
                guard let start = text.range(of: opener)?.upperBound else { continue }
                let value = text[start...].prefix { $0 != "\"" && $0 != "'" && $0 != "<" }
                if let date = iso8601Loosely(value.trimmingCharacters(in: .whitespaces)) { return date }
            }
        }
        return nil
    }

    /// ISO 8601 as XMP allows it: seconds and the time may be left out (`2023-06-01T09:00+09:00`, `2023-06-01`).
    static func iso8601Loosely(_ text: String) -> (seconds: Double, offset: Int?)? {
        if let full = DateParsing.iso8601(text) { return full }
        let u = Array(text.utf8)
        if u.count == 10 { return DateParsing.iso8601(text + "T00:00:00") }
        if u.count >= 16, u[10] == UInt8(ascii: "T"), u[13] == UInt8(ascii: ":"),
            u.count == 16 || u[16] != UInt8(ascii: ":")
        {
            return DateParsing.iso8601(String(text.prefix(16)) + ":00" + text.dropFirst(16))
        }
        return nil
    }

    /// IPTC `DateCreated` (2:55, `CCYYMMDD`) with `TimeCreated` (2:60, `HHMMSS±HHMM`) from the image resources of a
    /// Photoshop APP13 payload (`Photoshop 3.0\0`, then `8BIM` blocks; resource 0x0404 holds the IPTC records).
    static func iptc(photoshopResources bytes: [UInt8]) -> (seconds: Double, offset: Int?)? {
        let header = Array("Photoshop 3.0".utf8) + [0]
        guard bytes.starts(with: header) else { return nil }
        var i = header.count
        while i + 12 <= bytes.count, bytes[i..<(i + 4)].elementsEqual("8BIM".utf8) {
            let id = Int(bytes[i + 4]) << 8 | Int(bytes[i + 5])
            let nameLength = Int(bytes[i + 6])
            var j = i + 6 + 1 + nameLength
            if (1 + nameLength) % 2 == 1 { j += 1 }
            guard j + 4 <= bytes.count else { return nil }
            let size = Int(ByteReader.load32(bytes, j, false))
            let data = j + 4
            guard size >= 0, data + size <= bytes.count else { return nil }
            if id == 0x0404 { return iptcRecords(bytes[data..<(data + size)]) }
            i = data + size + (size % 2)
        }
        return nil
    }

    private static func iptcRecords(_ records: ArraySlice<UInt8>) -> (seconds: Double, offset: Int?)? {
        var date: String?
        var time: String?
        var i = records.startIndex
        while i + 5 <= records.endIndex, records[i] == 0x1C {
            let record = records[i + 1]
            let dataset = records[i + 2]
            let size = Int(records[i + 3]) << 8 | Int(records[i + 4])
            guard size < 0x8000, i + 5 + size <= records.endIndex else { return nil }
            let value = String(decoding: records[(i + 5)..<(i + 5 + size)], as: UTF8.self)
            if record == 2 && dataset == 55 { date = value }
            if record == 2 && dataset == 60 { time = value }
            i += 5 + size
        }
        guard let date, date.utf8.count == 8, date.allSatisfy(\.isNumber) else { return nil }
        let day = "\(date.prefix(4))-\(date.dropFirst(4).prefix(2))-\(date.suffix(2))"
        guard let time, time.utf8.count >= 6, time.prefix(6).allSatisfy(\.isNumber) else {
            return DateParsing.iso8601(day + "T00:00:00")
        }
        var text = "\(day)T\(time.prefix(2)):\(time.dropFirst(2).prefix(2)):\(time.dropFirst(4).prefix(2))"
        let zone = time.dropFirst(6)
        if zone.utf8.count == 5, zone.first == "+" || zone.first == "-", zone.dropFirst().allSatisfy(\.isNumber) {
            text += "\(zone.prefix(3)):\(zone.suffix(2))"
        }
        return DateParsing.iso8601(text)
    }
}
