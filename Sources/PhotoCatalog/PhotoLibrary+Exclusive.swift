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
