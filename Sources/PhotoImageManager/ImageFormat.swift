/// The encodings the image manager hands out.
public enum ImageFormat: String, Sendable, Hashable, CaseIterable {
    case jpeg, webp

    public var mimeType: String { self == .jpeg ? "image/jpeg" : "image/webp" }

    /// The encoder quality photodrop uses: 85 for JPEG (the stored preview's), 80 for WebP (the thumbnail's).
    public var quality: Int { self == .jpeg ? 85 : 80 }

    /// The format of a MIME type photodrop stores derivatives in.
    public init?(mimeType: String) {
        switch mimeType {
        case "image/jpeg": self = .jpeg
        case "image/webp": self = .webp
        default: return nil
        }
    }
}
