import PhotodropSystem
import FoundationEssentials
import PhotoCatalog

import PhotodropTelemetry

/// An asset's capture date as people read it: the local time where it was taken, with its UTC offset when known.
///
/// Three cases: a known zone (`2023-06-01T09:00:00+09:00`), a floating local time whose zone is unknown
/// (`2023-06-01T09:00:00`, no offset), and an instant whose local zone is unknown (a GPS or movie-header time, a file's
/// mtime), written in UTC with RFC 3339's "unknown local offset" `-00:00` (`2023-06-01T00:00:00-00:00`).
public struct CaptureTime {
    /// The instant; for a floating time, the wall-clock time read as if it were UTC.
    public var date: Date
    /// Seconds east of UTC.
    public var offset: Int?
    public var isFloating: Bool

    public init?(_ asset: Asset) {
        guard let date = asset.creationDate else { return nil }
        self.init(date: date, offset: asset.creationTimeZoneOffset, isFloating: asset.isCreationDateFloating)
    }

    public init(date: Date, offset: Int?, isFloating: Bool) {
        self.date = date
        self.offset = offset
        self.isFloating = isFloating && offset == nil
    }

    /// `YYYY-MM-DDTHH:MM:SS` of the local wall-clock time (UTC when the zone is unknown).
    private var wallClock: String {
        let seconds = Int64(date.timeIntervalSince1970.rounded(.down)) + Int64(offset ?? 0)
        return String(UTCTimestamp(seconds: seconds, nanoseconds: 0).iso8601.prefix(19))
    }

    /// The local calendar day of the capture, `YYYY-MM-DD` (UTC's when the zone is unknown): what a gallery groups by.
    public var day: String { String(wallClock.prefix(10)) }

    /// `+09:00`, `-05:30`, `+00:00`.
    public static func offsetText(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return sign + NumberText.decimal(minutes / 60, width: 2) + ":" + NumberText.decimal(minutes % 60, width: 2)
    }

    /// The JSON `localCreationDate`.
    public var localISO8601: String {
        if let offset { return wallClock + Self.offsetText(offset) }
        return isFloating ? wallClock : wallClock + "-00:00"
    }

    /// `2023-06-01 09:00:00 +09:00`, `2023-06-01 09:00:00 local time (zone unknown)`, `2023-06-01 00:00:00 UTC`.
    public var long: String {
        let text = wallClock.replacing("T", with: " ")
        if let offset { return text + " " + Self.offsetText(offset) }
        return text + (isFloating ? " local time (zone unknown)" : " UTC")
    }

    /// `2023-06-01 09:00 +09:00`, `2023-06-01 09:00 local`, `2023-06-01 00:00 UTC`: 23 characters, for tables.
    public var short: String {
        let text = String(wallClock.replacing("T", with: " ").prefix(16))
        if let offset { return text + " " + Self.offsetText(offset) }
        return text + (isFloating ? " local " : " UTC   ")
    }
}
