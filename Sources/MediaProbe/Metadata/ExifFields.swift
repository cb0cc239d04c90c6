import FoundationEssentials

/// The EXIF/TIFF tags photodrop cares about, as read from one TIFF stream; each is `nil` when absent or malformed.
struct ExifFields: Equatable {
    var make: String?
    var model: String?
    var orientation: Int?
    var dateTime: String?
    var dateTimeOriginal: String?
    var dateTimeDigitized: String?
    var offsetTime: String?
    var offsetTimeOriginal: String?
    var offsetTimeDigitized: String?
    var subSecTime: String?
    var subSecTimeOriginal: String?
    var subSecTimeDigitized: String?
    var pixelXDimension: Int?
    var pixelYDimension: Int?
    var gpsLatitudeRef: String?
    var gpsLatitude: [Double]?
    var gpsLongitudeRef: String?
    var gpsLongitude: [Double]?
    var gpsAltitudeRef: Int?
    var gpsAltitude: Double?
    var gpsTimeStamp: [Double]?
    var gpsDateStamp: String?
    /// The Apple MakerNote's `ContentIdentifier` (Live Photo pairing).
    var contentIdentifier: String?
    /// IFD0 `ImageDescription`, `Artist`, `Copyright` and Microsoft's `Rating`, `XPTitle`, `XPKeywords`.
    var imageDescription: String?
    var artist: String?
    var copyright: String?
    var rating: Int?
    var windowsTitle: String?
    var windowsKeywords: String?
    /// How the photo was taken (EXIF directory): `ExposureTime` (seconds), `FNumber`, `ISOSpeedRatings` (or
    /// `PhotographicSensitivity`), `Flash`, `FocalLength`, `FocalLengthIn35mmFilm`, `LensMake`, `LensModel`.
    var exposureTime: Double?
    var fNumber: Double?
    var iso: Int?
    var flash: Int?
    var focalLength: Double?
    var focalLength35mm: Int?
    var lensMake: String?
    var lensModel: String?
    /// `GPSImgDirection` (degrees) and `GPSImgDirectionRef` (`T` true north, `M` magnetic north).
    var gpsImgDirection: Double?
    var gpsImgDirectionRef: String?
    /// A TIFF's own XMP packet (tag 700) and IPTC records (tag 0x83BB), in IFD0 of a TIFF or TIFF-based RAW file.
    var xmpPacket: [UInt8]?
    var iptcRecords: [UInt8]?

    /// Offers EXIF's three dates to `metadata`, each with its own `OffsetTime*` (else IFD0's `OffsetTime`) and
    /// `SubSecTime*`: `DateTimeOriginal` as `exif`, `DateTimeDigitized` as `exifCreateDate`, IFD0 `DateTime` as
    /// `exifModifyDate`; and the GPS time stamp.
    func offerDates(to metadata: inout MediaMetadata) {
        if let utc = gpsInstant() { metadata.recordGPSDate(seconds: utc) }
        let candidates: [(String?, String?, String?, MediaMetadata.CaptureDateSource)] = [
            (dateTimeOriginal, offsetTimeOriginal ?? offsetTime, subSecTimeOriginal, .exif),
            (dateTimeDigitized, offsetTimeDigitized ?? offsetTime, subSecTimeDigitized, .exifCreateDate),
            (dateTime, offsetTime, subSecTime, .exifModifyDate),
        ]
        for (text, offsetText, subSec, source) in candidates {
            guard let text, let local = DateParsing.exifLocalSeconds(text) else { continue }
            let fraction = subSec.flatMap(DateParsing.subSecondFraction) ?? 0
            let offset = offsetText.flatMap(DateParsing.offsetSeconds)
            metadata.offerCaptureDate(
                seconds: Double(local - Int64(offset ?? 0)) + fraction, offset: offset, isLocalTime: true,
                source: source)
        }
    }

    /// The GPS date and time stamp (`GPSDateStamp` + `GPSTimeStamp`), UTC by the standard, as seconds since 1970;
    /// nil when either is missing or out of range.
    func gpsInstant() -> Double? {
        guard let gpsDateStamp, let gpsTimeStamp, gpsTimeStamp.count == 3,
            let day = DateParsing.exifDaySeconds(gpsDateStamp),
            gpsTimeStamp.allSatisfy({ $0.isFinite && $0 >= 0 }), gpsTimeStamp[0] < 24, gpsTimeStamp[1] < 60,
            gpsTimeStamp[2] < 61
        else { return nil }
        return Double(day) + gpsTimeStamp[0] * 3600 + gpsTimeStamp[1] * 60 + gpsTimeStamp[2]
    }

