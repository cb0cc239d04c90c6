import FoundationEssentials

/// A photo, GIF or video in the library (`PHAsset`): a snapshot of its properties when it was fetched.
///
/// Change an asset through ``AssetChangeRequest`` inside ``PhotoLibrary/performChanges(_:)``; fetch it again (or use
/// ``FetchResultChangeDetails/fetchResultAfterChanges``) to see the new state. An asset remembers its library, so
/// `Asset.fetchAssets(in:options:)` and change requests need no library argument.
public struct Asset: PhotoObject, AssetReference, CustomStringConvertible {
    struct Record: Sendable, Hashable {
        var rowID: Int64
        var uuid: String
        var mediaType: AssetMediaType
        var mediaSubtypes: AssetMediaSubtypes
        var playbackStyle: AssetPlaybackStyle
        var creationDate: Date?
        var creationDateSource: String?
        var creationTimeZoneOffset: Int?
        var isCreationDateFloating: Bool
        var addedDate: Date
        var modificationDate: Date
        var pixelWidth: Int
        var pixelHeight: Int
        var duration: Double
        var location: Location?
        var isFavorite: Bool
        var isHidden: Bool
        var deletedDate: Date?
        var contentIdentifier: String?
        var title: String? = nil
        var caption: String? = nil
        var keywords: [String] = []
        var rating: Int? = nil
        var pairingKey: String? = nil
        var awaitsPartner = false
        var cameraMake: String? = nil
        var cameraModel: String? = nil
        /// ``CaptureDetails`` in their stored form, decoded when asked for.
        var captureDetailsJSON: String? = nil
        var resources: [AssetResource]
    }

    let record: Record
    /// The library the asset was fetched from.
    public let photoLibrary: PhotoLibrary

    init(record: Record, library: PhotoLibrary) {
        self.record = record
        self.photoLibrary = library
    }

    var rowID: Int64 { record.rowID }

    /// The asset's identifier: opaque and stable forever.
    public var localIdentifier: String { LocalIdentifier.asset(uuid: record.uuid) }
    /// Image or video.
    public var mediaType: AssetMediaType { record.mediaType }
    /// Finer kinds, e.g. ``AssetMediaSubtypes/photoLive``.
    public var mediaSubtypes: AssetMediaSubtypes { record.mediaSubtypes }
    /// How to show it: `.image`, `.imageAnimated` (GIF), `.livePhoto`, `.video`.
    public var playbackStyle: AssetPlaybackStyle { record.playbackStyle }
    /// `"photo"`, `"gif"` or `"video"`: the kind photodrop's command line and JSON use.
    public var kind: String {
        if record.playbackStyle == .imageAnimated { return "gif" }
        return record.mediaType == .video ? "video" : "photo"
    }
    /// When the photo or video was taken, when known: the instant (sort by it). For a floating local time
    /// (``isCreationDateFloating``) it is the local wall-clock time read as if it were UTC.
    public var creationDate: Date? { record.creationDate }
    /// Where ``creationDate`` came from (e.g. `"exif"`, `"quickTime"`, `"fileModificationDate"`; photodrop names
    /// its sources in the README's precedence list).
    public var creationDateSource: String? { record.creationDateSource }
    /// The UTC offset of the place and time the asset was taken, seconds east (`+09:00` is 32400), when known
    /// (photodrop; PhotoKit keeps it private). The local time is ``creationDate`` plus this offset.
    public var creationTimeZoneOffset: Int? { record.creationTimeZoneOffset }
    /// Whether ``creationDate`` is a local wall-clock time whose zone is unknown (a camera without a time-zone
    /// setting, a date in a file name): it is stored and sorted as if it were UTC, and shown without an offset.
    public var isCreationDateFloating: Bool { record.isCreationDateFloating }
    /// When the asset was added to the library.
    public var addedDate: Date { record.addedDate }
    /// When the asset last changed.
    public var modificationDate: Date { record.modificationDate }
    /// Width in pixels (0 when unknown).
    public var pixelWidth: Int { record.pixelWidth }
    /// Height in pixels (0 when unknown).
    public var pixelHeight: Int { record.pixelHeight }
    /// Length in seconds for videos, 0 for photos.
    public var duration: Double { record.duration }
    /// Where it was taken, when known.
    public var location: Location? { record.location }
    /// Whether it is a favourite.
    public var isFavorite: Bool { record.isFavorite }
    /// Whether it is hidden (left out of fetches unless ``FetchOptions/includeHiddenAssets``).
    public var isHidden: Bool { record.isHidden }
    /// When it was deleted to Recently Deleted, or nil.
    public var deletedDate: Date? { record.deletedDate }
    /// Whether it is in Recently Deleted.
    public var isDeleted: Bool { record.deletedDate != nil }
    /// The title, from a sidecar or the file itself (XMP `dc:title`, IPTC Object Name) or a program (photodrop).
    public var title: String? { record.title }
    /// The caption (XMP `dc:description`, IPTC Caption, EXIF `ImageDescription`, a Takeout `description`), when known
    /// (photodrop).
    public var caption: String? { record.caption }
    /// The camera's maker and model (EXIF `Make`/`Model`, QuickTime's), when known (photodrop).
    public var cameraMake: String? { record.cameraMake }
    public var cameraModel: String? { record.cameraModel }
    /// How it was made: exposure, lens, flash, artist, copyright, direction, frame rate (photodrop; empty when the
    /// file records none of it).
    public var captureDetails: CaptureDetails { record.captureDetailsJSON.map(CaptureDetails.init(json:)) ?? CaptureDetails() }
    /// Keywords (XMP `dc:subject`, IPTC Keywords), in order (photodrop).
    public var keywords: [String] { record.keywords }
    /// The rating, −1 (rejected) … 5, when known (XMP `xmp:Rating`, EXIF `Rating`; photodrop).
    public var rating: Int? { record.rating }
    /// The Live Photo content identifier that pairs a photo with its movie, when known.
    public var contentIdentifier: String? { record.contentIdentifier }
    /// The key the asset's files share (``AssetChangeRequest/pairingKey``; photodrop).
    public var pairingKey: String? { record.pairingKey }
    /// Whether a later file may become its primary (``AssetChangeRequest/awaitsPartner``; photodrop).
    public var awaitsPartner: Bool { record.awaitsPartner }
    /// Its stored originals; the first is the primary one (the photo of a photo, the movie of a video).
    public var resources: [AssetResource] { record.resources }

    /// The primary resource.
    public var primaryResource: AssetResource? { record.resources.first }
    /// The MIME type of the primary resource.
    public var mimeType: String? { primaryResource?.mimeType }
    /// The SHA-256 of the primary resource, lowercase hex.
    public var sha256: String? { primaryResource?.sha256 }
    /// The size of the primary resource in bytes.
    public var byteCount: Int64 { primaryResource?.byteCount ?? 0 }
    /// The file name the primary resource had when it was added.
    public var originalFilename: String? { primaryResource?.originalFilename }
    /// The stored original of the primary resource.
    public var originalURL: URL? { primaryResource?.fileURL }

    public static func == (lhs: Asset, rhs: Asset) -> Bool {
        lhs.record == rhs.record && lhs.photoLibrary === rhs.photoLibrary
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(record) }

    public var description: String { "Asset(\(localIdentifier), \(kind), \(originalFilename ?? "-"))" }
}
