import CSQLite

/// An error reported by SQLite: the primary and extended result code, SQLite's message, and the statement that failed.
///
/// Match a primary code with `~=`, e.g. `catch let error as DatabaseError where DatabaseError.busy ~= error`.
public struct DatabaseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The extended result code (`sqlite3_extended_errcode`); its low byte is the primary code.
    public let extendedCode: Int32
    /// SQLite's own message (`sqlite3_errmsg`), or ours when the failure happened before SQLite could report one.
    public let message: String
    /// The SQL text of the statement that failed, when there was one.
    public let sql: String?
    /// The database file the connection had open (for PostgreSQL, where the connection goes).
    public let path: String?
    /// PostgreSQL's SQLSTATE when the error came from a PostgreSQL catalog ("" for SQLite); ``resultCode`` then holds
    /// the SQLite code of the same meaning (constraint, busy, full …), which is what the catalog acts on.
    public let sqlState: String

    /// The primary result code, e.g. `SQLITE_BUSY` (5) or `SQLITE_CONSTRAINT` (19).
    public var resultCode: Int32 { extendedCode & 0xFF }

    /// Creates an error from its parts.
    public init(extendedCode: Int32, message: String, sql: String? = nil, path: String? = nil, sqlState: String = "") {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.path = path
        self.sqlState = sqlState
    }

    /// Reads the current error of a connection.
    init(connection: OpaquePointer?, code: Int32, sql: String?, path: String?) {
        let extended = connection.map { sqlite3_extended_errcode($0) } ?? code
        // sqlite3_errmsg describes the most recent failure; when the caller's code disagrees (a stale message),
        // fall back to SQLite's static text for the code.
        let message: String
        if let connection, extended & 0xFF == code & 0xFF, let text = sqlite3_errmsg(connection) {
            message = String(cString: text)
        } else {
            message = String(cString: sqlite3_errstr(code))
        }
        self.init(
            extendedCode: extended & 0xFF == code & 0xFF ? extended : code, message: message, sql: sql, path: path)
    }

    public var description: String {
        var text =
            sqlState.isEmpty
            ? "SQLite error \(resultCode) (extended \(extendedCode)): \(message)"
            : "PostgreSQL error \(sqlState): \(message)"
        if let sql { text += " — in statement: \(sql)" }
        if let path { text += " — database: \(path)" }
        return text
    }

    /// Whether a PostgreSQL connection broke or could not be made (refused, cut, the server shutting down or
    /// starting): a new connection may succeed. `PostgresSession` reports every such error as "cannot open".
    public var isConnectionLost: Bool { !sqlState.isEmpty && resultCode == DatabaseError.cantOpen.resultCode }

    /// Matches an error whose primary result code equals the pattern's.
    public static func ~= (pattern: DatabaseError, value: any Error) -> Bool {
        guard let error = value as? DatabaseError else { return false }
        return error.resultCode == pattern.resultCode
    }

    /// Patterns for the primary codes callers commonly match, e.g. `DatabaseError.busy ~= error`.
    public static let busy = DatabaseError(extendedCode: SQLITE_BUSY, message: "database is locked")
    public static let constraint = DatabaseError(extendedCode: SQLITE_CONSTRAINT, message: "constraint failed")
    public static let full = DatabaseError(extendedCode: SQLITE_FULL, message: "database or disk is full")
    public static let readOnly = DatabaseError(
        extendedCode: SQLITE_READONLY, message: "attempt to write a readonly database")
    public static let cantOpen = DatabaseError(extendedCode: SQLITE_CANTOPEN, message: "unable to open database file")
    public static let corrupt = DatabaseError(extendedCode: SQLITE_CORRUPT, message: "database disk image is malformed")
    public static let notADatabase = DatabaseError(extendedCode: SQLITE_NOTADB, message: "file is not a database")
    public static let ioError = DatabaseError(extendedCode: SQLITE_IOERR, message: "disk I/O error")
    public static let permission = DatabaseError(extendedCode: SQLITE_PERM, message: "access permission denied")
}
