/// The formats the renderer decodes, each with exactly one libvips loader: the caller says which one content
/// detection found, and no other loader ever sees the file (libvips's own guessing would try every loader it has).
public enum SourceFormat: String, Sendable, CaseIterable {
    case jpeg, png, webp, heif, tiff, gif, jxl

    /// The format of a MIME type photodrop's content detection reports; nil for anything else (RAW, video).
    public init?(mimeType: String) {
        switch mimeType.lowercased() {
        case "image/jpeg", "image/jpg": self = .jpeg
        case "image/png": self = .png
        case "image/webp": self = .webp
        case "image/heic", "image/heif", "image/avif", "image/heic-sequence", "image/heif-sequence": self = .heif
        case "image/tiff": self = .tiff
        case "image/gif": self = .gif
        case "image/jxl": self = .jxl
        default: return nil
        }
    }
}
