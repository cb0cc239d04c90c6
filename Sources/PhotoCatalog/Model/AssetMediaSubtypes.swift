/// Finer kinds of an asset (`PHAssetMediaSubtype`); photodrop sets ``photoLive`` for Live Photos.
public struct AssetMediaSubtypes: OptionSet, Sendable, Hashable, Codable {
    /// The bits, as in PhotoKit.
    public let rawValue: Int
    /// Subtypes from PhotoKit's bits.
    public init(rawValue: Int) { self.rawValue = rawValue }

    // PhotoKit's values; photodrop itself sets only `photoLive`.

    public static let photoPanorama = AssetMediaSubtypes(rawValue: 1 << 0)
    public static let photoHDR = AssetMediaSubtypes(rawValue: 1 << 1)
    public static let photoScreenshot = AssetMediaSubtypes(rawValue: 1 << 2)
    /// A photo with a paired video (a ``AssetResourceType/pairedVideo`` resource).
    public static let photoLive = AssetMediaSubtypes(rawValue: 1 << 3)
    public static let photoDepthEffect = AssetMediaSubtypes(rawValue: 1 << 4)
    public static let videoStreamed = AssetMediaSubtypes(rawValue: 1 << 16)
    public static let videoHighFrameRate = AssetMediaSubtypes(rawValue: 1 << 17)
    public static let videoTimelapse = AssetMediaSubtypes(rawValue: 1 << 18)
}
