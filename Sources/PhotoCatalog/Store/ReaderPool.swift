import CSQLite
import FoundationEssentials
import Synchronization

/// A read-only connection lent out by the ``ReaderPool``.
final class ReaderConnection: @unchecked Sendable {
    // Invariant: a reader connection is either idle in the pool or checked out by exactly one user at a time (a
    // `read` call, or one change's snapshot guarded by a Mutex); it is never used by two threads at once.
    let database: Database

    init(database: Database) { self.database = database }
}

/// Read connections to the library's database, opened on demand and reused. Each read runs in its own transaction,
/// so it sees one consistent snapshot; in WAL mode readers never block the writer and the writer never blocks them.
final class ReaderPool: Sendable {
    private let connector: CatalogConnector
    private let idle = Mutex<[ReaderConnection]>([])
    private static let maximumIdle = 4

    init(connector: CatalogConnector) { self.connector = connector }

    /// Runs `body` with a connection inside a read transaction.
    func read<R>(_ body: (Database) throws -> R) throws -> R {
        let connection = try checkOutBegun()
        defer { checkIn(connection) }
        let database = connection.database
        defer { try? database.execute("COMMIT") }
        return try body(database)
    }

    /// A connection with its read transaction begun. A pooled PostgreSQL connection that broke while it waited (the
    /// server restarted) fails at its BEGIN: it is dropped, and a new one is made, once.
    private func checkOutBegun() throws -> ReaderConnection {
        let connection = try checkOut()
        do {
            try connection.database.execute("BEGIN DEFERRED")
            return connection
        } catch let error as DatabaseError where error.isConnectionLost {
            let fresh = ReaderConnection(database: try connector.openReader())
            try fresh.database.execute("BEGIN DEFERRED")
            return fresh
        }
    }

    /// A connection whose read transaction is already open (its snapshot fixed): for change notifications, which
    /// must see the library exactly as the change left it.
    func snapshot() throws -> ReaderConnection {
        let connection = try checkOutBegun()
        do {
            // A read transaction starts at its first read.
            _ = try connection.database.int64("SELECT count(*) FROM library_meta")
            return connection
        } catch {
            connection.database.rollback()
            checkIn(connection)
            throw error
        }
    }

    /// Ends the snapshot's transaction and returns the connection.
    func release(snapshot connection: ReaderConnection) {
        try? connection.database.execute("COMMIT")
        checkIn(connection)
    }

    /// Drops idle connections (e.g. before the library folder is removed).
    func closeIdle() {
        idle.withLock { $0.removeAll() }
    }

    private func checkOut() throws -> ReaderConnection {
        if let connection = idle.withLock({ $0.popLast() }) { return connection }
        return ReaderConnection(database: try connector.openReader())
    }

    private func checkIn(_ connection: ReaderConnection) {
        // A failed COMMIT, or a PostgreSQL connection that broke: do not reuse.
        guard connection.database.isAutocommit, connection.database.isUsable else { return }
        idle.withLock { connections in
            if connections.count < ReaderPool.maximumIdle { connections.append(connection) }
        }
    }

    /// Opens a read connection: read-write without create (so that SQLite can maintain the WAL index) but
    /// `query_only`, and without the checkpoint SQLite runs when the last connection closes (a reader, such as
    /// `import --dry-run` or `status`, never writes the library); on read-only storage, read-only and then immutable.
    static func open(path: String) throws -> Database {
        do {
            let database = try Database(path: path, mode: .readWrite(create: false))
            database.skipCheckpointOnClose()
            try database.execute("PRAGMA query_only = 1")
            _ = try database.int64("SELECT count(*) FROM sqlite_schema")
            return database
        } catch let error as DatabaseError
            where [SQLITE_READONLY, SQLITE_CANTOPEN, SQLITE_PERM, SQLITE_IOERR].contains(error.resultCode)
            && FileManager.default.fileExists(atPath: path)
        {
            if let database = try? Database(path: path, mode: .readOnly),
                (try? database.int64("SELECT count(*) FROM sqlite_schema")) != nil
            {
                return database
            }
            let database = try Database(path: path, mode: .immutable)
            _ = try database.int64("SELECT count(*) FROM sqlite_schema")
            return database
        }
    }
}
