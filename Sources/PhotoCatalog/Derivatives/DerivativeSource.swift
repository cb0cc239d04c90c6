import FoundationEssentials

/// The stored original an asset's derivatives are made from: its current version (the edited rendition when there is
/// one, else the photo or video).
public struct DerivativeSource: Sendable, Hashable {
    public let assetLocalIdentifier: String
    public let mediaType: AssetMediaType
    /// The role of the file (`.photo`, `.video`, `.fullSizePhoto`, `.fullSizeVideo`).
    public let resourceType: AssetResourceType
    public let uniformTypeIdentifier: String?
    public let mimeType: String?
    public let originalFilename: String
    public let sha256: String
    public let byteCount: Int64
    /// The path relative to the library folder (`originals/xx/<uuid>.<ext>`).
    public let relativePath: String
    /// The asset's pixel size (0 when unknown), which says about how much decoding it costs.
    public let pixelWidth: Int
    public let pixelHeight: Int
    /// Where the list of sources continues (``PhotoLibrary/derivativeSources(_:after:limit:)``).
    public let cursor: Int64
}
