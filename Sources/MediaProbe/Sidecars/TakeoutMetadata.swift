import FoundationEssentials
import PhotodropSystem

/// What a Google Takeout JSON sidecar says about its photo (`photoTakenTime`, `geoData`, `favorited`,
/// `description`, `title`), or about its album (an album's `metadata.json`: `title`, `description`).
public struct TakeoutMetadata: Sendable, Equatable {
    /// `photoTakenTime.timestamp`: a UTC instant.
    public var photoTakenTime: Date?
    /// `geoData` (else `geoDataExif`); Takeout writes 0, 0 for "no position", which is left out.
    public var location: MediaMetadata.Location?
    /// `favorited`.
    public var isFavorite: Bool?
    /// `description`, when not empty.
    public var description: String?
    /// `title` (for a photo, usually its original file name; for an album, its name).
    public var title: String?

    public init() {}

    /// Why a JSON file could not be read as Takeout metadata.
    public struct ParseFailure: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    /// Real Takeout sidecars are a few kilobytes.
    public static let maximumBytes = 4 << 20

    /// Parses a Takeout JSON document.
    ///
    /// - Throws: ``ParseFailure`` when it is not a JSON object of at most ``maximumBytes``.
    public static func parse(_ bytes: [UInt8]) throws(ParseFailure) -> TakeoutMetadata {
        guard bytes.count <= maximumBytes else {
            throw ParseFailure(description: "larger than \(maximumBytes >> 20) MB; not a Takeout sidecar")
        }
        let parsed: JSONValue
        do { parsed = try JSONParser.parse(bytes) } catch { throw ParseFailure(description: "not valid JSON") }
        guard let object = members(parsed) else { throw ParseFailure(description: "not a JSON object") }
        var result = TakeoutMetadata()
        if let taken = object["photoTakenTime"].flatMap(members), let seconds = number(taken["timestamp"]),
            seconds > 0, seconds < 7_258_118_400
        {
            result.photoTakenTime = Date(timeIntervalSince1970: seconds)
        }
        for key in ["geoData", "geoDataExif"] where result.location == nil {
            guard let geo = object[key].flatMap(members), let latitude = number(geo["latitude"]),
                let longitude = number(geo["longitude"]), latitude != 0 || longitude != 0, abs(latitude) <= 90,
                abs(longitude) <= 180
            else { continue }
            result.location = MediaMetadata.Location(
                latitude: latitude, longitude: longitude, altitude: number(geo["altitude"]).flatMap { $0 == 0 ? nil : $0 })
        }
        if case .bool(let favourite)? = object["favorited"]?.kind { result.isFavorite = favourite }
        if let text = string(object["description"]), !text.isEmpty { result.description = text }
        if let text = string(object["title"]), !text.isEmpty { result.title = text }
        return result
    }

    /// An object's members by key (the last of a repeated key wins, as in most JSON readers); nil for another value.
    private static func members(_ value: JSONValue) -> [String: JSONValue]? {
        guard case .object(let list) = value.kind else { return nil }
        var members: [String: JSONValue] = [:]
        for member in list { members[member.key] = member.value }
        return members
    }

    private static func string(_ value: JSONValue?) -> String? {
        if case .string(let text)? = value?.kind { return text }
        return nil
    }

    /// A number written as a JSON number or as a decimal string (Takeout's timestamps are strings).
    private static func number(_ value: JSONValue?) -> Double? {
        switch value?.kind {
        case .number(let text)?, .string(let text)?:
            guard let number = Double(text), number.isFinite else { return nil }
            return number
        default: return nil
        }
    }
}
