/// Finer kinds of an asset (`PHAssetMediaSubtype`); photodrop sets ``photoLive`` for Live Photos and its own bits for
/// RAW+JPEG pairs, motion photos and edited assets.
public struct AssetMediaSubtypes: OptionSet, Sendable, Hashable, Codable {
    /// The bits, as in PhotoKit.
    public let rawValue: Int
    /// Subtypes from PhotoKit's bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    // PhotoKit's values; of these photodrop itself sets only `photoLive`.

    public static let photoPanorama = AssetMediaSubtypes(rawValue: 1 << 0)
    public static let photoHDR = AssetMediaSubtypes(rawValue: 1 << 1)
    public static let photoScreenshot = AssetMediaSubtypes(rawValue: 1 << 2)
    /// A photo with a paired video (a ``AssetResourceType/pairedVideo`` resource).
    public static let photoLive = AssetMediaSubtypes(rawValue: 1 << 3)
    public static let photoDepthEffect = AssetMediaSubtypes(rawValue: 1 << 4)
    public static let videoStreamed = AssetMediaSubtypes(rawValue: 1 << 16)
    public static let videoHighFrameRate = AssetMediaSubtypes(rawValue: 1 << 17)
    public static let videoTimelapse = AssetMediaSubtypes(rawValue: 1 << 18)

    // photodrop's own bits, above PhotoKit's.

    /// A photo stored with its RAW (an ``AssetResourceType/alternatePhoto`` resource).
    public static let photoRAWAndJPEG = AssetMediaSubtypes(rawValue: 1 << 24)
    /// A photo with its movie embedded in the same file (Google Pixel and Samsung motion photos).
    public static let photoMotion = AssetMediaSubtypes(rawValue: 1 << 25)
    /// An asset stored with an edited rendition (``AssetResourceType/fullSizePhoto`` or `fullSizeVideo`).
    public static let edited = AssetMediaSubtypes(rawValue: 1 << 26)

    /// The names the command line and JSON use for the subtypes photodrop sets: `livePhoto`, `rawAndJpeg`,
    /// `motionPhoto`, `edited`.
    public var names: [String] {
        [(AssetMediaSubtypes.photoLive, "livePhoto"), (.photoRAWAndJPEG, "rawAndJpeg"), (.photoMotion, "motionPhoto"),
         (.edited, "edited")].filter { contains($0.0) }.map(\.1)
    }
}
