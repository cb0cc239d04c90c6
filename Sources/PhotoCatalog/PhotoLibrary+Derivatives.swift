import FoundationEssentials
import PhotodropSystem

/// Thumbnails and previews kept beside the originals (a photodrop addition). The library never decodes anything: a
/// caller (photodrop's imaging layer) renders the pictures and hands them over with ``storeDerivatives(_:)``.
extension PhotoLibrary {
    /// The folder of stored derivatives.
    public var derivativesURL: URL { url.appendingPathComponent(DerivativeFiles.folderName, isDirectory: true) }

    /// The derivatives recorded for assets, by local identifier (each asset's in kind order). Includes derivatives
    /// made from an earlier original: compare ``Derivative/sourceSHA256`` with the current ``DerivativeSource``.
    public func derivatives(ofAssets identifiers: [String]) throws -> [String: [Derivative]] {
        let uuids = identifiers.compactMap(LocalIdentifier.assetUUID)
        guard !uuids.isEmpty else { return [:] }
        let rows =
            try read("read derivatives") { database in
                try database.rows(
                    """
                    SELECT a.uuid, d.kind, d.source_sha256, d.created_at, d.path, d.sha256, d.byte_count, d.mime_type,
                           d.pixel_width, d.pixel_height, d.failure
                    FROM assets a JOIN derivatives d ON d.asset_id = a.id
                    WHERE a.uuid IN (SELECT value FROM json_each(?)) ORDER BY a.uuid, d.kind
                    """, [.text(AssetQuery.jsonArray(uuids))]
                ) { row in self.derivative(from: row) }
            } ?? []
        var result: [String: [Derivative]] = [:]
        for derivative in rows.compactMap({ $0 }) {
            result[derivative.assetLocalIdentifier, default: []].append(derivative)
        }
        return result
    }

    /// The derivatives recorded for one asset, in kind order.
    public func derivatives(ofAsset identifier: String) throws -> [Derivative] {
        try derivatives(ofAssets: [identifier])[identifier] ?? []
    }

    /// The original an asset's derivatives are made from, or nil when the asset does not exist or has no photo or
    /// video (nothing to render). With `unedited`, the photo or video as it was taken even when an edited rendition
    /// is stored (PhotoKit's `.original` version).
    public func derivativeSource(ofAsset identifier: String, unedited: Bool = false) throws -> DerivativeSource? {
        guard let uuid = LocalIdentifier.assetUUID(identifier) else { return nil }
        let found = try read("find the original of \(identifier)") { database -> DerivativeSource? in
            let query = Self.sourceQuery(where: "a.uuid = ?", preferEdited: !unedited)
            let row = try database.firstRow(query, [.text(uuid)]) {
                self.source(from: $0)
            }
            return row ?? nil
        }
        return found ?? nil
    }

    /// Which assets ``derivativeSources(_:after:limit:)`` lists.
    public enum DerivativeSelection: Sendable {
        /// Assets without a derivative of every kind made from their current original (a recorded failure counts as
        /// made): what ingestion leaves to do.
        case missing
        /// Also assets whose recorded derivative file is missing or not its recorded size (`verify` reports them).
        case missingOrDamaged
        /// Every asset with a photo or video (a rebuild).
        case all
    }

    /// One page of ``derivativeSources(_:after:limit:)``.
    public struct DerivativeSourcePage: Sendable {
        /// The assets of the page that need derivatives.
        public var sources: [DerivativeSource]
        /// Where the next page starts, or nil after the last page.
        public var nextCursor: Int64?
        /// How many assets the page looked at (for progress).
        public var examined: Int
    }

