/// How an asset is meant to be shown (`PHAsset.PlaybackStyle`): GIFs are `.imageAnimated`.
public enum AssetPlaybackStyle: Int, Sendable, Hashable, Codable, CaseIterable {
    case unsupported = 0
    case image = 1
    case imageAnimated = 2
    case livePhoto = 3
    case video = 4
    case videoLooping = 5
}
