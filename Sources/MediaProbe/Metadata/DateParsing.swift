/// Date and time text as EXIF and QuickTime write it, turned into seconds without Foundation formatters (which are
/// slow and locale-dependent).
enum DateParsing {
    /// Days from 1970-01-01 to the given proleptic Gregorian date (Howard Hinnant's `days_from_civil`).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = (month + 9) % 12
        let doy = (153 * mp + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// Parses fixed-width decimal digits; `nil` if any is not a digit (spaces are not accepted).
    private static func number(_ utf8: [UInt8], _ start: Int, _ count: Int) -> Int? {
        guard start >= 0, start + count <= utf8.count else { return nil }
        var value = 0
        for i in start..<start + count {
            let c = utf8[i]
            guard c >= 0x30, c <= 0x39 else { return nil }
            value = value * 10 + Int(c - 0x30)
        }
        return value
    }

    private static func validated(_ y: Int, _ mo: Int, _ d: Int, _ h: Int, _ mi: Int, _ s: Int) -> Int64? {
        guard (1800...9999).contains(y), (1...12).contains(mo), (1...31).contains(d), (0...23).contains(h),
            (0...59).contains(mi), (0...60).contains(s)
        else { return nil }
        let days = daysFromCivil(year: y, month: mo, day: d)
        return Int64(days) * 86_400 + Int64(h * 3600 + mi * 60 + s)
    }

    /// `YYYY:MM:DD HH:MM:SS` (also with `-` in the date or `T` between) read as seconds since 1970 as if it were UTC;
    /// `nil` for blanks, zeros, impossible values and text that is not exactly that (a value with a character too
    /// many is damaged, and reading its first 19 would date the photo wrongly).
    static func exifLocalSeconds(_ text: String) -> Int64? {
        let u = Array(text.utf8.prefix(32))
        guard u.count == 19, u[4] == 0x3A || u[4] == 0x2D, u[7] == u[4], u[10] == 0x20 || u[10] == 0x54,
            u[13] == 0x3A, u[16] == 0x3A,
            let y = number(u, 0, 4), let mo = number(u, 5, 2), let d = number(u, 8, 2), let h = number(u, 11, 2),
            let mi = number(u, 14, 2), let s = number(u, 17, 2)
        else { return nil }
        return validated(y, mo, d, h, mi, s)
    }

    /// `YYYY:MM:DD` (GPS date stamp) as seconds since 1970 at 00:00 UTC; nil unless the text is exactly that
    /// (`2014:09:259` is not the 25th).
    static func exifDaySeconds(_ text: String) -> Int64? {
        let u = Array(text.utf8.prefix(16))
        guard u.count == 10, u[4] == 0x3A || u[4] == 0x2D, u[7] == u[4], let y = number(u, 0, 4),
            let mo = number(u, 5, 2), let d = number(u, 8, 2)
        else { return nil }
        return validated(y, mo, d, 0, 0, 0)
    }

    /// `+HH:MM`, `-HH:MM`, `+HHMM` or `Z` as seconds east of UTC.
    static func offsetSeconds(_ text: String) -> Int? {
        let u = Array(text.utf8.prefix(8)).filter { $0 != 0x20 && $0 != 0 }
        if u == [0x5A] { return 0 }
        guard u.count == 6 || u.count == 5, u[0] == 0x2B || u[0] == 0x2D, let h = number(u, 1, 2) else { return nil }
        let minuteStart = u.count == 6 ? 4 : 3
        if u.count == 6 { guard u[3] == 0x3A else { return nil } }
        guard let m = number(u, minuteStart, 2), h <= 14, m < 60 else { return nil }
        let seconds = h * 3600 + m * 60
        return u[0] == 0x2D ? -seconds : seconds
    }

    /// EXIF `SubSecTime*` digits as a fraction of a second.
    static func subSecondFraction(_ text: String) -> Double? {
        let digits = Array(text.utf8.prefix(9).filter { $0 != 0x20 && $0 != 0 })
        guard !digits.isEmpty, let value = number(digits, 0, digits.count) else { return nil }
        var scale = 1.0
        for _ in digits { scale *= 10 }
        return Double(value) / scale
    }

    /// ISO 8601 as QuickTime metadata writes it: `2023-05-09T12:41:46+0100`, `…+01:00`, `…Z`, with optional
    /// fractional seconds; a date without a time zone is read as UTC with no offset.
    static func iso8601(_ text: String) -> (seconds: Double, offset: Int?)? {
        let u = Array(text.utf8.prefix(64))
        guard u.count >= 19, u[4] == 0x2D, u[7] == 0x2D, u[10] == 0x54 || u[10] == 0x20, u[13] == 0x3A,
            u[16] == 0x3A,
            let y = number(u, 0, 4), let mo = number(u, 5, 2), let d = number(u, 8, 2), let h = number(u, 11, 2),
            let mi = number(u, 14, 2), let s = number(u, 17, 2), let local = validated(y, mo, d, h, mi, s)
        else { return nil }
        var i = 19
        var fraction = 0.0
        if i < u.count, u[i] == 0x2E || u[i] == 0x2C {
            i += 1
            var scale = 0.1
            while i < u.count, u[i] >= 0x30, u[i] <= 0x39 {
                fraction += Double(u[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
        }
        var offset: Int?
        if i < u.count {
            guard let parsed = offsetSeconds(String(decoding: u[i...], as: UTF8.self)) else { return nil }
            offset = parsed
        }
        return (Double(local - Int64(offset ?? 0)) + fraction, offset)
    }

    /// ISO 8601 as XMP allows it: seconds and the time may be left out (`2023-06-01T09:00+09:00`, `2023-06-01`).
    static func iso8601Loosely(_ text: String) -> (seconds: Double, offset: Int?)? {
        if let full = iso8601(text) { return full }
        let u = Array(text.utf8)
        if u.count == 10 { return iso8601(text + "T00:00:00") }
        if u.count >= 16, u[10] == UInt8(ascii: "T"), u[13] == UInt8(ascii: ":"),
            u.count == 16 || u[16] != UInt8(ascii: ":")
        {
            return iso8601(String(text.prefix(16)) + ":00" + text.dropFirst(16))
        }
        return nil
    }
}
