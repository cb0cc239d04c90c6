/// The capture date that cameras, phones and messengers write into file names, as a floating local time.
///
/// Recognised (anywhere in the name, the date not preceded by a digit): `YYYYMMDD_HHMMSS` and `YYYYMMDD-HHMMSS`
/// (`IMG_20230101_120000.jpg`, `VID_…`, `Screenshot_20230101-120000.png`, Samsung's `20230101_120000.jpg`), with up
/// to three digits of milliseconds after the seconds (`PXL_20230101_120000123.jpg`); `YYYY-MM-DD at HH.MM.SS` and
/// `YYYY-MM-DD HH.MM.SS` (macOS screenshots, `WhatsApp Image 2023-01-01 at 12.00.00.jpeg`, with `.`, `:` or `-`
/// between the time's parts); and a date alone (`IMG-20230101-WA0001.jpg`, `2023-01-01 Paris.jpg`), read as midnight.
/// Years 1900–2099; impossible dates and times are no date.
public enum FileNameDate {
    /// The date in `fileName` as seconds since 1970, the local wall-clock time read as if it were UTC; nil when the
    /// name holds none.
    public static func localSeconds(in fileName: String) -> Int64? {
        let u = Array(fileName.utf8.prefix(255))
        var i = 0
        while i + 8 <= u.count {
            if isDigit(u, i), i == 0 || !isDigit(u, i - 1), let found = date(in: u, at: i) { return found }
            i += 1
        }
        return nil
    }

    /// A date (and maybe a time) starting at `i`.
    private static func date(in u: [UInt8], at i: Int) -> Int64? {
        var p = i
        guard let year = number(u, &p, 4) else { return nil }
        let dashed = p < u.count && u[p] == UInt8(ascii: "-")
        if dashed { p += 1 }
        guard let month = number(u, &p, 2) else { return nil }
        if dashed {
            guard p < u.count, u[p] == UInt8(ascii: "-") else { return nil }
            p += 1
        }
        guard let day = number(u, &p, 2), !isDigit(u, p), (1900...2099).contains(year), (1...12).contains(month),
            (1...daysIn(month: month, year: year)).contains(day)
        else { return nil }
        let midnight = Int64(DateParsing.daysFromCivil(year: year, month: month, day: day)) * 86_400
        return midnight + (time(in: u, after: p, dashed: dashed) ?? 0)
    }

    /// A time after the date: `_HHMMSS`, `-HHMMSS` (undashed dates), ` at HH.MM.SS`, ` HH.MM.SS`, `_HH-MM-SS`
    /// (dashed dates).
    private static func time(in u: [UInt8], after end: Int, dashed: Bool) -> Int64? {
        var p = end
        if dashed, u[p...].starts(with: " at ".utf8) {
            p += 4
        } else if p < u.count, [UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: " "), UInt8(ascii: "T")]
            .contains(u[p])
        {
            p += 1
        } else {
            return nil
        }
        guard let hour = number(u, &p, 2) else { return nil }
        var separator: UInt8?
        if dashed, p < u.count, [UInt8(ascii: "."), UInt8(ascii: ":"), UInt8(ascii: "-")].contains(u[p]) {
            separator = u[p]
            p += 1
        }
        guard let minute = number(u, &p, 2) else { return nil }
        if let separator {
            guard p < u.count, u[p] == separator else { return nil }
            p += 1
        } else if dashed {
            return nil
        }
        guard let second = number(u, &p, 2), hour < 24, minute < 60, second < 60 else { return nil }
        var fraction = 0
        while isDigit(u, p) && fraction < 3 {
            p += 1
            fraction += 1
        }
        if isDigit(u, p) || (fraction > 0 && fraction < 3) { return nil }
        return Int64(hour * 3600 + minute * 60 + second)
    }

    private static func isDigit(_ u: [UInt8], _ i: Int) -> Bool {
        i >= 0 && i < u.count && u[i] >= 0x30 && u[i] <= 0x39
    }

    private static func number(_ u: [UInt8], _ p: inout Int, _ count: Int) -> Int? {
        guard p + count <= u.count else { return nil }
        var value = 0
        for j in p..<(p + count) {
            guard isDigit(u, j) else { return nil }
            value = value * 10 + Int(u[j] - 0x30)
        }
        p += count
        return value
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }
}
