/// Albums made by people versus smart albums computed by queries (`PHAssetCollectionType`).
public enum AssetCollectionType: Int, Sendable, Hashable, Codable, CaseIterable {
    /// An album that people create, rename and fill.
    case album = 1
    /// A collection computed from asset properties (All Photos, Favorites, …); it cannot be edited.
    case smartAlbum = 2
}