    /// Assets in the order they were added that need derivatives, looking at up to `limit` assets after `cursor` (0
    /// for the first page). Assets in Recently Deleted are included (they are still shown there).
    public func derivativeSources(_ selection: DerivativeSelection, after cursor: Int64, limit: Int) throws
        -> DerivativeSourcePage
    {
        let kinds = DerivativeKind.pictures
        var condition = "a.id > ?"
        if selection == .missing { condition += " AND " + Self.lacksPictures }
        let rows =
            try read("list assets without derivatives") { database in
                try database.rows(
                    Self.sourceQuery(where: condition) + " ORDER BY a.id LIMIT ?",
                    [.integer(cursor), .integer(Int64(limit))]
                ) { self.source(from: $0) }
            }?.compactMap { $0 } ?? []
        let next = rows.count < limit ? nil : rows.last?.cursor
        guard selection == .missingOrDamaged else {
            return DerivativeSourcePage(sources: rows, nextCursor: next, examined: rows.count)
        }
        let recorded = try derivatives(ofAssets: rows.map(\.assetLocalIdentifier))
        let library = try? Directory.open(atPath: url.path)
        let needing = rows.filter { source in
            let made = recorded[source.assetLocalIdentifier] ?? []
            return kinds.contains { kind in
                guard let derivative = made.first(where: { $0.kind == kind }),
                    derivative.sourceSHA256 == source.sha256
                else { return true }
                guard let file = derivative.file else { return false }  // a recorded failure
                guard let library else { return true }
                return !DerivativeFiles.isIntact(file, in: library)
            }
        }
        return DerivativeSourcePage(sources: needing, nextCursor: next, examined: rows.count)
    }

    /// Those of the assets `identifiers` that lack a derivative made from their current original (a recorded failure
    /// counts as made), in the order they were added.
    public func derivativeSources(missingFor identifiers: [String]) throws -> [DerivativeSource] {
        let uuids = identifiers.compactMap(LocalIdentifier.assetUUID)
        guard !uuids.isEmpty else { return [] }
        let condition = "a.uuid IN (SELECT value FROM json_each(?)) AND " + Self.lacksPictures
        return try read("list assets without derivatives") { database in
            try database.rows(
                Self.sourceQuery(where: condition) + " ORDER BY a.id", [.text(AssetQuery.jsonArray(uuids))]
            ) {
                self.source(from: $0)
            }
        }?.compactMap { $0 } ?? []
    }

    /// How many assets have a photo or video to make derivatives of (the whole of a rebuild).
    public func derivativeSourceCount() throws -> Int {
        Int(
            try read("count assets") { database in
                try database.int64(
                    "SELECT count(*) FROM assets a WHERE EXISTS "
                        + "(SELECT 1 FROM resources s WHERE s.asset_id = a.id AND s.type IN (1, 2, 5, 6))") ?? 0
            } ?? 0)
    }

    /// Opens a stored original for reading, beneath the library folder and without following links: the descriptor a
    /// decoder reads (never a path).
    public func openOriginal(_ source: DerivativeSource) throws -> FileDescriptor {
        try openStoredFile(source.relativePath, of: source.assetLocalIdentifier)
    }

    /// Opens any stored file of an asset (a paired movie, say) the way ``openOriginal(_:)`` does.
    public func openResource(_ resource: AssetResource) throws -> FileDescriptor {
        try openStoredFile(resource.relativePath, of: resource.assetLocalIdentifier)
    }

    private func openStoredFile(_ relativePath: String, of asset: String) throws -> FileDescriptor {
        do throws(SystemError) {
            let library = try Directory.open(atPath: url.path)
            return try library.open(relativePath, flags: [.readOnly, .noControllingTerminal, .nonBlocking])
        } catch {
            throw error.photosError(action: "open the original of \(asset)")
        }
    }

    /// The library folder as opened within the last second (opened again after that, or when it cannot be), from
    /// the calling thread's shard.
    func recentLibraryFolder() -> Directory? {
        let now = ContinuousClock.now
        var hasher = Hasher()
        hasher.combine(SystemThread.currentHandle)
        let shard = derivativeFolders[Int(UInt(bitPattern: hasher.finalize()) % UInt(derivativeFolders.count))]
        if let cached = shard.cached.withLock({ $0 }), cached.until > now { return cached.folder }
        guard let folder = try? Directory.open(atPath: folderPath) else {
            shard.cached.withLock { $0 = nil }
            return nil
        }
        shard.cached.withLock { $0 = (folder, now + .seconds(1)) }
        return folder
    }

