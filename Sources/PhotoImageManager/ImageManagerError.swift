/// Why the image manager has no picture of an asset.
public enum ImageManagerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The asset does not exist (any more), or has no photo or video.
    case noSuchAsset(String)
    /// The decoders could not read its original (recorded as a derivative failure).
    case undecodable(String)
    /// The render helper is not available; nothing could be rendered.
    case unavailable(String)
    /// The request was malformed (a crop outside the picture, a zero size).
    case invalidRequest(String)

    public var description: String {
        switch self {
        case .noSuchAsset(let id): "there is no asset \(id) with a photo or video in the library"
        case .undecodable(let message): message
        case .unavailable(let message): message
        case .invalidRequest(let message): message
        }
    }
}