    /// The GPS position, when latitude and longitude are complete and in range (a 0/0 position is treated as "no
    /// fix", as cameras write it).
    func location() -> MediaMetadata.Location? {
        guard let lat = Self.degrees(gpsLatitude), let lon = Self.degrees(gpsLongitude) else { return nil }
        let latSign: Double
        switch gpsLatitudeRef?.uppercased() {
        case "N", nil: latSign = 1
        case "S": latSign = -1
        default: return nil
        }
        let lonSign: Double
        switch gpsLongitudeRef?.uppercased() {
        case "E", nil: lonSign = 1
        case "W": lonSign = -1
        default: return nil
        }
        let latitude = lat * latSign
        let longitude = lon * lonSign
        guard abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0 else { return nil }
        var altitude: Double?
        if let gpsAltitude, gpsAltitude.isFinite, abs(gpsAltitude) < 100_000 {
            altitude = gpsAltitudeRef == 1 ? -gpsAltitude : gpsAltitude
        }
        return MediaMetadata.Location(latitude: latitude, longitude: longitude, altitude: altitude)
    }

    private static func degrees(_ parts: [Double]?) -> Double? {
        guard let parts, !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ $0.isFinite && $0 >= 0 }) else {
            return nil
        }
        var value = parts[0]
        if parts.count > 1 { value += parts[1] / 60 }
        if parts.count > 2 { value += parts[2] / 3600 }
        return value
    }

    /// Fills the fields that are still unknown from `other`.
    mutating func merge(_ other: ExifFields) {
        let strings: [WritableKeyPath<ExifFields, String?>] = [
            \.make, \.model, \.dateTime, \.dateTimeOriginal, \.dateTimeDigitized, \.offsetTime, \.offsetTimeOriginal,
            \.offsetTimeDigitized, \.subSecTime, \.subSecTimeOriginal, \.subSecTimeDigitized, \.gpsLatitudeRef,
            \.gpsLongitudeRef, \.gpsDateStamp, \.contentIdentifier, \.imageDescription, \.artist, \.copyright,
            \.windowsTitle, \.windowsKeywords, \.lensMake, \.lensModel, \.gpsImgDirectionRef,
        ]
        for path in strings where self[keyPath: path] == nil { self[keyPath: path] = other[keyPath: path] }
        let ints: [WritableKeyPath<ExifFields, Int?>] = [
            \.orientation, \.pixelXDimension, \.pixelYDimension, \.gpsAltitudeRef, \.rating, \.iso, \.flash,
            \.focalLength35mm,
        ]
        for path in ints where self[keyPath: path] == nil { self[keyPath: path] = other[keyPath: path] }
        let arrays: [WritableKeyPath<ExifFields, [Double]?>] = [\.gpsLatitude, \.gpsLongitude, \.gpsTimeStamp]
        for path in arrays where self[keyPath: path] == nil { self[keyPath: path] = other[keyPath: path] }
        let doubles: [WritableKeyPath<ExifFields, Double?>] = [
            \.gpsAltitude, \.exposureTime, \.fNumber, \.focalLength, \.gpsImgDirection,
        ]
        for path in doubles where self[keyPath: path] == nil { self[keyPath: path] = other[keyPath: path] }
        if xmpPacket == nil { xmpPacket = other.xmpPacket }
        if iptcRecords == nil { iptcRecords = other.iptcRecords }
    }

    /// Whether any of the fields beyond dates, place and camera is known (most files' EXIF has none of them).
    var hasDetails: Bool {
        imageDescription != nil || artist != nil || copyright != nil || rating != nil || windowsTitle != nil
            || windowsKeywords != nil || exposureTime != nil || fNumber != nil || iso != nil || flash != nil
            || focalLength != nil || focalLength35mm != nil || lensMake != nil || lensModel != nil
    }

    /// `GPSImgDirection` in degrees (0 up to 360), when recorded and in range.
    func imageDirection() -> Double? {
        guard let gpsImgDirection, gpsImgDirection.isFinite, (0...360).contains(gpsImgDirection) else { return nil }
        return gpsImgDirection
    }
}
