import FoundationEssentials
import PhotodropSystem

/// Answers "is this content already in the library?" for many files in a row, cheaply: one read connection and one
/// prepared statement, reused for every lookup.
///
/// Made for batch ingestion, which hashes a file anyway and can skip everything else when the answer is yes (a second
/// `import` of the same tree). The answer may be stale by the time the caller acts on it; a creation request with the
/// same SHA-256 still resolves duplicates exactly. A library that does not exist yet stores nothing: lookups return
/// nil and nothing is created.
///
/// Confined to one thread at a time (it owns a SQLite connection): one per worker, deliberately not `Sendable`.
public final class ContentLookup {
    /// What the library stores for a SHA-256.
    public struct StoredContent: Sendable, Hashable {
        /// The asset's identifier.
        public let localIdentifier: String
        /// The stored resource's MIME type, if recorded.
        public let mimeType: String?
        /// Photo or video.
        public let mediaType: AssetMediaType
        /// How the asset plays: `.imageAnimated` for a GIF, `.livePhoto`, `.video`, `.image`.
        public let playbackStyle: AssetPlaybackStyle
        /// Whether the asset is in Recently Deleted.
        public let isDeleted: Bool
        /// Whether the asset is a member of the album bound to the key asked about (else, for a key without `/`, of
        /// the oldest unbound top-level album of that title); nil when none was asked.
        public let isInAlbum: Bool?
        /// Whether the stored original is there as recorded: a regular file of the recorded size, not found damaged
        /// by `verify --deep`. When it is not, a new copy of the content must not be thrown away as a duplicate: it
        /// repairs the asset (add it through `performChanges`).
        public let isOriginalIntact: Bool
    }

    private let connector: CatalogConnector
    private let libraryURL: URL
    private var database: Database?
    private var statement: Statement?
    private var membership: Statement?
    private var libraryFolder: Directory?

    /// A lookup into `library`; opens nothing until the first lookup.
    public init(library: PhotoLibrary) {
        self.connector = library.connector
        self.libraryURL = library.url
    }

    /// The asset storing content with this SHA-256 (64 lowercase hex digits), or nil.
    ///
    /// - Parameters:
    ///   - sha256: the content's SHA-256, 64 lowercase hex digits.
    ///   - bindingKey: also tell whether the asset is in the album bound to this key (see
    ///     ``AssetCollection/bindingKey``).
    /// - Throws: ``PhotosError`` when the database cannot be read.
    public func asset(withSHA256 sha256: String, bindingKey: String? = nil) throws -> StoredContent? {
        guard let statement = try prepared(), let membership else { return nil }
        defer {
            statement.reset()
            membership.reset()
        }
        do {
            try statement.bind(sha256, at: 1)
            guard try statement.step() else { return nil }
            let uuid = statement.string(0)
            var isInAlbum: Bool?
            if let bindingKey {
                try membership.bind(statement.int64(4), at: 1)
                try membership.bind(bindingKey, at: 2)
                isInAlbum = try membership.step()
            }
            return StoredContent(
                localIdentifier: LocalIdentifier.asset(uuid: uuid),
                mimeType: statement.isNull(1) ? nil : statement.string(1),
                mediaType: AssetMediaType(rawValue: statement.int(2)) ?? .unknown,
                playbackStyle: AssetPlaybackStyle(rawValue: statement.int(8)) ?? .unsupported,
                isDeleted: statement.bool(3), isInAlbum: isInAlbum,
                isOriginalIntact: statement.isNull(7)
                    && isIntact(path: statement.string(5), byteCount: statement.int64(6)))
        } catch let error as DatabaseError {
            self.statement = nil
            self.membership = nil
            self.database = nil
            throw PhotosError.database(error, action: "look up content \(sha256)", library: libraryURL.path)
        }
    }

    /// One `fstatat` below the library's open folder: a regular file of the recorded size.
    private func isIntact(path: String, byteCount: Int64) -> Bool {
        if libraryFolder == nil { libraryFolder = try? Directory.open(atPath: libraryURL.path) }
        guard let libraryFolder else { return false }
        guard let info = (try? libraryFolder.status(ofPath: path)) ?? nil else {
            return false
        }
        return info.isRegularFile && info.size == byteCount
    }

    private func prepared() throws -> Statement? {
        if let statement { return statement }
        if !connector.location.isPostgres, !FileManager.default.fileExists(atPath: connector.sqlitePath) { return nil }
        do {
            let database = try connector.openReader()
            if database.isPostgres {
                guard try PostgresSchema.version(of: database) > 0 else { return nil }
            } else {
                // Lookups touch a few index pages each; a small cache keeps every worker's connection cheap in memory.
                try database.execute("PRAGMA cache_size = -256")
            }
            let statement = try database.prepare(
                """
                SELECT a.uuid, r.mime_type, a.media_type, a.deleted_date IS NOT NULL, a.id, r.path, r.byte_count,
                    r.damage, a.playback_style
                FROM resources r JOIN assets a ON a.id = r.asset_id WHERE r.sha256 = ? LIMIT 1
                """)
            let membership = try database.prepare(
                """
                SELECT 1 FROM album_assets WHERE asset_id = ?1
                    AND album_id = coalesce(
                        (SELECT id FROM albums WHERE binding_key = ?2),
                        (SELECT id FROM albums WHERE instr(?2, '/') = 0 AND title = ?2 AND binding_key IS NULL
                            AND parent_id IS NULL ORDER BY id LIMIT 1))
                """)
            self.database = database
            self.statement = statement
            self.membership = membership
            return statement
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "open the library to look up content", library: libraryURL.path)
        }
    }
}

@available(*, unavailable, message: "a ContentLookup owns a database connection: make one per thread")
extension ContentLookup: Sendable {}
