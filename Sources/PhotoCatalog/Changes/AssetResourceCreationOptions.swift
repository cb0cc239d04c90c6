import FoundationEssentials

/// How a file becomes a resource of a new asset (`PHAssetResourceCreationOptions`), with photodrop's additions for
/// callers that already know the file's type and hash.
public struct AssetResourceCreationOptions: Sendable, Hashable {
    /// Move the file into the library instead of copying it (`rename(2)` on one filesystem; copy, `fsync`, rename and
    /// removal of the source after the commit across filesystems). The default, like PhotoKit's, keeps the source.
    ///
    /// A duplicate's source is never moved or removed, even with this set: the caller decides what to do with it.
    public var shouldMoveFile: Bool
    /// The name the file had (default: the source URL's last path component).
    public var originalFilename: String?
    /// The uniform type identifier, e.g. `public.jpeg` (default: derived from ``mimeType`` or the extension).
    public var uniformTypeIdentifier: String?
    /// The MIME type, e.g. `image/gif` (default: derived from ``uniformTypeIdentifier`` or the extension). A
    /// `.photo` resource of type `image/gif` makes the asset a GIF (`.imageAnimated`).
    public var mimeType: String?
    /// The SHA-256 of the file's bytes as 64 lowercase hex characters. When given, the library trusts it and does not
    /// read the file again; when nil, the library hashes the file itself.
    public var contentSHA256: String?
    /// The extension of the stored original without a dot (default: the source URL's extension, lowercased).
    public var fileExtension: String?
    /// What `fstat` said about the file while the caller read it (for ``contentSHA256``). When given, the library
    /// trusts it as it trusts the hash and does not `stat` the file again; when nil, it looks at the file itself
    /// (and refuses anything but a regular file).
    public var fileStatus: ResourceFileStatus?

    /// Options; everything not given keeps PhotoKit's default (copy, names and types from the file).
    public init(
        shouldMoveFile: Bool = false, originalFilename: String? = nil, uniformTypeIdentifier: String? = nil,
        mimeType: String? = nil, contentSHA256: String? = nil, fileExtension: String? = nil,
        fileStatus: ResourceFileStatus? = nil
    ) {
        self.shouldMoveFile = shouldMoveFile
        self.originalFilename = originalFilename
        self.uniformTypeIdentifier = uniformTypeIdentifier
        self.mimeType = mimeType
        self.contentSHA256 = contentSHA256
        self.fileExtension = fileExtension
        self.fileStatus = fileStatus
    }
}

/// The facts about a regular file that a resource records: its size, where it lives (device and inode, which crash
/// recovery uses to tell a moved original from another file) and its modification time (the creation date of an
/// asset that has none of its own).
///
/// With ``links``, ``owner``, ``group`` and ``mode`` also given (what the same `fstat` said), the library does not look
/// at the file again before it moves it: it takes these for the checks that decide between taking the file over and
/// copying it (one link, an owner it may take over). A caller gives them only for a file nobody else can change
/// between its `fstat` and the commit (photodrop's own staging folder, mode 0700).
public struct ResourceFileStatus: Sendable, Hashable {
    public var byteCount: Int64
    public var device: UInt64
    public var inode: UInt64
    public var modificationDate: Date
    /// The link count, owner, group and permission bits, when the caller vouches for them (see the type).
    public var links: UInt64?
    public var owner: UInt32?
    public var group: UInt32?
    public var mode: UInt32?

    public init(
        byteCount: Int64, device: UInt64, inode: UInt64, modificationDate: Date, links: UInt64? = nil,
        owner: UInt32? = nil, group: UInt32? = nil, mode: UInt32? = nil
    ) {
        self.byteCount = byteCount
        self.device = device
        self.inode = inode
        self.modificationDate = modificationDate
        self.links = links
        self.owner = owner
        self.group = group
        self.mode = mode
    }
}
