/// The role of a stored file within an asset (`PHAssetResourceType`); raw values are PhotoKit's.
public enum AssetResourceType: Int, Sendable, Hashable, Codable, CaseIterable {
    /// The photo (or GIF) data of a photo asset.
    case photo = 1
    /// The movie data of a video asset.
    case video = 2
    /// The movie of a Live Photo, stored beside its ``photo``.
    case pairedVideo = 9
}
