/// How an image request is served (`PHImageRequestOptions`).
public struct ImageRequestOptions: Sendable, Equatable {
    /// Speed against quality (`PHImageRequestOptionsDeliveryMode`).
    public enum DeliveryMode: Sendable, Hashable {
        /// A fast, degraded result first (the stored thumbnail, when the target is larger), then the final one.
        case opportunistic
        /// Only the final result, at the quality asked for.
        case highQualityFormat
        /// Only a fast result: the nearest stored derivative, possibly smaller than the target.
        case fastFormat
    }

    /// How exactly the result matches the target size (`PHImageRequestOptionsResizeMode`).
    public enum ResizeMode: Sendable, Hashable {
        /// The picture as stored, whatever its size: the smallest stored derivative that covers the target.
        case none
        /// About the target size: a stored derivative when it is within a quarter of it, else resized.
        case fast
        /// Exactly fitting (or filling) the target size, never enlarged.
        case exact
    }

    /// Which rendition (`PHImageRequestOptionsVersion`).
    public enum Version: Sendable, Hashable {
        /// The asset as it looks now: the edited rendition when there is one.
        case current
        /// The unedited original.
        case original
    }

    public var deliveryMode: DeliveryMode
    public var resizeMode: ResizeMode
    public var version: Version
    /// The part of the picture to show, in 0…1 of its upright width and height (x, y, width, height); nil for all
    /// of it. Honoured with ``ResizeMode/exact``.
    public var normalizedCropRect: NormalizedRect?
    /// The format of a resized result: WebP (smaller, with alpha) or JPEG.
    public var format: ImageFormat

    public init(
        deliveryMode: DeliveryMode = .opportunistic, resizeMode: ResizeMode = .fast, version: Version = .current,
        normalizedCropRect: NormalizedRect? = nil, format: ImageFormat = .jpeg
    ) {
        self.deliveryMode = deliveryMode
        self.resizeMode = resizeMode
        self.version = version
        self.normalizedCropRect = normalizedCropRect
        self.format = format
    }
}
