import PhotodropSystem

/// A wall-clock instant formatted as ISO 8601 in UTC with milliseconds (`2025-06-01T12:34:56.789Z`).
///
/// Formatting is plain integer arithmetic (Howard Hinnant's days-to-civil algorithm): no `DateFormatter`, no
/// locale, no time zone database, no allocation beyond the result; cheap enough for every log line.
public struct UTCTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Seconds since 1970-01-01T00:00:00Z.
    public var seconds: Int64
    /// Nanoseconds within the second, 0..<1_000_000_000.
    public var nanoseconds: Int32

    public init(seconds: Int64, nanoseconds: Int32 = 0) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    /// The current time from `CLOCK_REALTIME`.
    public static func now() -> UTCTimestamp {
        let time = SystemClock.realTime()
        return UTCTimestamp(seconds: time.seconds, nanoseconds: Int32(time.nanoseconds))
    }

    public static func < (lhs: UTCTimestamp, rhs: UTCTimestamp) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }

    /// ISO 8601, UTC, millisecond precision.
    public var description: String { iso8601 }

    /// ISO 8601, UTC, millisecond precision: `YYYY-MM-DDTHH:MM:SS.mmmZ`.
    public var iso8601: String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = Int(seconds - days * 86_400)
        let (year, month, day) = UTCTimestamp.civil(fromDays: days)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        func append(_ value: Int, width: Int) {
            var digits = [UInt8](repeating: UInt8(ascii: "0"), count: width)
            var rest = value
            var index = width - 1
            while index >= 0 {
                digits[index] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
                index -= 1
            }
            bytes.append(contentsOf: digits)
        }
        if year < 0 || year > 9999 {
            // Outside ISO 8601's four-digit years: still unambiguous, just longer.
            bytes.append(contentsOf: Array(String(year).utf8))
        } else {
            append(Int(year), width: 4)
        }
        bytes.append(UInt8(ascii: "-"))
        append(month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        append(day, width: 2)
        bytes.append(UInt8(ascii: "T"))
        append(secondOfDay / 3600, width: 2)
        bytes.append(UInt8(ascii: ":"))
        append(secondOfDay / 60 % 60, width: 2)
        bytes.append(UInt8(ascii: ":"))
        append(secondOfDay % 60, width: 2)
        bytes.append(UInt8(ascii: "."))
        append(Int(nanoseconds / 1_000_000), width: 3)
        bytes.append(UInt8(ascii: "Z"))
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Year, month (1–12) and day (1–31) of a day count since 1970-01-01 in the proleptic Gregorian calendar.
    static func civil(fromDays days: Int64) -> (year: Int64, month: Int, day: Int) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthPrime = (5 * dayOfYear + 2) / 153
        let day = Int(dayOfYear - (153 * monthPrime + 2) / 5 + 1)
        let month = Int(monthPrime < 10 ? monthPrime + 3 : monthPrime - 9)
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    /// Reads back what ``iso8601`` writes (`YYYY-MM-DDTHH:MM:SS.mmmZ`, four-digit years); nil for anything else.
    public init?(iso8601 text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 24, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"),
            bytes[10] == UInt8(ascii: "T"), bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            bytes[19] == UInt8(ascii: "."), bytes[23] == UInt8(ascii: "Z")
        else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                guard bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(bytes[index] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10),
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19),
            let millisecond = number(20..<23), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        // Days from civil (the inverse of `civil(fromDays:)`).
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let monthPrime = Int64(month > 2 ? month - 3 : month + 9)
        let dayOfYear = (153 * monthPrime + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        self.init(
            seconds: days * 86_400 + Int64(hour * 3600 + minute * 60 + second),
            nanoseconds: Int32(millisecond * 1_000_000))
    }
}
