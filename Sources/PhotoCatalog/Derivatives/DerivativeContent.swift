import FoundationEssentials

/// What a caller hands ``PhotoLibrary/storeDerivatives(_:)``: a rendered picture of an asset, or why none could be
/// rendered. The library itself never decodes anything.
public struct DerivativeContent: Sendable {
    /// The picture's bytes and what they are.
    public struct Picture: Sendable {
        public var data: Data
        /// `image/webp` or `image/jpeg`: decides the stored file's extension.
        public var mimeType: String
        public var pixelWidth: Int
        public var pixelHeight: Int

        public init(data: Data, mimeType: String, pixelWidth: Int, pixelHeight: Int) {
            self.data = data
            self.mimeType = mimeType
            self.pixelWidth = pixelWidth
            self.pixelHeight = pixelHeight
        }
    }

    public var assetLocalIdentifier: String
    public var kind: DerivativeKind
    /// The SHA-256 of the original it was made from (``DerivativeSource/sha256``): when the asset's original has
    /// changed since, nothing is stored.
    public var sourceSHA256: String
    /// The picture, or the error that stopped it from being made.
    public var result: Result<Picture, DerivativeFailure>

    public init(
        assetLocalIdentifier: String, kind: DerivativeKind, sourceSHA256: String,
        result: Result<Picture, DerivativeFailure>
    ) {
        self.assetLocalIdentifier = assetLocalIdentifier
        self.kind = kind
        self.sourceSHA256 = sourceSHA256
        self.result = result
    }
}

/// Why a derivative could not be made: recorded, so that a file no decoder can read is not tried again and again.
public struct DerivativeFailure: Error, Sendable, Hashable {
    public var message: String

    public init(_ message: String) { self.message = message }
}
