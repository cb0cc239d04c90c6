import FoundationEssentials
import PhotodropSystem

extension PhotoLibrary {
    /// Checks the catalog against the files (`photodrop verify`): originals that are missing, unreadable or of the
    /// wrong size, files under `originals/` that no asset refers to, changes a crashed writer left unsettled, files
    /// crash recovery set aside, assets without an original, album counts, and SQLite's own `quick_check` and
    /// `foreign_key_check`.
    ///
    /// Reads only; safe while another process (the ingest daemon) writes the library: files a running writer is
    /// placing or removing are counted in ``VerificationReport/changesInFlight`` and not reported.
    ///
    /// - Parameter deep: also recompute the SHA-256 of every original (reads every byte) and run SQLite's full
    ///   `integrity_check` instead of `quick_check`.
    /// - Parameter readOnly: write nothing at all (for a backup, or a copy someone else owns): what a deep check
    ///   finds is reported but not recorded in the catalog, and a catalog of an older schema is refused instead of
    ///   upgraded.
    /// - Throws: ``PhotosError`` `.libraryVolumeOffline` when there is no library at ``url``, or a database error.
    public func verify(deep: Bool = false, readOnly: Bool = false) throws -> VerificationReport {
        if readOnly { try checkSchemaWithoutUpgrading() }
        return try LibraryVerifier(library: self, deep: deep, recordsDamage: !readOnly).run()
    }

    /// Throws unless the catalog has the schema this photodrop reads, opening it read-only (no `-wal` or `-shm` is
    /// made for a catalog in rollback-journal mode, as backups are).
    private func checkSchemaWithoutUpgrading() throws {
        guard (try? FileSystem.status(atPath: databasePath)) != nil else { throw PhotosError.noLibrary(at: folderPath) }
        let version: Int
        do {
            let database = try ReaderPool.open(path: databasePath)
            version = try Schema.migrator.currentVersion(of: database)
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "read the catalog's version", library: folderPath)
        }
        guard version != Schema.latestVersion else { return }
        throw PhotosError(
            .invalidParameter, title: "Other catalog version",
            message: "The catalog '\(databasePath)' has schema version \(version); this photodrop reads version "
                + "\(Schema.latestVersion) and checks a copy without changing it. Verify it with the photodrop that "
                + "wrote it, or restore it as a library and open it once (which upgrades it).")
    }
}

extension PhotoLibrary {
    /// SQLite's `quick_check` of the library's database, on a connection of its own: what a daemon runs once at
    /// start so that it never writes into a damaged catalog (a photodrop addition).
    ///
    /// - Returns: SQLite's messages; empty when the database is intact.
    /// - Throws: ``PhotosError`` when the file cannot be opened as a database at all (it is not one, or it is
    ///   unreadable), naming the file and what to do.
    ///
    /// On a PostgreSQL catalog: connects, and checks that the database is photodrop's, of a schema this photodrop
    /// reads, and not empty (a library folder with originals beside an empty database is a wrong connection string,
    /// never a new library); PostgreSQL checks its own pages.
    public func checkDatabase() throws -> [String] {
        if catalog.isPostgres {
            let version: Int
            do {
                let database = try connector.openReader()
                version = try PostgresSchema.version(of: database)
            } catch let error as DatabaseError {
                throw PhotosError.database(error, action: "connect to the catalog", library: folderPath)
            }
            let storedSomething = !((try? FileManager.default.contentsOfDirectory(atPath: folderPath + "/originals")) ?? [])
                .isEmpty
            if version == 0 && storedSomething {
                throw PhotosError(
                    .invalidParameter, title: "Empty catalog database",
                    message: "The library folder '\(folderPath)' holds stored originals, but the PostgreSQL database "
                        + "(\(catalog)) is empty: is \"catalog.postgres\" the right database? Nothing was changed. "
                        + "Point it at the library's database, or move the library there with 'photodrop migrate'.")
            }
            if version > PostgresSchema.latestVersion {
                throw PhotosError.newerLibrary(
                    .newerThanSupported(found: version, supported: PostgresSchema.latestVersion), path: folderPath)
            }
            return []
        }
        do {
            let database = try Database(path: databasePath, mode: .readOnly)
            let messages = try database.rows("PRAGMA quick_check(20)") { $0.string(0) }
            return messages == ["ok"] ? [] : messages
        } catch let error as DatabaseError {
            throw PhotosError(
                .internalError, title: "Damaged library database",
                message: "'\(databasePath)' cannot be read as a photodrop catalog (\(error.message)). Nothing was "
                    + "changed. Stop photodrop, copy the library folder away, then restore library.sqlite from a "
                    + "backup (or try 'sqlite3 library.sqlite .recover'); photodrop never replaces it with a new, "
                    + "empty library.",
                cause: .database(error))
        }
    }
}

/// A stored original whose damage `verify --deep` records (or clears).
struct DamageRecord: Sendable, Hashable {
    var path: String
    var sha256: String
}

extension PhotoLibrary {
    /// Records in the catalog which stored originals a deep check found damaged (SHA-256 changed) and which it found
    /// intact again, in one transaction. A creation request with the same content later replaces a recorded one.
    func recordDamage(found: [DamageRecord], healed: [DamageRecord]) throws {
        try writer.sync {
            let connection = try openWriter()
            do {
                try connection.checkLibraryInPlace()
                try connection.database.inTransaction(.immediate) {
                    for record in found {
                        try connection.database.run(
                            "UPDATE resources SET damage = 'hashMismatch' WHERE path = ? AND sha256 = ?",
                            [.text(record.path), .text(record.sha256)])
                    }
                    for record in healed {
                        try connection.database.run(
                            "UPDATE resources SET damage = NULL WHERE path = ? AND sha256 = ?",
                            [.text(record.path), .text(record.sha256)])
                    }
                }
            } catch {
                throw connection.mapped(error, action: "record what verify found")
            }
        }
    }
}