    /// Opens a derivative's file for reading, beneath the library folder and without following links; nil when it
    /// is missing or not its recorded size (lost in a crash: make it again).
    public func openDerivative(_ file: Derivative.File) -> FileDescriptor? {
        guard let library = recentLibraryFolder(),
            let descriptor = try? library.open(file.relativePath, flags: [.readOnly, .noControllingTerminal, .nonBlocking]),
            let info = try? descriptor.status(), DerivativeFiles.isIntact(file, info)
        else { return nil }
        return descriptor
    }

    /// Stores rendered derivatives (and records failures) in one transaction: files are written first (by the
    /// calling thread, not the writer), then recorded. A derivative whose asset is gone, or whose original changed
    /// since it was rendered, is dropped. Replaced files are removed after the commit.
    ///
    /// - Returns: what was recorded.
    @discardableResult
    public func storeDerivatives(_ contents: [DerivativeContent]) async throws -> [Derivative] {
        guard !contents.isEmpty else { return [] }
        let prepared = try writeDerivativeFiles(contents)
        let now = Date()
        let (recorded, unused) = try await writer.run { try self.recordDerivatives(prepared, at: now) }
        for path in unused { DerivativeFiles.remove(path, library: prepared.library) }
        return recorded
    }

    /// ``storeDerivatives(_:)`` for a thread that may block (a render thread): waits for the writer.
    @discardableResult
    public func storeDerivativesAndWait(_ contents: [DerivativeContent]) throws -> [Derivative] {
        guard !contents.isEmpty else { return [] }
        let prepared = try writeDerivativeFiles(contents)
        let (recorded, unused) = try writer.sync { try self.recordDerivatives(prepared, at: Date()) }
        for path in unused { DerivativeFiles.remove(path, library: prepared.library) }
        return recorded
    }

    /// Derivative files written and waiting to be recorded.
    private struct PreparedDerivatives: @unchecked Sendable {
        var library: Directory
        var entries: [(content: DerivativeContent, file: Derivative.File?)]
    }

    /// Writes the pictures' files (on the calling thread, not the writer's).
    private func writeDerivativeFiles(_ contents: [DerivativeContent]) throws -> PreparedDerivatives {
        let library: Directory
        do throws(SystemError) { library = try Directory.open(atPath: url.path) } catch {
            throw error.photosError(action: "store derivatives")
        }
        var written: [(content: DerivativeContent, file: Derivative.File?)] = []
        for content in contents {
            guard let uuid = LocalIdentifier.assetUUID(content.assetLocalIdentifier) else { continue }
            switch content.result {
            case .failure:
                written.append((content, nil))
            case .success(let picture):
                let digest: String
                do { digest = try SHA256.digest(of: picture.data).description } catch {
                    throw PhotosError(.internalError, title: "Hashing failed", message: "\(error)")
                }
                let relative = DerivativeFiles.relativePath(
                    assetUUID: uuid, kind: content.kind, sha256: digest, mimeType: picture.mimeType)
                do throws(SystemError) {
                    try DerivativeFiles.store(picture.data, to: relative, library: library, permissions: permissions)
                } catch {
                    for entry in written {
                        if let file = entry.file { DerivativeFiles.remove(file.relativePath, library: library) }
                    }
                    throw error.photosError(action: "store the \(content.kind) of \(content.assetLocalIdentifier)")
                }
                let file = Derivative.File(
                    mimeType: picture.mimeType, pixelWidth: picture.pixelWidth, pixelHeight: picture.pixelHeight,
                    byteCount: Int64(picture.data.count), sha256: digest,
                    libraryURL: url, relativePath: relative)
                written.append((content, file))
            }
        }
        return PreparedDerivatives(library: library, entries: written)
    }

