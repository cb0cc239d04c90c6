import PhotodropSystem

/// How a photo or video was made, as a photographer reads it off the file: exposure, lens, flash, who made it and
/// who holds its rights, the direction the camera pointed, a video's frame rate (photodrop; PhotoKit leaves these to
/// the image's own properties). Every field is nil when the file does not record it.
///
/// Stored with the asset as one JSON object whose keys are the property names (`json`), so that new fields need
/// no new columns.
public struct CaptureDetails: Sendable, Hashable {
    /// The aperture as an f-number (2.8 is f/2.8).
    public var fNumber: Double?
    /// The exposure time in seconds (0.004 is 1/250 s).
    public var exposureTime: Double?
    /// The ISO speed.
    public var iso: Int?
    /// The focal length in millimetres.
    public var focalLength: Double?
    /// The focal length's 35 mm film equivalent in millimetres.
    public var focalLength35mm: Double?
    /// Whether the flash fired.
    public var flashFired: Bool?
    /// The lens's maker and model.
    public var lensMake: String?
    public var lensModel: String?
    /// Who made it.
    public var artist: String?
    /// The copyright notice.
    public var copyright: String?
    /// The direction the camera pointed, degrees clockwise from north.
    public var imageDirection: Double?
    /// A video's frames per second.
    public var frameRate: Double?

    public init(
        fNumber: Double? = nil, exposureTime: Double? = nil, iso: Int? = nil, focalLength: Double? = nil,
        focalLength35mm: Double? = nil, flashFired: Bool? = nil, lensMake: String? = nil, lensModel: String? = nil,
        artist: String? = nil, copyright: String? = nil, imageDirection: Double? = nil, frameRate: Double? = nil
    ) {
        self.fNumber = fNumber
        self.exposureTime = exposureTime
        self.iso = iso
        self.focalLength = focalLength
        self.focalLength35mm = focalLength35mm
        self.flashFired = flashFired
        self.lensMake = lensMake
        self.lensModel = lensModel
        self.artist = artist
        self.copyright = copyright
        self.imageDirection = imageDirection
        self.frameRate = frameRate
    }

    /// Whether nothing is known.
    public var isEmpty: Bool { self == CaptureDetails() }

    private static var doubles: [(String, WritableKeyPath<CaptureDetails, Double?>)] {
        [
            ("fNumber", \.fNumber), ("exposureTime", \.exposureTime), ("focalLength", \.focalLength),
            ("focalLength35mm", \.focalLength35mm), ("imageDirection", \.imageDirection), ("frameRate", \.frameRate),
        ]
    }
    private static var strings: [(String, WritableKeyPath<CaptureDetails, String?>)] {
        [
            ("lensMake", \.lensMake), ("lensModel", \.lensModel), ("artist", \.artist), ("copyright", \.copyright),
        ]
    }

    /// The stored form: a JSON object of the known fields; nil when nothing is known.
    var json: String? {
        guard !isEmpty else { return nil }
        var writer = JSONWriter(capacity: 96)
        writer.beginObject()
        for (key, path) in Self.doubles { if let value = self[keyPath: path], value.isFinite { writer.member(key, value) } }
        if let iso { writer.member("iso", iso) }
        if let flashFired { writer.member("flashFired", flashFired) }
        for (key, path) in Self.strings { if let value = self[keyPath: path] { writer.member(key, value) } }
        writer.endObject()
        return writer.text
    }

    /// Reads the stored form; unknown keys and values of the wrong type are left out.
    init(json: String) {
        guard let value = try? JSONParser.parse(json), case .object(let members) = value.kind else { return }
        for member in members {
            switch (member.key, member.value.kind) {
            case ("iso", .number(let text)): iso = Int(text)
            case ("flashFired", .bool(let flag)): flashFired = flag
            case (let key, .number(let text)):
                if let path = Self.doubles.first(where: { $0.0 == key })?.1 { self[keyPath: path] = Double(text) }
            case (let key, .string(let text)):
                if let path = Self.strings.first(where: { $0.0 == key })?.1 { self[keyPath: path] = text }
            default: break
            }
        }
    }
}
