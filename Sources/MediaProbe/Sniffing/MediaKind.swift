/// The kind of asset an accepted file becomes in the library, as PhotoKit's media types see it.
///
/// GIFs are their own kind (PhotoKit files them as images with the `animated` subtype; photodrop keeps them apart so
/// that their bytes are stored untouched and they land in the Animated smart album).
public enum MediaKind: String, Sendable, Hashable, Codable, CaseIterable {
    /// A still (or animated WebP/AVIF/PNG) image: JPEG, HEIC/HEIF, AVIF, PNG, TIFF, WebP, BMP or camera RAW.
    case photo
    /// A GIF, animated or not.
    case gif
    /// A QuickTime/ISO-BMFF movie that Apple devices play.
    case video
}
