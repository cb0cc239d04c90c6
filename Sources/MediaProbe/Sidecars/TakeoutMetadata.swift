import Foundation

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
        let object: [String: Any]
        do {
            guard let parsed = try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any] else {
                throw ParseFailure(description: "not a JSON object")
            }
            object = parsed
        } catch let failure as ParseFailure {
            throw failure
        } catch {
            throw ParseFailure(description: "not valid JSON")
        }
        var result = TakeoutMetadata()
        if let taken = object["photoTakenTime"] as? [String: Any], let seconds = number(taken["timestamp"]),
            seconds > 0, seconds < 7_258_118_400
        {
            result.photoTakenTime = Date(timeIntervalSince1970: seconds)
        }
        for key in ["geoData", "geoDataExif"] where result.location == nil {
            guard let geo = object[key] as? [String: Any], let latitude = number(geo["latitude"]),
                let longitude = number(geo["longitude"]), latitude != 0 || longitude != 0, abs(latitude) <= 90,
                abs(longitude) <= 180
            else { continue }
            result.location = MediaMetadata.Location(
                latitude: latitude, longitude: longitude, altitude: number(geo["altitude"]).flatMap { $0 == 0 ? nil : $0 })
        }
        result.isFavorite = object["favorited"] as? Bool
        if let text = object["description"] as? String, !text.isEmpty { result.description = text }
        if let text = object["title"] as? String, !text.isEmpty { result.title = text }
        return result
    }

    /// A number written as a JSON number or as a decimal string (Takeout's timestamps are strings).
    private static func number(_ value: Any?) -> Double? {
        if let number = value as? NSNumber, !(value is Bool) { return number.doubleValue.isFinite ? number.doubleValue : nil }
        if let text = value as? String, let number = Double(text), number.isFinite { return number }
        return nil
    }
}
