import FoundationEssentials

/// An image the manager delivers: encoded bytes (JPEG or WebP) and their pixel size. On Linux there is no UIImage;
/// decode the bytes with any image library, or ask the render helper for RGBA.
public struct ImageResult: Sendable, Equatable {
    public var data: Data
    public var mimeType: String
    public var pixelWidth: Int
    public var pixelHeight: Int
    /// Where it came from: a stored derivative (`thumbnail`, `preview`) or `original`, or `resized` from one of them.
    public var origin: String

    public init(data: Data, mimeType: String, pixelWidth: Int, pixelHeight: Int, origin: String) {
        self.data = data
        self.mimeType = mimeType
        self.pixelWidth = pixelWidth
        self.pixelHeight = pixelHeight
        self.origin = origin
    }
}

/// What comes with each result (PhotoKit's info dictionary, typed).
public struct ImageResultInfo: Sendable, Equatable {
    public var requestID: ImageRequestID
    /// A fast, lower-quality result; the final one follows (``ImageRequestOptions/DeliveryMode/opportunistic``).
    public var isDegraded: Bool
    /// The request was cancelled; no more results follow.
    public var isCancelled: Bool
    /// Why there is no image, when there is none.
    public var error: ImageManagerError?
}

/// Identifies a request for ``ImageManager/cancelImageRequest(_:)`` (`PHImageRequestID`).
public struct ImageRequestID: Sendable, Hashable, Comparable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
    public var description: String { "\(rawValue)" }
}
