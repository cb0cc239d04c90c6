import FoundationEssentials

/// What a probe learned about a file besides its kind: capture date, size, orientation, duration, location, Live Photo
/// identifier, animation and codecs.
///
/// Every field is best effort: malformed metadata is dropped field by field and never turns a file into a rejection.
/// `nil` means "not recorded in the file" (or not readable). JSON keys are the property names, and every key is always
/// present (`null` when unknown), so that `probe --json` lines have a stable shape.
public struct MediaMetadata: Sendable, Equatable, Codable {
    /// Where ``MediaMetadata/captureDate`` came from. The cases are in precedence order: when a file records several
    /// dates, the first source in this list that it has wins (`<` means "preferred over"). The README lists the same
    /// order; `sidecarXMP` and `takeout` are read from files beside the photo, `fileName` and
    /// `fileModificationDate` from the file system (``MediaMetadata/adoptFileNameDate(_:)``, the catalog).
    public enum CaptureDateSource: String, Sendable, Hashable, Codable, CaseIterable, Comparable {
        /// An XMP sidecar (`IMG_0001.xmp`): `exif:DateTimeOriginal`, `photoshop:DateCreated` or `xmp:CreateDate`.
        case sidecarXMP
        /// EXIF `DateTimeOriginal` with `OffsetTimeOriginal` and `SubSecTimeOriginal`.
        case exif
        /// QuickTime metadata: `com.apple.quicktime.creationdate`, or the `©day` user-data atom; it carries a zone.
        case quickTime
        /// An embedded XMP packet: `exif:DateTimeOriginal`, `photoshop:DateCreated`, `xmp:CreateDate` or
        /// `exif:DateTimeDigitized`.
        case xmp
        /// EXIF `CreateDate` (`DateTimeDigitized`) with `OffsetTimeDigitized` and `SubSecTimeDigitized`.
        case exifCreateDate
        /// IPTC `DateCreated` + `TimeCreated` (in Photoshop's APP13 resources).
        case iptc
        /// A Google Takeout sidecar's `photoTakenTime`.
        case takeout
        /// The `creation_time` of the movie header (`mvhd`, else the first track's `tkhd`); UTC by the
        /// specification, though many cameras write local time there, hence its low rank. Zero (1904) is ignored.
        case movieHeader
        /// EXIF `GPSDateStamp` + `GPSTimeStamp`, or XMP `exif:GPSDateTime`: a UTC instant whose zone is unknown.
        case gps
        /// A date in the file name (`IMG_20230101_120000.jpg`, `Screenshot 2023-01-01 at 12.00.00.png` …), a
        /// floating local time.
        case fileName
        /// EXIF IFD0 `DateTime` (`ModifyDate`): when the file was last written by a camera or an editor.
        case exifModifyDate
        /// The file's modification time, when nothing else dates it (set by the catalog, not by a probe).
        case fileModificationDate

        /// Position in the precedence list, 0 = best.
        public var rank: Int { Self.allCases.firstIndex(of: self)! }

