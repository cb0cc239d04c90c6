import CSQLite
import FoundationEssentials
import PhotodropSystem
import PostgresClient

/// One connection to the catalog's database with a cache of prepared statements: SQLite (`sqlite3*`, the embedded
/// default) or PostgreSQL (a `PostgresSession`). The catalog's statements are written once, in the SQL the two
/// share; a PostgreSQL connection translates them (`PostgresDialect`) and prepares each once.
///
/// A connection is confined to one thread at a time and is deliberately not `Sendable`: the library's writer owns
/// exactly one, each reader borrows one from a pool. The connection is closed (`sqlite3_close_v2`) when the value is
/// released. Every SQLite connection gets a busy timeout, foreign keys, and double-quoted string literals switched off.
public final class Database {
    /// The engine behind a connection.
    enum Engine {
        case sqlite(OpaquePointer)
        case postgres(PostgresSession)
    }

    /// How a connection opens its file.
    public enum OpenMode: Sendable {
        /// Read and write; `create` also creates a missing file.
        case readWrite(create: Bool)
        /// Read only (`SQLITE_OPEN_READONLY`); a WAL database still needs its `-shm` file to be writable.
        case readOnly
        /// Read only, assuming nobody changes the file (`immutable=1`): for libraries on read-only media.
        case immutable
    }

    /// How a transaction takes its locks.
    public enum TransactionKind: String, Sendable {
        /// Takes the lock on first use; for reads.
        case deferred = "DEFERRED"
        /// Takes the write lock at once; for every write, so that a busy database fails early and waits politely.
        case immediate = "IMMEDIATE"
    }

    let engine: Engine
    /// The database file's path (for PostgreSQL, where the connection goes, without a password).
    public let path: String
    private var statementCache: [String: Statement] = [:]
    private static let statementCacheLimit = 256

    /// Process-wide set-up before the first connection: SQLite's memory statistics off (they cost the writer a
    /// mutex around every allocation; photodrop never reads them). Returns SQLite's code: OK, or
    /// MISUSE when something in the process initialised SQLite first, which leaves the statistics on and is harmless.
    static let processSetup: Int32 = photodrop_sqlite_disable_memory_statistics()

    /// Opens (`sqlite3_open_v2`) the database at `path`.
    public init(path: String, mode: OpenMode, busyTimeoutMilliseconds: Int32 = 5000) throws {
        _ = Database.processSetup
        var flags = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE | SQLITE_OPEN_URI
        var filename = path
        switch mode {
        case .readWrite(let create):
            flags |= SQLITE_OPEN_READWRITE | (create ? SQLITE_OPEN_CREATE : 0)
        case .readOnly:
            flags |= SQLITE_OPEN_READONLY
        case .immutable:
            flags |= SQLITE_OPEN_READONLY
            filename = Database.uri(path: path, query: "immutable=1")
        }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(filename, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            let error = DatabaseError(connection: connection, code: code, sql: nil, path: path)
            sqlite3_close_v2(connection)
            throw error
        }
        self.engine = .sqlite(connection)
        self.path = path
        sqlite3_extended_result_codes(connection, 1)
        sqlite3_busy_timeout(connection, busyTimeoutMilliseconds)
        var ignored: Int32 = 0
        _ = photodrop_sqlite_db_config_int(connection, SQLITE_DBCONFIG_DQS_DML, 0, &ignored)
        _ = photodrop_sqlite_db_config_int(connection, SQLITE_DBCONFIG_DQS_DDL, 0, &ignored)
        _ = photodrop_sqlite_db_config_int(connection, SQLITE_DBCONFIG_ENABLE_FKEY, 1, &ignored)
    }

    /// A connection to a PostgreSQL catalog; `location` names it in messages.
    init(postgres connection: PostgresConnection, location: String) {
        engine = .postgres(PostgresSession(connection: connection, location: location))
        path = location
    }

    deinit {
        statementCache.removeAll()
        if case .sqlite(let handle) = engine { sqlite3_close_v2(handle) }
    }

    /// SQLite's connection handle; nil on PostgreSQL.
    var sqliteHandle: OpaquePointer? {
        if case .sqlite(let handle) = engine { return handle }
        return nil
    }

    /// The PostgreSQL session; nil on SQLite.
    var postgres: PostgresSession? {
        if case .postgres(let session) = engine { return session }
        return nil
    }

    /// Whether the catalog is in PostgreSQL.
    public var isPostgres: Bool { postgres != nil }

    /// Whether the connection can still be used: always for SQLite; for PostgreSQL, while libpq's connection holds.
    var isUsable: Bool { postgres?.connection.isAlive ?? true }

    /// Leaves the write-ahead log alone when this connection is the last to close (`SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE`):
    /// for connections that only read, so that reading a library never writes to it.
    public func skipCheckpointOnClose() {
        guard let handle = sqliteHandle else { return }
        var ignored: Int32 = 0
        _ = photodrop_sqlite_db_config_int(handle, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, &ignored)
    }

