import CSQLite
import FoundationEssentials
import PhotodropSystem

extension PhotoLibrary {
    /// Writes a consistent copy of the catalog to `path` with SQLite's online backup API, and returns what the copy
    /// records (a photodrop addition, for `photodrop backup`).
    ///
    /// The copy is made from a read connection of its own in one `sqlite3_backup_step(-1)`: one read transaction, so
    /// one snapshot, and in WAL mode a writer (a running `photodrop watch`) is never blocked by it. The copy is written
    /// under `path` + `.partial`, switched to the rollback journal (one self-contained file that a reader opens without
    /// creating `-wal` or `-shm` files), cleared of the placement intents of writers that were running (the copy
    /// holds no files in flight), then fsynced and renamed to `path`: a copy cut off midway never has the final name.
    /// Nothing is written into the library itself.
    ///
    /// - Parameter path: the database file to write; it must not exist, and its folder must.
    /// - Throws: ``PhotosError`` when there is no library, when its catalog has another schema version than this
    ///   photodrop writes (open it once with this photodrop first; a snapshot never upgrades the library), or when
    ///   SQLite or the file system fails.
    public func writeCatalogSnapshot(to path: String) throws -> CatalogSnapshot {
        let temporary = path + ".partial"
        let action = "copy the catalog to '\(path)'"
        if catalog.isPostgres {
            try exportPostgresCatalog(to: temporary, action: action)
        } else {
            try copySQLiteCatalog(to: temporary, action: action)
        }
        do {
            var snapshot = try PhotoLibrary.prepareSnapshot(at: temporary)
            for suffix in ["-journal", "-wal", "-shm"] { try FileSystem.remove(temporary + suffix) }
            let descriptor = try FileSystem.open(temporary, [.readOnly, .noFollow])
            try descriptor.sync(path: temporary)
            snapshot.databaseBytes = Int64(try descriptor.status(path: temporary).size)
            try FileSystem.rename(temporary, to: path)
            try FileSystem.syncDirectory(Path.parent(of: path))
            snapshot.databasePath = path
            return snapshot
        } catch {
            try? FileSystem.remove(temporary)
            throw snapshotFailure(error, action: action)
        }
    }

    /// A PostgreSQL catalog's snapshot: every table read in one `REPEATABLE READ` transaction (one snapshot, while
    /// the nodes go on writing) into a new SQLite catalog at `temporary`, then compared with the same snapshot row for
    /// row (``CatalogCopy``). The backup is thus a whole SQLite library: it opens as one, and `migrate --to postgres`
    /// puts it back into a database.
    private func exportPostgresCatalog(to temporary: String, action: String) throws {
        do {
            try FileSystem.remove(temporary)
            for suffix in ["-journal", "-wal", "-shm"] { try FileSystem.remove(temporary + suffix) }
            let source = try connector.openPostgres()
            let version = try PostgresSchema.version(of: source)
            guard version == PostgresSchema.latestVersion else {
                throw PhotosError(
                    .invalidParameter, title: "Library needs an upgrade",
                    message: "The PostgreSQL catalog (\(catalog)) has schema version \(version) and this photodrop "
                        + "writes version \(PostgresSchema.latestVersion). A backup never changes the library: start "
                        + "this photodrop's 'watch' on it once, or back it up with the photodrop that wrote it.")
            }
            let report = try CatalogCopy.copy(self, to: .sqlite, sqlitePath: temporary)
            guard report.isExact else {
                throw PhotosError(
                    .internalError, title: "Backup copy differs",
                    message: "The copy of the PostgreSQL catalog differs from the snapshot it was read from: "
                        + report.differences.joined(separator: "; ") + ". Nothing was kept; run the backup again.")
            }
            try FileSystem.open(temporary, [.readOnly, .noFollow]).setPermissions(permissions.databaseMode, path: temporary)
        } catch {
            try? FileSystem.remove(temporary)
            throw snapshotFailure(error, action: action)
        }
    }

    /// A SQLite catalog's snapshot at `temporary`: SQLite's online backup API.
    private func copySQLiteCatalog(to temporary: String, action: String) throws {
        guard (try? FileSystem.status(atPath: databasePath)) != nil else { throw PhotosError.noLibrary(at: folderPath) }
        do {
            let source = try ReaderPool.open(path: databasePath)
            let version = try Schema.migrator.currentVersion(of: source)
            guard version == Schema.latestVersion else {
                throw PhotosError(
                    .invalidParameter, title: "Library needs an upgrade",
                    message: "The catalog '\(databasePath)' has schema version \(version) and this photodrop writes "
                        + "version \(Schema.latestVersion). A backup never changes the library: open it once with this "
                        + "photodrop ('photodrop verify', or start 'photodrop watch'), or back it up with the photodrop "
                        + "that wrote it.")
            }
            try FileSystem.remove(temporary)
            _ = try FileSystem.open(
                temporary, [.writeOnly, .create, .exclusive, .noFollow], mode: permissions.databaseMode)
            try PhotoLibrary.copyDatabase(from: source, to: temporary)
        } catch {
            try? FileSystem.remove(temporary)
            throw snapshotFailure(error, action: action)
        }
    }

