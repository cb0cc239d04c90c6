import FoundationEssentials

/// Counts and sizes of a library at one moment (one read transaction), for status displays.
///
/// Asset counts by kind include hidden assets and leave out those in Recently Deleted, which are counted apart.
public struct LibraryStatistics: Sendable, Hashable {
    /// Photos (still images, Live Photos, animated WebP/PNG/HEIF), not deleted.
    public var photoCount: Int
    /// GIFs, not deleted.
    public var gifCount: Int
    /// Videos, not deleted.
    public var videoCount: Int
    /// Live Photos among the photos.
    public var livePhotoCount: Int
    /// Favourites, not deleted.
    public var favoriteCount: Int
    /// Hidden assets, not deleted.
    public var hiddenCount: Int
    /// Assets in Recently Deleted.
    public var recentlyDeletedCount: Int
    /// Regular albums (smart albums not counted).
    public var albumCount: Int
    /// Stored originals (resources), including those of assets in Recently Deleted.
    public var originalCount: Int
    /// Their total size in bytes, as the catalog records it.
    public var originalBytes: Int64
    /// The newest change: its token (value 0 when the library has no history yet).
    public var latestChangeToken: PersistentChangeToken
    /// When the newest change still in the history committed; nil when there is none.
    public var latestChangeDate: Date?
    /// Entries of the application journal by kind (e.g. the ingest pipeline's `claim`s in flight).
    public var journalEntryCounts: [String: Int]

    /// Assets not in Recently Deleted, all kinds.
    public var assetCount: Int { photoCount + gifCount + videoCount }
}
