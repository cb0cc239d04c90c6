/// The role of a stored file within an asset (`PHAssetResourceType`); raw values are PhotoKit's, except ``sidecar``.
public enum AssetResourceType: Int, Sendable, Hashable, Codable, CaseIterable {
    /// The photo (or GIF) data of a photo asset.
    case photo = 1
    /// The movie data of a video asset.
    case video = 2
    /// Another rendition of the photo kept beside it: the RAW of a RAW+JPEG pair.
    case alternatePhoto = 4
    /// The edited rendition of a photo (an iPhone's `IMG_E0001.HEIC`).
    case fullSizePhoto = 5
    /// The edited rendition of a video (`IMG_E0001.MOV`).
    case fullSizeVideo = 6
    /// The edits, as the editing app stored them (an iPhone's `IMG_0001.AAE`).
    case adjustmentData = 7
    /// The movie of a Live Photo, stored beside its ``photo``.
    case pairedVideo = 9
    /// A metadata file kept byte for byte beside the media: an XMP sidecar, a Google Takeout JSON (photodrop's own
    /// type; PhotoKit has none).
    case sidecar = 100

    /// The name the command line and JSON use: PhotoKit's case name.
    public var name: String {
        switch self {
        case .photo: "photo"
        case .video: "video"
        case .alternatePhoto: "alternatePhoto"
        case .fullSizePhoto: "fullSizePhoto"
        case .fullSizeVideo: "fullSizeVideo"
        case .adjustmentData: "adjustmentData"
        case .pairedVideo: "pairedVideo"
        case .sidecar: "sidecar"
        }
    }

    /// Whether an asset's main file has this type (one per asset: a photo or a video).
    public var isPrimary: Bool { self == .photo || self == .video }

    /// The primary type a secondary resource goes with: `.photo` for a paired video, an alternate or edited photo;
    /// `.video` for an edited video; nil when either will do (adjustments, sidecars) or for primary types.
    public var requiredPrimary: AssetResourceType? {
        switch self {
        case .pairedVideo, .alternatePhoto, .fullSizePhoto: .photo
        case .fullSizeVideo: .video
        case .photo, .video, .adjustmentData, .sidecar: nil
        }
    }
}