    /// A snapshot step's error as the library reports its own: SQLite's and the system's become ``PhotosError``s.
    private func snapshotFailure(_ error: any Error, action: String) -> any Error {
        switch error {
        case let error as DatabaseError: return PhotosError.database(error, action: action, library: folderPath)
        case let error as SystemError: return error.photosError(action: action)
        default: return error
        }
    }

    /// Copies every page of `source` into the database file at `path` (`sqlite3_backup_init`/`_step(-1)`/`_finish`).
    /// A busy source (a WAL being recovered) is retried for up to ten seconds.
    private static func copyDatabase(from source: Database, to path: String) throws {
        let destination = try Database(path: path, mode: .readWrite(create: false))
        guard let target = destination.sqliteHandle, let origin = source.sqliteHandle else {
            throw DatabaseError(
                extendedCode: 1, message: "the page-by-page copy needs SQLite on both sides", sql: nil, path: path)
        }
        guard let backup = sqlite3_backup_init(target, "main", origin, "main") else {
            throw DatabaseError(connection: target, code: sqlite3_errcode(target), sql: nil, path: path)
        }
        var code: Int32
        var attempts = 0
        repeat {
            code = sqlite3_backup_step(backup, -1)
            if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                attempts += 1
                SystemThread.sleep(seconds: 0.01)
            }
        } while (code == SQLITE_OK || code == SQLITE_BUSY || code == SQLITE_LOCKED) && attempts < 1000
        let finish = sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE, finish == SQLITE_OK else {
            throw DatabaseError(connection: target, code: code == SQLITE_DONE ? finish : code, sql: nil, path: path)
        }
    }

    /// Makes the copy at `path` self-contained and reads what it records. The copied header says WAL (the source's
    /// mode), so the copy is opened again and switched to the rollback journal.
    private static func prepareSnapshot(at path: String) throws -> CatalogSnapshot {
        let database = try Database(path: path, mode: .readWrite(create: false))
        let mode = try database.firstRow("PRAGMA journal_mode = DELETE") { $0.string(0) }
        guard mode?.lowercased() == "delete" else {
            throw DatabaseError(
                extendedCode: 1, message: "could not leave WAL mode (got \(mode ?? "nothing"))",
                sql: "PRAGMA journal_mode = DELETE", path: path)
        }
        try database.execute("PRAGMA synchronous = FULL")
        // Intents of writers that were running name files in flight in the library, none of which the copy holds:
        // kept, a restored copy would report them as interrupted changes (and "settle" files it never had).
        try database.inTransaction(.immediate) { try database.run("DELETE FROM placement_intents") }
        let libraryID =
            try database.firstRow("SELECT value FROM library_meta WHERE key = 'library_id'") { $0.string(0) } ?? ""
        let assetCount = Int(try database.int64("SELECT count(*) FROM assets") ?? 0)
        let originals = try database.rows(
            "SELECT r.path, r.byte_count, r.sha256, a.uuid FROM resources r JOIN assets a ON a.id = r.asset_id "
                + "ORDER BY r.path"
        ) { row in
            CatalogSnapshot.StoredFile(
                kind: .original, path: row.string(0), byteCount: row.int64(1), sha256: row.string(2),
                assetIdentifier: LocalIdentifier.asset(uuid: row.string(3)))
        }
        let derivatives = try database.rows(
            "SELECT d.path, d.byte_count, d.sha256, a.uuid FROM derivatives d JOIN assets a ON a.id = d.asset_id "
                + "WHERE d.path IS NOT NULL ORDER BY d.path"
        ) { row in
            CatalogSnapshot.StoredFile(
                kind: .derivative, path: row.string(0), byteCount: row.optionalInt64(1) ?? 0,
                sha256: row.optionalString(2) ?? "", assetIdentifier: LocalIdentifier.asset(uuid: row.string(3)))
        }
        return CatalogSnapshot(
            databasePath: path, libraryID: libraryID, assetCount: assetCount, files: originals + derivatives,
            databaseBytes: 0)
    }
}

extension CatalogSnapshot {
    /// Removes the records of the given derivatives from the snapshot's database (they vanished from the library
    /// before they could be copied: replaced by `thumbnails --rebuild`, or purged): a copy restored from it then
    /// lacks those thumbnails, which `photodrop thumbnails` makes again, instead of recording files it does not have.
    public mutating func forgetDerivatives(atPaths paths: Set<String>) throws {
        guard !paths.isEmpty else { return }
        do {
            let database = try Database(path: databasePath, mode: .readWrite(create: false))
            try database.inTransaction(.immediate) {
                for path in paths.sorted() {
                    try database.run("DELETE FROM derivatives WHERE path = ?", [.text(path)])
                }
            }
        } catch let error as DatabaseError {
            throw PhotosError.database(
                error, action: "remove missing thumbnails from the copy '\(databasePath)'",
                library: Path.parent(of: databasePath))
        }
        files.removeAll { $0.kind == .derivative && paths.contains($0.path) }
        try? FileSystem.remove(databasePath + "-journal")
    }
}
