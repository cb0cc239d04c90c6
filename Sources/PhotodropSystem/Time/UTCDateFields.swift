import Glibc

/// A moment in UTC by its calendar fields (the proleptic Gregorian calendar, as `gmtime` and `timegm` count).
public struct UTCDateFields: Sendable, Hashable {
    public var year: Int
    /// 1–12.
    public var month: Int
    public var day: Int
    public var hour: Int
    public var minute: Int
    public var second: Int

    public init(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) {
        self.year = year
        self.month = month
        self.day = day
        self.hour = hour
        self.minute = minute
        self.second = second
    }

    /// The fields of `seconds` since 1970 (`gmtime_r`).
    public init(secondsSince1970 seconds: Int64) {
        var time = time_t(seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        self.init(
            year: Int(parts.tm_year) + 1900, month: Int(parts.tm_mon) + 1, day: Int(parts.tm_mday),
            hour: Int(parts.tm_hour), minute: Int(parts.tm_min), second: Int(parts.tm_sec))
    }

    /// `2026-12-07T05-16-00Z`: ISO 8601 with `timeSeparator` between hours, minutes and seconds (a file name
    /// cannot hold the colons).
    public func stamp(timeSeparator: String) -> String {
        func two(_ value: Int) -> String { NumberText.decimal(value, width: 2) }
        return "\(NumberText.decimal(year, width: 4))-\(two(month))-\(two(day))T\(two(hour))\(timeSeparator)"
            + "\(two(minute))\(timeSeparator)\(two(second))Z"
    }

    /// Seconds since 1970 (`timegm`; fields out of range are carried over, as C does).
    public var secondsSince1970: Int64 {
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        return Int64(timegm(&parts))
    }
}
