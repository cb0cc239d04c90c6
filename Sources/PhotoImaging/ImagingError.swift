/// Why an image could not be made. The decoders run on untrusted files: every failure is one of these, never a
/// crash, and says what to do.
public enum ImagingError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libvips could not start (its modules or its type system); nothing can be decoded in this process.
    case unavailable(String)
    /// No loader takes the content (or the one that would is not safe for untrusted input).
    case unsupported(String)
    /// The header claims more pixels than ``DerivativeRenderer/maximumPixels``: refused before decoding.
    case tooManyPixels(width: Int, height: Int, limit: Int)
    /// The decoder or encoder failed on this file (truncated, damaged); libvips's words.
    case decodeFailed(String)

    public var description: String {
        switch self {
        case .unavailable(let detail):
            return "libvips could not start (\(detail)); check that the libvips42 package is installed completely"
        case .unsupported(let detail):
            return "not an image format photodrop decodes (\(detail))"
        case .tooManyPixels(let width, let height, let limit):
            return "the image claims \(width) × \(height) pixels, more than the \(limit) photodrop decodes; "
                + "it is kept as it is, without thumbnails"
        case .decodeFailed(let detail):
            return "the image could not be decoded (\(detail)); the file may be truncated or damaged"
        }
    }
}
