/// What kind of media an asset holds (`PHAssetMediaType`).
public enum AssetMediaType: Int, Sendable, Hashable, Codable, CaseIterable {
    case unknown = 0
    case image = 1
    case video = 2
    case audio = 3
}
