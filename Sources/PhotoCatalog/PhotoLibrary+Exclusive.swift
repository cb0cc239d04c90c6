import FoundationEssentials

extension PhotoLibrary {
    /// The first key of the job locks ("pdjb"): the second is the job name's hash.
    static let jobLockClass: Int64 = 0x7064_6A62

    /// Runs `job` unless another node of a shared (PostgreSQL) catalog runs the same job right now (a photodrop
    /// addition): for the housekeeping every daemon does and one at a time should (emptying Recently Deleted, the
    /// backfills of what older versions did not store). A session advisory lock, held on a connection of its own
    /// while `body` runs and given up after; on SQLite, where one daemon writes, `body` simply runs.
    ///
    /// - Returns: what `body` returned, or nil when another node holds the job.
    /// - Throws: `body`'s error, or a ``PhotosError`` when the catalog cannot be reached.
    public func runExclusively<R>(_ job: String, _ body: () async throws -> R) async throws -> R? {
        guard catalog.isPostgres else { return try await body() }
        let database: Database
        do {
            database = try connector.openPostgres()
            let taken = try database.firstRow(
                "SELECT pg_try_advisory_lock(CAST(? AS INTEGER), hashtext(?))",
                [.integer(Self.jobLockClass), .text(job)]
            ) { $0.bool(0) }
            guard taken == true else { return nil }
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "take the lock of '\(job)'", library: folderPath)
        }
        defer {
            _ = try? database.run(
                "SELECT pg_advisory_unlock(CAST(? AS INTEGER), hashtext(?))", [.integer(Self.jobLockClass), .text(job)])
        }
        return try await body()
    }
}

extension PhotoLibrary {
    /// A turn taken with ``takeTurn(_:)``, given back by ``end()`` (or when it goes away).
    public final class Turn {
        private var database: Database?
        private let name: String

        init(database: Database?, name: String) {
            self.database = database
            self.name = name
        }

        /// Gives the turn back (the next process waiting for it goes on).
        public func end() {
            guard let database else { return }
            _ = try? database.run(
                "SELECT pg_advisory_unlock(CAST(? AS INTEGER), hashtext(?))", [.integer(PhotoLibrary.jobLockClass), .text(name)])
            self.database = nil
        }

        deinit { end() }
    }

    /// Waits until no other process of a shared (PostgreSQL) catalog holds the turn `name`, and takes it (a photodrop
    /// addition): for the steps several nodes starting at once must take one after the other, such as making a new
    /// library (its folder, then its catalog's schema, then `originals/`), so that the second sees the library the
    /// first made rather than half of it. A session advisory lock on a connection of its own, kept until
    /// ``Turn/end()``; on SQLite, where one daemon writes, the turn is free.
    ///
    /// - Throws: ``PhotosError`` when the catalog cannot be reached.
    /// ``takeTurn(_:)`` without waiting: nil when another process of the shared catalog holds the turn `name` now (it
    /// does the job; this one skips it). For jobs that run on a thread of their own, where ``runExclusively(_:_:)``
    /// cannot be awaited.
    ///
    /// - Throws: ``PhotosError`` when the catalog cannot be reached.
    public func tryTurn(_ name: String) throws -> Turn? {
        guard catalog.isPostgres else { return Turn(database: nil, name: name) }
        do {
            let database = try connector.openPostgres()
            let taken = try database.firstRow(
                "SELECT pg_try_advisory_lock(CAST(? AS INTEGER), hashtext(?))", [.integer(Self.jobLockClass), .text(name)]
            ) { $0.bool(0) }
            return taken == true ? Turn(database: database, name: name) : nil
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "take the turn '\(name)'", library: folderPath)
        }
    }

    public func takeTurn(_ name: String) throws -> Turn {
        guard catalog.isPostgres else { return Turn(database: nil, name: name) }
        do {
            let database = try connector.openPostgres()
            try database.run(
                "SELECT pg_advisory_lock(CAST(? AS INTEGER), hashtext(?))", [.integer(Self.jobLockClass), .text(name)])
            return Turn(database: database, name: name)
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "wait for the turn '\(name)'", library: folderPath)
        }
    }
}
