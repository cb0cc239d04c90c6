import CXMP
import FoundationEssentials
import PhotodropSystem

/// What an XMP packet says about its photo: an XMP sidecar (`IMG_0001.xmp`, `IMG_0001.CR2.xmp`, as darktable,
/// Lightroom, digiKam and exiftool write them), or the packet embedded in the file itself (a JPEG's APP1 segments, a
/// PNG's `iTXt`, a WebP's `XMP ` chunk, a HEIF item, an MP4 box, a TIFF tag). The capture date, GPS position and
/// time, rating, title, caption, keywords, creator, rights, and the camera's settings as XMP's `exif:`, `exifEX:`,
/// `aux:` and `tiff:` namespaces record them.
///
/// Parsed as RDF/XML with libxml2, by namespace URI (never by prefix or by searching text: Photoshop-era files write
/// `xap:` for the namespace that newer ones call `xmp:`), in UTF-8 or UTF-16 (a byte-order mark or the XML
/// declaration says which; Lightroom writes UTF-16). A packet is untrusted input: it is parsed without network access
/// and without substituting entities, and a document with a DTD is refused outright, so neither external entities
/// (XXE) nor entity expansion ("billion laughs") can happen. Properties may be written as attributes of
/// `rdf:Description` or as elements; `rdf:Alt`, `rdf:Bag` and `rdf:Seq` hold the values of lists; structures
/// (`exif:Flash`) in any of RDF's forms. A value that does not parse exactly (a date, a number) is left out.
public struct XMPMetadata: Sendable, Equatable {
    /// The capture date: `exif:DateTimeOriginal`, else `photoshop:DateCreated`, else `xmp:CreateDate`, else
    /// `exif:DateTimeDigitized`, as seconds since 1970 (the instant when ``captureTimeZoneOffset`` is known, else the
    /// local time read as if it were UTC).
    public var captureDate: Date?
    /// The recorded UTC offset of ``captureDate``, seconds east.
    public var captureTimeZoneOffset: Int?
    /// `exif:GPSDateTime` (or `exif:GPSTimeStamp`, the name exiftool and Adobe write it under), UTC.
    public var gpsDate: Date?
    /// `exif:GPSLatitude` / `exif:GPSLongitude` (`51,30.123N`, `51,30,7.38N` or decimal degrees) and
    /// `exif:GPSAltitude` with `exif:GPSAltitudeRef`.
    public var location: MediaMetadata.Location?
    /// `exif:GPSImgDirection`: the direction the camera pointed, degrees.
    public var imageDirection: Double?
    /// `xmp:Rating`: −1 (rejected) … 5.
    public var rating: Int?
    /// `dc:title` (the `x-default` alternative, else the first).
    public var title: String?
    /// `dc:description` (the `x-default` alternative, else the first).
    public var caption: String?
    /// `dc:subject`, in order, without duplicates.
    public var keywords: [String] = []
    /// `dc:creator` (the people, joined with "; ").
    public var creator: String?
    /// `dc:rights` (the `x-default` alternative, else the first).
    public var rights: String?
    /// `tiff:Make`, `tiff:Model`.
    public var make: String?
    public var model: String?
    /// `exif:FNumber`, `exif:ExposureTime` (seconds), `exif:ISOSpeedRatings` (or `exifEX:PhotographicSensitivity`),
    /// `exif:FocalLength`, `exif:FocalLengthIn35mmFilm` (mm), `exif:Flash/exif:Fired`.
    public var fNumber: Double?
    public var exposureTime: Double?
    public var iso: Int?
    public var focalLength: Double?
    public var focalLength35mm: Double?
    public var flashFired: Bool?
    /// `exifEX:LensMake`; `exifEX:LensModel`, else `aux:Lens`.
    public var lensMake: String?
    public var lensModel: String?
    /// `xmpNote:HasExtendedXMP`: the GUID of the extended packet that a JPEG carries in further APP1 segments.
    var extendedPacketGUID: String?

    /// Whether ``captureDate`` is a local time without a zone.
    public var captureDateIsFloating: Bool { captureDate != nil && captureTimeZoneOffset == nil }

    public init() {}

    /// Why a sidecar could not be read.
    public struct ParseFailure: Error, Sendable, Equatable, CustomStringConvertible {
        public let description: String
    }

