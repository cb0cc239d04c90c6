#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UTCTimestamp(seconds: Int64(time.tv_sec), nanoseconds: Int32(time.tv_nsec))
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
}
