import FoundationEssentials

/// A thumbnail or preview the library keeps of an asset, or the error that stopped it from being made.
///
/// Recorded with the SHA-256 of the original it was made from: when that original is replaced (a repair, the JPEG of
/// a RAW+JPEG pair arriving late), the derivative is out of date and is made again.
public struct Derivative: Sendable, Hashable {
    /// The stored picture.
    public struct File: Sendable, Hashable {
        /// `image/webp` or `image/jpeg`.
        public let mimeType: String
        public let pixelWidth: Int
        public let pixelHeight: Int
        public let byteCount: Int64
        /// The SHA-256 of the file's bytes, lowercase hex: what versions the file's URLs.
        public let sha256: String
        /// The path relative to the library folder.
        public let relativePath: String
        /// The library folder (kept, so that ``fileURL`` is only built when someone asks: a server answering a
        /// picture opens it by ``relativePath`` beneath the library and never needs the URL).
        let libraryURL: URL

        init(
            mimeType: String, pixelWidth: Int, pixelHeight: Int, byteCount: Int64, sha256: String, libraryURL: URL,
            relativePath: String
        ) {
            self.mimeType = mimeType
            self.pixelWidth = pixelWidth
            self.pixelHeight = pixelHeight
            self.byteCount = byteCount
            self.sha256 = sha256
            self.libraryURL = libraryURL
            self.relativePath = relativePath
        }

        /// `Library/derivatives/xx/<asset-uuid>-<kind>-<hash>.<ext>`.
        public var fileURL: URL { libraryURL.appendingPathComponent(relativePath) }
    }

    /// The asset's local identifier.
    public let assetLocalIdentifier: String
    public let kind: DerivativeKind
    /// The SHA-256 of the original it was made from.
    public let sourceSHA256: String
    /// When it was made (or failed).
    public let creationDate: Date
    /// The picture, or nil when making it failed.
    public let file: File?
    /// Why it could not be made (the decoder's message), when it failed.
    public let failure: String?
}
