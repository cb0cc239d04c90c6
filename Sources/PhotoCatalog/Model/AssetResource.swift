import FoundationEssentials

/// One stored original of an asset (`PHAssetResource`): its role, where it lives, what it is.
public struct AssetResource: Sendable, Hashable {
    /// The role of the file within the asset.
    public let type: AssetResourceType
    /// The identifier of the asset it belongs to.
    public let assetLocalIdentifier: String
    /// The file's name when it was added (e.g. `IMG_0001.HEIC`).
    public let originalFilename: String
    /// The uniform type identifier (e.g. `public.jpeg`), when known.
    public let uniformTypeIdentifier: String?
    /// The MIME type (e.g. `image/jpeg`), when known.
    public let mimeType: String?
    /// The SHA-256 of the file's bytes, lowercase hex.
    public let sha256: String
    /// The file's size in bytes.
    public let byteCount: Int64
    /// The stored original: `Library/originals/xx/<uuid>.<ext>`.
    public let fileURL: URL
    /// The path of the stored original relative to the library folder.
    let relativePath: String
}
