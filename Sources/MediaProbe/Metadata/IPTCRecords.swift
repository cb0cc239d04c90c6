/// What the IPTC-IIM records of a file say (the "IPTC" block newsroom tools and older editors write: inside a
/// JPEG's Photoshop APP13 resources, or a TIFF's tag 0x83BB): title, caption, keywords, creator, copyright and the
/// creation date.
///
/// Text is UTF-8 when the envelope's coded character set (1:90) says so (`ESC % G`) or when it is valid UTF-8;
/// otherwise Latin-1, which is what IIM writers without a character set used.
struct IPTCRecords: Equatable {
    /// 2:05 Object Name.
    var title: String?
    /// 2:120 Caption/Abstract.
    var caption: String?
    /// 2:25 Keywords, in order, without repeats.
    var keywords: [String] = []
    /// 2:80 By-line (the first one).
    var byline: String?
    /// 2:116 Copyright Notice.
    var copyright: String?
    /// 2:55 Date Created with 2:60 Time Created: seconds since 1970 (the instant when the time carries its offset,
    /// else the local time read as if it were UTC), and the offset.
    var created: (seconds: Double, offset: Int?)?

    static func == (lhs: IPTCRecords, rhs: IPTCRecords) -> Bool {
        lhs.title == rhs.title && lhs.caption == rhs.caption && lhs.keywords == rhs.keywords
            && lhs.byline == rhs.byline && lhs.copyright == rhs.copyright
            && lhs.created?.seconds == rhs.created?.seconds && lhs.created?.offset == rhs.created?.offset
    }

    /// The IPTC records inside a Photoshop APP13 payload (`Photoshop 3.0\0`, then `8BIM` image resources; resource
    /// 0x0404 holds them); nil when there are none.
    static func parse(photoshopResources bytes: [UInt8]) -> IPTCRecords? {
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
            if id == 0x0404 { return parse(records: bytes[data..<(data + size)]) }
            i = data + size + (size % 2)
        }
        return nil
    }

    /// Parses a run of IIM data sets (`0x1C`, record, data set, 16-bit size, value); stops quietly at the first
    /// malformed one. Nil when nothing photodrop reads was found.
    static func parse(records: ArraySlice<UInt8>) -> IPTCRecords? {
        var values: [(record: UInt8, dataset: UInt8, bytes: ArraySlice<UInt8>)] = []
        var i = records.startIndex
        while i + 5 <= records.endIndex, records[i] == 0x1C {
            let size = Int(records[i + 3]) << 8 | Int(records[i + 4])
            // An extended data set (size's top bit) is never one of the short text fields read here.
            guard size < 0x8000, i + 5 + size <= records.endIndex else { break }
            values.append((records[i + 1], records[i + 2], records[(i + 5)..<(i + 5 + size)]))
            i += 5 + size
        }
        let utf8Declared = values.contains { $0.record == 1 && $0.dataset == 90 && $0.bytes.elementsEqual([0x1B, 0x25, 0x47]) }
        func text(_ bytes: ArraySlice<UInt8>) -> String? {
            let trimmed = bytes.prefix { $0 != 0 }
            let decoded: String
            if utf8Declared || String(validating: trimmed, as: UTF8.self) != nil {
                decoded = String(decoding: trimmed, as: UTF8.self)
            } else {
                decoded = String(String.UnicodeScalarView(trimmed.map { Unicode.Scalar($0) }))
            }
            let clean = decoded.trimmingSpaces()
            return clean.isEmpty ? nil : clean
        }
        var result = IPTCRecords()
        var date: String?
        var time: String?
        var seen = Set<String>()
        for value in values where value.record == 2 {
            switch value.dataset {
            case 5: if result.title == nil { result.title = text(value.bytes) }
            case 120: if result.caption == nil { result.caption = text(value.bytes) }
            case 25:
                if let keyword = text(value.bytes), seen.insert(keyword).inserted { result.keywords.append(keyword) }
            case 80: if result.byline == nil { result.byline = text(value.bytes) }
            case 116: if result.copyright == nil { result.copyright = text(value.bytes) }
            case 55: if date == nil { date = text(value.bytes) }
            case 60: if time == nil { time = text(value.bytes) }
            default: break
            }
        }
        result.created = creationDate(date: date, time: time)
        let empty = IPTCRecords()
        return result == empty ? nil : result
    }

    /// `CCYYMMDD` with `HHMMSS±HHMM` (the offset may be missing; a time that is not exactly that is left out).
    private static func creationDate(date: String?, time: String?) -> (seconds: Double, offset: Int?)? {
        guard let date, date.utf8.count == 8, date.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        let day = "\(date.prefix(4))-\(date.dropFirst(4).prefix(2))-\(date.suffix(2))"
        guard let time, time.utf8.count == 6 || time.utf8.count == 11,
            time.utf8.prefix(6).allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
        else {
            return DateParsing.iso8601(day + "T00:00:00")
        }
        var text = "\(day)T\(time.prefix(2)):\(time.dropFirst(2).prefix(2)):\(time.dropFirst(4).prefix(2))"
        if time.utf8.count == 11 {
            let zone = time.dropFirst(6)
            guard zone.first == "+" || zone.first == "-", zone.dropFirst().utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 })
            else { return nil }
            text += "\(zone.prefix(3)):\(zone.suffix(2))"
        }
        return DateParsing.iso8601(text)
    }
}
