/// The pictures photodrop keeps beside an asset's original so that nothing that shows the library has to decode HEIC,
/// RAW or video itself (a photodrop addition; PhotoKit keeps its own in a private cache).
public enum DerivativeKind: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Fits in 512 × 512 pixels, WebP: grids and lists.
    case thumbnail = 1
    /// Fits in 1,440 × 1,440 pixels, JPEG: one photo on a screen.
    case preview = 2
    /// H.264 in MP4, at most 720 pixels on its short side: a video (or a Live Photo's motion) that a browser cannot
    /// play as it is (HEVC, ProRes, Motion JPEG). Made from the asset's video or paired movie.
    case playableVideo = 3

    /// The two pictures every asset gets.
    public static let pictures: [DerivativeKind] = [.thumbnail, .preview]

    /// The name the command line, JSON and stored file names use.
    public var name: String {
        switch self {
        case .thumbnail: "thumbnail"
        case .preview: "preview"
        case .playableVideo: "video"
        }
    }

    /// The kind named `name` (``name``), or nil.
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }

    /// The longest side, in pixels, of a derivative of this kind (smaller originals are never enlarged); for a
    /// playable video, its short side.
    public var longestSide: Int {
        switch self {
        case .thumbnail: 512
        case .preview: 1440
        case .playableVideo: 720
        }
    }

    public var description: String { name }
}
