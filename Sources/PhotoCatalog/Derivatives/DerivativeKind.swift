/// The pictures photodrop keeps beside an asset's original so that nothing that shows the library has to decode HEIC,
/// RAW or video itself (a photodrop addition; PhotoKit keeps its own in a private cache).
public enum DerivativeKind: Int, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    /// Fits in 512 × 512 pixels, WebP: grids and lists.
    case thumbnail = 1
    /// Fits in 1,440 × 1,440 pixels, JPEG: one photo on a screen.
    case preview = 2

    /// The name the command line, JSON and stored file names use.
    public var name: String {
        switch self {
        case .thumbnail: "thumbnail"
        case .preview: "preview"
        }
    }

    /// The kind named `name` (``name``), or nil.
    public init?(name: String) {
        guard let kind = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = kind
    }

    /// The longest side, in pixels, of a derivative of this kind (smaller originals are never enlarged).
    public var longestSide: Int {
        switch self {
        case .thumbnail: 512
        case .preview: 1440
        }
    }

    public var description: String { name }
}