    /// On the writer: one transaction recording the prepared derivatives. On failure their files are removed.
    private func recordDerivatives(_ prepared: PreparedDerivatives, at date: Date) throws -> ([Derivative], [String]) {
        let connection = try openWriter()
        do {
            try connection.checkLibraryInPlace()
            return try connection.database.inTransaction(.immediate) {
                try Self.record(prepared.entries, at: date, in: connection.database, library: self)
            }
        } catch {
            for entry in prepared.entries {
                if let file = entry.file { DerivativeFiles.remove(file.relativePath, library: prepared.library) }
            }
            throw connection.mapped(error, action: "record derivatives")
        }
    }

    /// Inside the writer's transaction: the rows of `entries`; returns what was recorded and the files no row refers
    /// to any more (replaced, or written for an asset that is gone or changed).
    private static func record(
        _ entries: [(content: DerivativeContent, file: Derivative.File?)], at date: Date, in database: Database,
        library: PhotoLibrary
    ) throws -> ([Derivative], [String]) {
        var recorded: [Derivative] = []
        var unused: [String] = []
        for (content, file) in entries {
            guard let uuid = LocalIdentifier.assetUUID(content.assetLocalIdentifier),
                let (rowID, currentSource) = try database.firstRow(
                    sourceQuery(where: "a.uuid = ?"), [.text(uuid)], row: { ($0.int64(0), $0.string(7)) }),
                try currentSource == content.sourceSHA256
                    || content.kind == .playableVideo && hasMovie(content.sourceSHA256, asset: rowID, in: database)
            else {
                if let file { unused.append(file.relativePath) }
                continue
            }
            let previous = try database.firstRow(
                "SELECT path FROM derivatives WHERE asset_id = ? AND kind = ?",
                [.integer(rowID), .integer(Int64(content.kind.rawValue))]
            ) { $0.optionalString(0) } ?? nil
            if let previous, previous != file?.relativePath { unused.append(previous) }
            var failure: String?
            if case .failure(let error) = content.result { failure = error.message }
            try database.run(
                """
                INSERT INTO derivatives(asset_id, kind, source_sha256, created_at, path, sha256, byte_count,
                    mime_type, pixel_width, pixel_height, failure)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT(asset_id, kind) DO UPDATE SET source_sha256 = excluded.source_sha256,
                    created_at = excluded.created_at, path = excluded.path, sha256 = excluded.sha256,
                    byte_count = excluded.byte_count, mime_type = excluded.mime_type,
                    pixel_width = excluded.pixel_width, pixel_height = excluded.pixel_height, failure = excluded.failure
                """,
                [
                    .integer(rowID), .integer(Int64(content.kind.rawValue)), .text(content.sourceSHA256),
                    .real(date.timeIntervalSince1970), file.map { .text($0.relativePath) } ?? .null,
                    file.map { .text($0.sha256) } ?? .null, file.map { .integer($0.byteCount) } ?? .null,
                    file.map { .text($0.mimeType) } ?? .null, file.map { .integer(Int64($0.pixelWidth)) } ?? .null,
                    file.map { .integer(Int64($0.pixelHeight)) } ?? .null, failure.map { .text($0) } ?? .null,
                ])
            recorded.append(
                Derivative(
                    assetLocalIdentifier: content.assetLocalIdentifier, kind: content.kind,
                    sourceSHA256: content.sourceSHA256, creationDate: date, file: file, failure: failure))
        }
        return (recorded, unused)
    }

    /// Whether the asset's video, edited video or paired movie has this SHA-256 (a playable video's source).
    private static func hasMovie(_ sha256: String, asset rowID: Int64, in database: Database) throws -> Bool {
        try database.int64(
            "SELECT 1 FROM resources WHERE asset_id = ? AND sha256 = ? AND type IN (2, 6, 9) LIMIT 1",
            [.integer(rowID), .text(sha256)]) != nil
    }