    /// A `file:` URI for `path` with the given query, percent-escaping what URIs reserve.
    static func uri(path: String, query: String) -> String {
        // RFC 3986's path characters (unreserved, sub-delims, ":", "@", "/"); everything else, "?", "#" and "%"
        // included, as %XX of its UTF-8 bytes.
        var escaped = ""
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            case _ where "-._~!$&'()*+,;=:@/".utf8.contains(byte):
                escaped.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                escaped += "%" + NumberText.hex(byte, width: 2, uppercase: true)
            }
        }
        return "file:\(escaped)?\(query)"
    }

    // MARK: Statements

    /// Prepares a statement that the caller owns (not cached).
    public func prepare(_ sql: String) throws -> Statement { try Statement(database: self, sql: sql) }

    /// A prepared statement for `sql` from this connection's cache, reset and with cleared bindings.
    ///
    /// Use it for statements run often; the cache holds up to 256 statements and is emptied when it is full.
    public func cachedStatement(_ sql: String) throws -> Statement {
        if let statement = statementCache[sql] {
            statement.reset()
            return statement
        }
        if statementCache.count >= Database.statementCacheLimit { statementCache.removeAll(keepingCapacity: true) }
        let statement = try Statement(database: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one or more SQL statements without results (`sqlite3_exec`); for schema changes and pragmas.
    public func execute(_ sql: String) throws {
        let handle: OpaquePointer
        switch engine {
        case .sqlite(let sqlite): handle = sqlite
        case .postgres(let session): return try session.execute(sql)
        }
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        if code != SQLITE_OK {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(code))
            sqlite3_free(message)
            throw DatabaseError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql, path: path)
        }
    }

    /// Runs a cached statement with `values` to completion.
    public func run(_ sql: String, _ values: [SQLValue] = []) throws {
        try cachedStatement(sql).execute(values)
    }

    /// The rows of a cached statement, each turned into a value by `row`.
    public func rows<T>(_ sql: String, _ values: [SQLValue] = [], row: (Statement) throws -> T) throws -> [T] {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        var result: [T] = []
        while try statement.step() { result.append(try row(statement)) }
        return result
    }

    /// The first row of a cached statement turned into a value, or nil when there is no row.
    public func firstRow<T>(_ sql: String, _ values: [SQLValue] = [], row: (Statement) throws -> T) throws -> T? {
        let statement = try cachedStatement(sql)
        defer { statement.reset() }
        try statement.bind(values)
        return try statement.step() ? try row(statement) : nil
    }

    /// The first column of the first row as an integer, or nil when there is no row or it is NULL.
    public func int64(_ sql: String, _ values: [SQLValue] = []) throws -> Int64? {
        try firstRow(sql, values) { $0.optionalInt64(0) } ?? nil
    }

    /// The number of rows changed by the most recent INSERT, UPDATE or DELETE (`sqlite3_changes64`).
    public var changes: Int {
        switch engine {
        case .sqlite(let handle): return Int(sqlite3_changes64(handle))
        case .postgres(let session): return session.affected
        }
    }
    /// The rowid of the most recent successful INSERT (`sqlite3_last_insert_rowid`; PostgreSQL's `lastval()`, the
    /// identity the insert drew).
    public var lastInsertRowID: Int64 {
        get throws {
            switch engine {
            case .sqlite(let handle): return sqlite3_last_insert_rowid(handle)
            case .postgres: return try int64("SELECT lastval()") ?? 0
            }
        }
    }
    /// Whether the connection is outside an explicit transaction (`sqlite3_get_autocommit`).
    public var isAutocommit: Bool {
        switch engine {
        case .sqlite(let handle): return sqlite3_get_autocommit(handle) != 0
        case .postgres(let session): return !session.connection.isInTransaction
        }
    }

    // MARK: Transactions

    /// Runs `body` in a transaction: committed when it returns, rolled back when it (or the COMMIT) throws.
    public func inTransaction<R>(_ kind: TransactionKind, _ body: () throws -> R) throws -> R {
        try execute("BEGIN \(kind.rawValue)")
        let result: R
        do {
            result = try body()
            try execute("COMMIT")
        } catch {
            rollback()
            throw error
        }
        return result
    }

    /// Rolls back the open transaction, if any; failures are ignored because SQLite has rolled back already then.
    public func rollback() {
        guard !isAutocommit else { return }
        switch engine {
        case .sqlite(let handle): _ = sqlite3_exec(handle, "ROLLBACK", nil, nil, nil)
        case .postgres(let session): _ = try? session.connection.execute("ROLLBACK")
        }
    }

    /// The value of an integer pragma such as `user_version` (SQLite only).
    public func pragmaInt(_ name: String) throws -> Int64 {
        guard sqliteHandle != nil else {
            throw DatabaseError(extendedCode: 1, message: "PRAGMA \(name) is SQLite's; this catalog is in PostgreSQL",
                sql: "PRAGMA \(name)", path: path)
        }
        return try int64("PRAGMA \(name)") ?? 0
    }
}
