/// The specific kind of a collection (`PHAssetCollectionSubtype`); raw values are PhotoKit's.
public enum AssetCollectionSubtype: Int, Sendable, Hashable, Codable, CaseIterable {
    /// An album people made.
    case albumRegular = 2
    /// Videos.
    case smartAlbumVideos = 202
    /// Favourites.
    case smartAlbumFavorites = 203
    /// Assets added in the last 30 days, newest first.
    case smartAlbumRecentlyAdded = 206
    /// Every visible asset ("All Photos"), by creation date.
    case smartAlbumUserLibrary = 209
    /// Live Photos.
    case smartAlbumLivePhotos = 213
    /// Animated images (GIFs).
    case smartAlbumAnimated = 214
    /// Deleted assets that can still be restored or purged (PhotoKit keeps this one private).
    case smartAlbumRecentlyDeleted = 1_000_000_201
    /// Matches every subtype when fetching.
    case any = 9_223_372_036_854_775_807
}
