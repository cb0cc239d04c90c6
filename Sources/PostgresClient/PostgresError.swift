/// What went wrong talking to PostgreSQL: libpq missing, a connection refused or lost, or a statement the server
/// refused (with its SQLSTATE, which decides what photodrop does next).
public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// libpq itself could not be loaded.
        case clientLibraryMissing
        /// No connection could be made, or it broke.
        case connection
        /// The server refused a statement.
        case statement
    }

    public var kind: Kind
    /// The server's SQLSTATE (`23505` a unique violation, `40001` a serialization failure …), when it sent one.
    public var sqlState: String?
    /// The message, as libpq or the server gave it (one line).
    public var message: String
    /// The constraint a violation names, if any.
    public var constraint: String?

    public init(_ kind: Kind, message: String, sqlState: String? = nil, constraint: String? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
        self.constraint = constraint
    }

    /// A unique constraint refused the row (`23505`).
    public var isUniqueViolation: Bool { sqlState == "23505" }

    /// A transaction that may succeed when run again from the start: a serialization failure (`40001`) or a deadlock
    /// (`40P01`).
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }

    /// The connection is gone (refused, broken, the server shutting down or restarting): a new one is needed, and
    /// the work waits until one can be made.
    public var isConnectionLost: Bool {
        if kind == .connection { return true }
        guard let sqlState else { return false }
        // Class 08: connection exceptions; 57P01–57P03: the server shuts down, crashed, or cannot take connections yet.
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    public var description: String {
        var text = message
        if let sqlState { text += " (SQLSTATE \(sqlState))" }
        return text
    }
}
