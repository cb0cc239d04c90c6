import FoundationEssentials
import PostgresClient

/// The PostgreSQL side of a ``Database``: one connection, the statements prepared on it (by their text in the
/// catalog's SQL, translated once by `PostgresDialect`), and what the last command changed.
///
/// Confined, like its ``Database``, to one thread at a time.
final class PostgresSession {
    let connection: PostgresConnection
    /// Where the connection goes, for messages (the connection string without its password).
    let location: String
    /// Server-side prepared statements by their catalog SQL.
    private var prepared: [String: String] = [:]
    private var nextName = 1
    /// Rows the last INSERT, UPDATE or DELETE changed.
    var affected = 0
    private static let preparedLimit = 512

    init(connection: PostgresConnection, location: String) {
        self.connection = connection
        self.location = location
    }

    /// Runs `sql` (the catalog's dialect) with `parameters` in PostgreSQL's text form, prepared once per connection.
    func run(_ sql: String, translated: String, _ parameters: [String?]) throws -> PostgresRows {
        do {
            let name: String
            if let known = prepared[sql] {
                name = known
            } else {
                if prepared.count >= Self.preparedLimit, !connection.isInTransaction {
                    _ = try connection.execute("DEALLOCATE ALL")
                    prepared.removeAll(keepingCapacity: true)
                }
                name = "pd\(nextName)"
                nextName += 1
                try connection.prepare(name, translated, parameterCount: 0)
                prepared[sql] = name
            }
            let result = try connection.executePrepared(name, parameters)
            affected = result.affected
            return result
        } catch {
            throw Self.databaseError(error, sql: sql, location: location)
        }
    }

    /// Stores rows with `COPY … FROM STDIN` (`sql`, PostgreSQL's own dialect), `data` in its text form.
    func copyIn(_ sql: String, data: [UInt8]) throws {
        do {
            affected = try connection.copyIn(sql, data: data)
        } catch {
            throw Self.databaseError(error, sql: sql, location: location)
        }
    }

    /// Runs commands without parameters or results (transaction control, DDL).
    func execute(_ sql: String) throws {
        do {
            try connection.executeScript(PostgresDialect.translateCommand(sql))
        } catch {
            throw Self.databaseError(error, sql: sql, location: location)
        }
    }

    /// A PostgreSQL error as the catalog's ``DatabaseError``: its SQLSTATE kept, and the SQLite result code the
    /// catalog acts on (constraint, busy, full, read-only, permission, cannot open) chosen by its class.
    static func databaseError(_ error: PostgresError, sql: String?, location: String) -> DatabaseError {
        let code: Int32
        let state = error.sqlState ?? ""
        if error.isConnectionLost {
            code = DatabaseError.cantOpen.extendedCode
        } else if state == "23505" {
            code = 2067  // SQLITE_CONSTRAINT_UNIQUE
        } else if state.hasPrefix("23") {
            code = DatabaseError.constraint.extendedCode
        } else if error.isRetryable || state == "55P03" {  // serialization, deadlock, lock not available
            code = DatabaseError.busy.extendedCode
        } else if state == "53100" {
            code = DatabaseError.full.extendedCode
        } else if state == "25006" {
            code = DatabaseError.readOnly.extendedCode
        } else if state == "42501" || state.hasPrefix("28") {
            code = DatabaseError.permission.extendedCode
        } else {
            code = 1  // SQLITE_ERROR
        }
        // A connection that failed or broke has no SQLSTATE from the server: 08006 (connection_failure) says so.
        let sqlState = error.sqlState ?? (error.isConnectionLost ? "08006" : "XX000")
        return DatabaseError(extendedCode: code, message: error.message, sql: sql, path: location, sqlState: sqlState)
    }
}