        /// Whether `lhs` is preferred over `rhs`.
        public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rank < rhs.rank }
    }

    /// A GPS position (WGS 84).
    public struct Location: Sendable, Equatable, Codable {
        /// Degrees north, −90…90.
        public var latitude: Double
        /// Degrees east, −180…180.
        public var longitude: Double
        /// Metres above sea level, if recorded.
        public var altitude: Double?

        /// Creates a location.
        public init(latitude: Double, longitude: Double, altitude: Double? = nil) {
            self.latitude = latitude
            self.longitude = longitude
            self.altitude = altitude
        }
    }

    /// When the photo or video was taken.
    ///
    /// When ``captureTimeZoneOffset`` is known this is the exact instant. When the file records a local wall-clock
    /// time without a time zone (EXIF without `OffsetTime*`, a file name), ``captureDateIsFloating`` is true and the
    /// wall-clock time is stored as if it were UTC. A GPS time or a movie header's time is an instant whose local zone
    /// is unknown: not floating, no offset.
    public var captureDate: Date?
    /// Which record ``captureDate`` was read from.
    public var captureDateSource: CaptureDateSource?
    /// The capture time zone as seconds east of UTC (`+02:00` is 7200), when recorded or derivable (EXIF `OffsetTime*`,
    /// the difference between a local time and the GPS UTC time of the same file, a QuickTime creation date's offset).
    public var captureTimeZoneOffset: Int?
    /// Whether ``captureDate`` is a local wall-clock time whose zone is unknown (stored as if it were UTC).
    public var captureDateIsFloating: Bool
    /// The GPS receiver's UTC time stamp (EXIF `GPSDateStamp` + `GPSTimeStamp`, XMP `exif:GPSDateTime`).
    public var gpsDate: Date?
    /// The width of the image or video frame as encoded, before ``orientation`` is applied.
    public var pixelWidth: Int?
    /// The height of the image or video frame as encoded, before ``orientation`` is applied.
    public var pixelHeight: Int?
    /// How to turn the encoded pixels for display, as an EXIF orientation 1…8 (1: as stored; 6: rotate 90°
    /// clockwise; 3: 180°; 8: 90° counter-clockwise; 2, 4, 5, 7: mirrored). From EXIF for JPEG/TIFF/PNG/WebP, from
    /// `irot`/`imir` for HEIF/AVIF, from the track matrix for movies.
    public var orientation: Int?

    /// The size as the image is shown, which is what PhotoKit reports: the EXIF orientations 5 to 8 turn it by 90°,
    /// so that width and height trade places. Nil when the size is unknown.
    public var displayedPixelSize: (width: Int, height: Int)? {
        guard let width = pixelWidth, let height = pixelHeight, width >= 0, height >= 0 else { return nil }
        return (5...8).contains(orientation ?? 1) ? (height, width) : (width, height)
    }
    /// Playing time in seconds (movies; animated images when known).
    public var duration: Double?
    /// Where the photo or video was taken (EXIF GPS, QuickTime ISO 6709).
    public var location: Location?
    /// The Live Photo content identifier that pairs a photo with its movie: the Apple MakerNote's `ContentIdentifier`
    /// in JPEG/HEIC, `com.apple.quicktime.content.identifier` in a MOV.
    public var contentIdentifier: String?
    /// Number of frames: GIF/WebP/APNG frames, video samples of the first video track.
    public var frameCount: Int?
    /// Whether an image has more than one frame (animated GIF, WebP, PNG, AVIF/HEIF sequence).
    public var isAnimated: Bool
    /// Whether the photo carries its own short movie (a Google Pixel or Samsung motion photo: an MP4 after a JPEG's
    /// image, or a HEIC's `mpvd` box); it stays one photo.
    public var isMotionPhoto = false
    /// The container, lowercase: `jpeg`, `png`, `gif`, `webp`, `tiff`, `bmp`, `raf`, `heif`, `avif`, `cr3`,
    /// `quicktime`, `mp4`, `m4v`, `3gp`, `3g2`, or for rejections `matroska`, `webm`, `avi`, `mpeg-ts` ….
    public var container: String?
    /// The first video track's sample entry as a four-character code (`avc1`, `hvc1`, `hev1`, `av01` …); for an
    /// encrypted track, its original format.
    public var videoCodec: String?
    /// The first audio track's sample entry as a four-character code (`mp4a`, `ac-3`, `sowt` …).
    public var audioCodec: String?
    /// Camera maker (EXIF `Make`, QuickTime `com.apple.quicktime.make`).
    public var make: String?
    /// Camera model (EXIF `Model`, QuickTime `com.apple.quicktime.model`).
    public var model: String?

    // What a photographer reads off a photo (see ``EmbeddedMetadata`` for which record each comes from). Kept out of
    // line, in one box that is there only when one of them is known: a probe result waits in queues hundreds deep,
    // and most files record none of these.

    /// The title (XMP `dc:title`, IPTC Object Name, Windows `XPTitle`; QuickTime `©nam`).
    public var title: String? {
        get { details.title }
        set { details.title = newValue }
    }
    /// The description (XMP `dc:description`, IPTC Caption/Abstract, EXIF `ImageDescription`; QuickTime `©des`).
    public var caption: String? {
        get { details.caption }
        set { details.caption = newValue }
    }
    /// Keywords, in order (XMP `dc:subject`, IPTC Keywords, Windows `XPKeywords`; QuickTime keywords).
    public var keywords: [String] {
        get { details.keywords }
        set { details.keywords = newValue }
    }
    /// The rating, −1 (rejected) … 5 (XMP `xmp:Rating`, Microsoft's EXIF `Rating`).
    public var rating: Int? {
        get { details.rating }
        set { details.rating = newValue }
    }
    /// Who made it (XMP `dc:creator`, IPTC By-line, EXIF `Artist`; QuickTime `©ART`/author).
    public var artist: String? {
        get { details.artist }
        set { details.artist = newValue }
    }
    /// The copyright notice (XMP `dc:rights`, IPTC Copyright Notice, EXIF `Copyright`; QuickTime `cprt`).
    public var copyright: String? {
        get { details.copyright }
        set { details.copyright = newValue }
    }
    /// The aperture as an f-number (EXIF `FNumber`).
    public var fNumber: Double? {
        get { details.fNumber }
        set { details.fNumber = newValue }
    }
    /// The exposure time in seconds (EXIF `ExposureTime`: 0.004 is 1/250 s).
    public var exposureTime: Double? {
        get { details.exposureTime }
        set { details.exposureTime = newValue }
    }
    /// The ISO speed (EXIF `ISOSpeedRatings`/`PhotographicSensitivity`).
    public var iso: Int? {
        get { details.iso }
        set { details.iso = newValue }
    }
    /// The focal length in millimetres (EXIF `FocalLength`).
    public var focalLength: Double? {
        get { details.focalLength }
        set { details.focalLength = newValue }
    }
    /// The focal length's 35 mm equivalent (EXIF `FocalLengthIn35mmFilm`).
    public var focalLength35mm: Double? {
        get { details.focalLength35mm }
        set { details.focalLength35mm = newValue }
    }
    /// Whether the flash fired (EXIF `Flash`, bit 0).
    public var flashFired: Bool? {
        get { details.flashFired }
        set { details.flashFired = newValue }
    }
    /// The lens's maker (EXIF `LensMake`).
    public var lensMake: String? {
        get { details.lensMake }
        set { details.lensMake = newValue }
    }
    /// The lens's model (EXIF `LensModel`; XMP `aux:Lens`).
    public var lensModel: String? {
        get { details.lensModel }
        set { details.lensModel = newValue }
    }
    /// The direction the camera pointed, degrees clockwise from north (EXIF `GPSImgDirection`).
    public var imageDirection: Double? {
        get { details.imageDirection }
        set { details.imageDirection = newValue }
    }
    /// Frames per second of a video's first video track (from its sample table).
    public var frameRate: Double? {
        get { details.frameRate }
        set { details.frameRate = newValue }
    }

    /// The fields above, by value.
    struct Details: Sendable, Equatable {
        var title: String?
        var caption: String?
        var keywords: [String] = []
        var rating: Int?
        var artist: String?
        var copyright: String?
        var fNumber: Double?
        var exposureTime: Double?
        var iso: Int?
        var focalLength: Double?
        var focalLength35mm: Double?
        var flashFired: Bool?
        var lensMake: String?
        var lensModel: String?
        var imageDirection: Double?
        var frameRate: Double?
    }

    /// Holds ``Details`` when one is known; copied before a shared box is changed.
    final class DetailsBox: @unchecked Sendable {
        // @unchecked: the value is only changed through a box no other metadata shares (see `details`'s setter).
        var value: Details
        init(_ value: Details) { self.value = value }
    }

    private var detailsBox: DetailsBox?

    var details: Details {
        get { detailsBox?.value ?? Details() }
        set {
            if newValue == Details() {
                detailsBox = nil
            } else if let box = detailsBox, isKnownUniquelyReferenced(&detailsBox) {
                box.value = newValue
            } else {
                detailsBox = DetailsBox(newValue)
            }
        }
    }

    public static func == (lhs: MediaMetadata, rhs: MediaMetadata) -> Bool {
        lhs.captureDate == rhs.captureDate && lhs.captureDateSource == rhs.captureDateSource
            && lhs.captureTimeZoneOffset == rhs.captureTimeZoneOffset
            && lhs.captureDateIsFloating == rhs.captureDateIsFloating && lhs.gpsDate == rhs.gpsDate
            && lhs.pixelWidth == rhs.pixelWidth && lhs.pixelHeight == rhs.pixelHeight
            && lhs.orientation == rhs.orientation && lhs.duration == rhs.duration && lhs.location == rhs.location
            && lhs.contentIdentifier == rhs.contentIdentifier && lhs.frameCount == rhs.frameCount
            && lhs.isAnimated == rhs.isAnimated && lhs.isMotionPhoto == rhs.isMotionPhoto
            && lhs.container == rhs.container && lhs.videoCodec == rhs.videoCodec && lhs.audioCodec == rhs.audioCodec
            && lhs.make == rhs.make && lhs.model == rhs.model && lhs.details == rhs.details
    }

    /// Creates metadata; everything defaults to unknown.
    public init(
        captureDate: Date? = nil, captureDateSource: CaptureDateSource? = nil, captureTimeZoneOffset: Int? = nil,
        captureDateIsFloating: Bool = false, gpsDate: Date? = nil, pixelWidth: Int? = nil, pixelHeight: Int? = nil, orientation: Int? = nil, duration: Double? = nil,
        location: Location? = nil, contentIdentifier: String? = nil, frameCount: Int? = nil, isAnimated: Bool = false,
        container: String? = nil, videoCodec: String? = nil, audioCodec: String? = nil, make: String? = nil,
        model: String? = nil
    ) {
        self.captureDate = captureDate
        self.captureDateSource = captureDateSource
        self.captureTimeZoneOffset = captureTimeZoneOffset
        self.captureDateIsFloating = captureDateIsFloating
        self.gpsDate = gpsDate
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.orientation = orientation
        self.duration = duration
        self.location = location
        self.contentIdentifier = contentIdentifier
        self.frameCount = frameCount
        self.isAnimated = isAnimated
        self.container = container
        self.videoCodec = videoCodec
        self.audioCodec = audioCodec
        self.make = make
        self.model = model
    }

    enum CodingKeys: String, CodingKey {
        case captureDate, captureDateSource, captureTimeZoneOffset, captureDateIsFloating, gpsDate, pixelWidth, pixelHeight, orientation, duration
        case location, contentIdentifier, frameCount, isAnimated, isMotionPhoto, container, videoCodec, audioCodec, make, model
        case title, caption, keywords, rating, artist, copyright, fNumber, exposureTime, iso, focalLength
        case focalLength35mm, flashFired, lensMake, lensModel, imageDirection, frameRate
    }

    /// Decodes metadata; missing keys are unknown values.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        captureDate = try c.decodeIfPresent(Date.self, forKey: .captureDate)
        captureDateSource = try c.decodeIfPresent(CaptureDateSource.self, forKey: .captureDateSource)
        captureTimeZoneOffset = try c.decodeIfPresent(Int.self, forKey: .captureTimeZoneOffset)
        captureDateIsFloating = try c.decodeIfPresent(Bool.self, forKey: .captureDateIsFloating) ?? false
        gpsDate = try c.decodeIfPresent(Date.self, forKey: .gpsDate)
        pixelWidth = try c.decodeIfPresent(Int.self, forKey: .pixelWidth)
        pixelHeight = try c.decodeIfPresent(Int.self, forKey: .pixelHeight)
        orientation = try c.decodeIfPresent(Int.self, forKey: .orientation)
        duration = try c.decodeIfPresent(Double.self, forKey: .duration)
        location = try c.decodeIfPresent(Location.self, forKey: .location)
        contentIdentifier = try c.decodeIfPresent(String.self, forKey: .contentIdentifier)
        frameCount = try c.decodeIfPresent(Int.self, forKey: .frameCount)
        isAnimated = try c.decodeIfPresent(Bool.self, forKey: .isAnimated) ?? false
        isMotionPhoto = try c.decodeIfPresent(Bool.self, forKey: .isMotionPhoto) ?? false
        container = try c.decodeIfPresent(String.self, forKey: .container)
        videoCodec = try c.decodeIfPresent(String.self, forKey: .videoCodec)
        audioCodec = try c.decodeIfPresent(String.self, forKey: .audioCodec)
        make = try c.decodeIfPresent(String.self, forKey: .make)
        model = try c.decodeIfPresent(String.self, forKey: .model)
        title = try c.decodeIfPresent(String.self, forKey: .title)
        caption = try c.decodeIfPresent(String.self, forKey: .caption)
        keywords = try c.decodeIfPresent([String].self, forKey: .keywords) ?? []
        rating = try c.decodeIfPresent(Int.self, forKey: .rating)
        artist = try c.decodeIfPresent(String.self, forKey: .artist)
        copyright = try c.decodeIfPresent(String.self, forKey: .copyright)
        fNumber = try c.decodeIfPresent(Double.self, forKey: .fNumber)
        exposureTime = try c.decodeIfPresent(Double.self, forKey: .exposureTime)
        iso = try c.decodeIfPresent(Int.self, forKey: .iso)
        focalLength = try c.decodeIfPresent(Double.self, forKey: .focalLength)
        focalLength35mm = try c.decodeIfPresent(Double.self, forKey: .focalLength35mm)
        flashFired = try c.decodeIfPresent(Bool.self, forKey: .flashFired)
        lensMake = try c.decodeIfPresent(String.self, forKey: .lensMake)
        lensModel = try c.decodeIfPresent(String.self, forKey: .lensModel)
        imageDirection = try c.decodeIfPresent(Double.self, forKey: .imageDirection)
        frameRate = try c.decodeIfPresent(Double.self, forKey: .frameRate)
    }

    /// Encodes every key, unknown values as `null`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(captureDate, forKey: .captureDate)
        try c.encode(captureDateSource, forKey: .captureDateSource)
        try c.encode(captureTimeZoneOffset, forKey: .captureTimeZoneOffset)
        try c.encode(captureDateIsFloating, forKey: .captureDateIsFloating)
        try c.encode(gpsDate, forKey: .gpsDate)
        try c.encode(pixelWidth, forKey: .pixelWidth)
        try c.encode(pixelHeight, forKey: .pixelHeight)
        try c.encode(orientation, forKey: .orientation)
        try c.encode(duration, forKey: .duration)
        try c.encode(location, forKey: .location)
        try c.encode(contentIdentifier, forKey: .contentIdentifier)
        try c.encode(frameCount, forKey: .frameCount)
        try c.encode(isAnimated, forKey: .isAnimated)
        try c.encode(isMotionPhoto, forKey: .isMotionPhoto)
        try c.encode(container, forKey: .container)
        try c.encode(videoCodec, forKey: .videoCodec)
        try c.encode(audioCodec, forKey: .audioCodec)
        try c.encode(make, forKey: .make)
        try c.encode(model, forKey: .model)
        try c.encode(title, forKey: .title)
        try c.encode(caption, forKey: .caption)
        try c.encode(keywords, forKey: .keywords)
        try c.encode(rating, forKey: .rating)
        try c.encode(artist, forKey: .artist)
        try c.encode(copyright, forKey: .copyright)
        try c.encode(fNumber, forKey: .fNumber)
        try c.encode(exposureTime, forKey: .exposureTime)
        try c.encode(iso, forKey: .iso)
        try c.encode(focalLength, forKey: .focalLength)
        try c.encode(focalLength35mm, forKey: .focalLength35mm)
        try c.encode(flashFired, forKey: .flashFired)
        try c.encode(lensMake, forKey: .lensMake)
        try c.encode(lensModel, forKey: .lensModel)
        try c.encode(imageDirection, forKey: .imageDirection)
        try c.encode(frameRate, forKey: .frameRate)
    }
}