    private static let rdf = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
    private static let exif = "http://ns.adobe.com/exif/1.0/"
    private static let exifEX = "http://cipa.jp/exif/1.0/"
    private static let aux = "http://ns.adobe.com/exif/1.0/aux/"
    private static let tiff = "http://ns.adobe.com/tiff/1.0/"
    private static let photoshop = "http://ns.adobe.com/photoshop/1.0/"
    private static let xmpBasic = "http://ns.adobe.com/xap/1.0/"
    private static let xmpNote = "http://ns.adobe.com/xmp/note/"
    private static let dc = "http://purl.org/dc/elements/1.1/"

    /// Sidecars larger than this are refused (real ones are a few kilobytes; Lightroom's with a history, a few
    /// hundred).
    public static let maximumBytes = 16 << 20

    /// Parses an XMP document.
    ///
    /// - Throws: ``ParseFailure`` for malformed XML, a DTD, no `rdf:RDF`, or more than ``maximumBytes``.
    public static func parse(_ bytes: [UInt8]) throws(ParseFailure) -> XMPMetadata {
        guard bytes.count <= maximumBytes else {
            throw ParseFailure(description: "larger than \(maximumBytes >> 20) MB; not an XMP sidecar")
        }
        guard !bytes.isEmpty else { throw ParseFailure(description: "empty") }
        var records: UnsafeMutablePointer<CChar>?
        var length = 0
        var message = [CChar](repeating: 0, count: 512)
        let status = bytes.withUnsafeBufferPointer { buffer in
            photodrop_xmp_properties(buffer.baseAddress, buffer.count, &records, &length, &message, message.count)
        }
        guard status == 0, let records else {
            throw ParseFailure(description: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { photodrop_xmp_free(records) }
        var properties: [String: [String]] = [:]
        let raw = UnsafeRawBufferPointer(start: records, count: length)
        for entry in raw.split(separator: 0x1E) {
            guard let separator = entry.firstIndex(of: 0x1F) else { continue }
            let key = String(decoding: entry[entry.startIndex..<separator], as: UTF8.self)
            let value = String(decoding: entry[(separator + 1)...], as: UTF8.self)
            properties[key, default: []].append(value.trimmingWhitespaceAndNewlines())
        }
        return XMPMetadata(properties)
    }

    // MARK: Interpreting

    private init(_ properties: [String: [String]]) {
        func first(_ key: String) -> String? {
            properties[key]?.first { !$0.isEmpty }
        }
        func number(_ key: String) -> Double? {
            first(key).flatMap(Self.rational).flatMap { $0 > 0 && $0 < 1_000_000 ? $0 : nil }
        }
        for key in [
            Self.exif + "DateTimeOriginal", Self.photoshop + "DateCreated", Self.xmpBasic + "CreateDate",
            Self.exif + "DateTimeDigitized",
        ] {
            if let text = first(key), let date = DateParsing.iso8601Loosely(text) {
                captureDate = Date(timeIntervalSince1970: date.seconds)
                captureTimeZoneOffset = date.offset
                break
            }
        }
        for key in [Self.exif + "GPSDateTime", Self.exif + "GPSTimeStamp"] {
            if let text = first(key), let date = DateParsing.iso8601Loosely(text) {
                // UTC by the XMP specification: an offset, when written, is honoured; none means UTC.
                gpsDate = Date(timeIntervalSince1970: date.seconds)
                break
            }
        }
        if let latitude = first(Self.exif + "GPSLatitude").flatMap(Self.coordinate),
            let longitude = first(Self.exif + "GPSLongitude").flatMap(Self.coordinate),
            abs(latitude) <= 90, abs(longitude) <= 180, latitude != 0 || longitude != 0
        {
            var altitude = first(Self.exif + "GPSAltitude").flatMap(Self.rational)
            if first(Self.exif + "GPSAltitudeRef") == "1" { altitude = altitude.map { -$0 } }
            if let value = altitude, !(value.isFinite && abs(value) < 100_000) { altitude = nil }
            location = MediaMetadata.Location(latitude: latitude, longitude: longitude, altitude: altitude)
        }
        if let direction = first(Self.exif + "GPSImgDirection").flatMap(Self.rational), direction >= 0,
            direction <= 360
        {
            imageDirection = direction
        }
        if let text = first(Self.xmpBasic + "Rating"), let value = Double(text), value.isFinite,
            (-1...5).contains(value.rounded())
        {
            rating = Int(value.rounded())
        }
        title = first(Self.dc + "title")
        caption = first(Self.dc + "description")
        var seen = Set<String>()
        keywords = (properties[Self.dc + "subject"] ?? []).filter { !$0.isEmpty && seen.insert($0).inserted }
        let creators = (properties[Self.dc + "creator"] ?? []).filter { !$0.isEmpty }
        creator = creators.isEmpty ? nil : creators.joined(separator: "; ")
        rights = first(Self.dc + "rights")
        make = first(Self.tiff + "Make")
        model = first(Self.tiff + "Model")
        fNumber = number(Self.exif + "FNumber")
        exposureTime = number(Self.exif + "ExposureTime")
        focalLength = number(Self.exif + "FocalLength")
        focalLength35mm = number(Self.exif + "FocalLengthIn35mmFilm")
        iso = (first(Self.exif + "ISOSpeedRatings") ?? first(Self.exifEX + "PhotographicSensitivity"))
            .flatMap { Int($0) }.flatMap { $0 > 0 && $0 < 10_000_000 ? $0 : nil }
        switch first(Self.exif + "Flash/" + Self.exif + "Fired")?.lowercased() {
        case "true": flashFired = true
        case "false": flashFired = false
        default: break
        }
        lensMake = first(Self.exifEX + "LensMake")
        lensModel = first(Self.exifEX + "LensModel") ?? first(Self.aux + "Lens")
        extendedPacketGUID = first(Self.xmpNote + "HasExtendedXMP")
    }

    /// Fills what this packet leaves unknown from `other` (a JPEG's extended packet, which holds what did not fit
    /// in the main one).
    mutating func fillMissing(from other: XMPMetadata) {
        if captureDate == nil {
            captureDate = other.captureDate
            captureTimeZoneOffset = other.captureTimeZoneOffset
        }
        if keywords.isEmpty { keywords = other.keywords }
        let strings: [WritableKeyPath<XMPMetadata, String?>] = [
            \.title, \.caption, \.creator, \.rights, \.make, \.model, \.lensMake, \.lensModel,
        ]
        for path in strings where self[keyPath: path] == nil { self[keyPath: path] = other[keyPath: path] }
        let doubles: [WritableKeyPath<XMPMetadata, Double?>] = [
            \.imageDirection, \.fNumber, \.exposureTime, \.focalLength, \.focalLength35mm,
        ]
        for path in doubles where self[keyPath: path] == nil { self[keyPath: path] = other[keyPath: path] }
        gpsDate = gpsDate ?? other.gpsDate
        location = location ?? other.location
        rating = rating ?? other.rating
        iso = iso ?? other.iso
        flashFired = flashFired ?? other.flashFired
    }

    /// An XMP GPS coordinate: `DDD,MM.mmmmD`, `DDD,MM,SSD` (D is N, S, E or W) or signed decimal degrees.
    static func coordinate(_ text: String) -> Double? {
        guard let last = text.last else { return nil }
        let sign: Double
        var body = Substring(text)
        switch last.uppercased() {
        case "N", "E":
            sign = 1
            body = body.dropLast()
        case "S", "W":
            sign = -1
            body = body.dropLast()
        default: return Double(text).flatMap { $0.isFinite ? $0 : nil }
        }
        let parts = body.split(separator: ",").map { Double($0.trimmingWhitespace()) }
        guard !parts.isEmpty, parts.count <= 3, parts.allSatisfy({ $0 != nil && $0!.isFinite && $0! >= 0 }) else {
            return nil
        }
        let values = parts.map { $0! }
        var degrees = values[0]
        if values.count > 1 { degrees += values[1] / 60 }
        if values.count > 2 { degrees += values[2] / 3600 }
        return sign * degrees
    }

    /// `1234/10` or `123.4`.
    static func rational(_ text: String) -> Double? {
        let parts = text.split(separator: "/")
        if parts.count == 2, let numerator = Double(parts[0]), let denominator = Double(parts[1]), denominator != 0 {
            let value = numerator / denominator
            return value.isFinite ? value : nil
        }
        return Double(text).flatMap { $0.isFinite ? $0 : nil }
    }
}