    /// Removes files under `derivatives/` that no row refers to and that were last written more than `age` ago (a
    /// younger one may belong to a derivative another process is storing right now). Returns how many were removed.
    @discardableResult
    public func removeOrphanDerivatives(olderThan age: TimeInterval = 600) throws -> Int {
        guard let library = try? Directory.open(atPath: folderPath),
            let root = try? library.directory(DerivativeFiles.folderName)
        else { return 0 }
        var candidates: [String] = []
        let cutoff = Date().timeIntervalSince1970 - age
        for item in DirectoryWalker(root: root, descend: { _, _ in true }) {
            guard case .entry(let entry, let relative, let folder) = item, entry.type == .regular,
                let info = try? folder.status(entry.name), Double(info.modification.seconds) < cutoff
            else { continue }
            candidates.append(DerivativeFiles.folderName + "/" + relative)
        }
        guard !candidates.isEmpty else { return 0 }
        let referenced = Set(
            try read("list derivative files") { database in
                try database.rows("SELECT path FROM derivatives WHERE path IS NOT NULL") { $0.string(0) }
            } ?? [])
        var removed = 0
        for path in candidates where !referenced.contains(path) {
            DerivativeFiles.remove(path, library: library)
            removed += 1
        }
        return removed
    }

    // MARK: Rows

    /// For ``sourceQuery(where:preferEdited:)``: the asset lacks a picture (``DerivativeKind/pictures``) made from its
    /// current original `r`; a recorded failure counts as made. The correlated count reads the derivatives' primary
    /// key.
    static let lacksPictures: String = {
        let kinds = DerivativeKind.pictures.map { String($0.rawValue) }.joined(separator: ", ")
        return """
            (SELECT count(*) FROM derivatives d WHERE d.asset_id = a.id AND d.kind IN (\(kinds))
             AND d.source_sha256 = r.sha256) < \(DerivativeKind.pictures.count)
            """
    }()

    /// Columns: 0 row id, 1 uuid, 2 media type, 3 resource type, 4 UTI, 5 MIME type, 6 file name, 7 SHA-256,
    /// 8 byte count, 9 path. `r` is the asset's current original: an edited rendition first, else the photo or video.
    static func sourceQuery(where condition: String, preferEdited: Bool = true) -> String {
        """
        SELECT a.id, a.uuid, a.media_type, r.type, r.uniform_type_identifier, r.mime_type, r.original_filename,
               r.sha256, r.byte_count, r.path, a.pixel_width, a.pixel_height
        FROM assets a JOIN resources r ON r.id = (
            SELECT s.id FROM resources s WHERE s.asset_id = a.id AND s.type IN (1, 2, 5, 6)
            ORDER BY s.type IN (5, 6) \(preferEdited ? "DESC" : "ASC"), s.type, s.id LIMIT 1)
        WHERE \(condition)
        """
    }

    private func source(from row: Statement) -> DerivativeSource? {
        guard let mediaType = AssetMediaType(rawValue: Int(row.int64(2))),
            let resourceType = AssetResourceType(rawValue: Int(row.int64(3)))
        else { return nil }
        return DerivativeSource(
            assetLocalIdentifier: LocalIdentifier.asset(uuid: row.string(1)), mediaType: mediaType,
            resourceType: resourceType, uniformTypeIdentifier: row.optionalString(4), mimeType: row.optionalString(5),
            originalFilename: row.string(6), sha256: row.string(7), byteCount: row.int64(8),
            relativePath: row.string(9), pixelWidth: Int(row.int64(10)), pixelHeight: Int(row.int64(11)),
            cursor: row.int64(0))
    }

    private func derivative(from row: Statement) -> Derivative? {
        guard let kind = DerivativeKind(rawValue: Int(row.int64(1))) else { return nil }
        var file: Derivative.File?
        if let path = row.optionalString(4) {
            file = Derivative.File(
                mimeType: row.optionalString(7) ?? "application/octet-stream", pixelWidth: Int(row.int64(8)),
                pixelHeight: Int(row.int64(9)), byteCount: row.int64(6), sha256: row.optionalString(5) ?? "",
                libraryURL: url, relativePath: path)
        }
        return Derivative(
            assetLocalIdentifier: LocalIdentifier.asset(uuid: row.string(0)), kind: kind,
            sourceSHA256: row.string(2), creationDate: Date(timeIntervalSince1970: row.double(3)), file: file,
            failure: row.optionalString(10))
    }
}
