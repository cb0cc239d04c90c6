import FoundationEssentials
import PostgresClient

/// Opens connections to a library's catalog, wherever it is (``CatalogLocation``).
struct CatalogConnector: Sendable {
    let location: CatalogLocation
    /// `library.sqlite`'s path in the library folder (used for SQLite).
    let sqlitePath: String
    /// Who the connections say they are (`application_name`, shown in `pg_stat_activity`).
    static let applicationName = "photodrop"

    /// A read connection: SQLite's read-only one (``ReaderPool/open(path:)``), or a PostgreSQL connection.
    func openReader() throws -> Database {
        switch location {
        case .sqlite: return try ReaderPool.open(path: sqlitePath)
        case .postgres: return try openPostgres()
        }
    }

    /// A new PostgreSQL connection as a ``Database``.
    ///
    /// - Throws: ``DatabaseError`` (cannot open) with libpq's reason: refused, unknown database, wrong password.
    func openPostgres() throws -> Database {
        do {
            return Database(postgres: try connect(), location: location.description)
        } catch {
            throw PostgresSession.databaseError(error, sql: nil, location: location.description)
        }
    }

    /// A new PostgreSQL connection of the catalog, named `photodrop` and `role` in `pg_stat_activity` (the node's
    /// heartbeat, `serve`'s listener).
    func connect(role: String? = nil) throws(PostgresError) -> PostgresConnection {
        guard case .postgres(let connectionString, let password) = location else {
            throw PostgresError(.connection, message: "the catalog is not in PostgreSQL")
        }
        return try PostgresConnection(
            connectionString: connectionString, password: password,
            applicationName: Self.applicationName + (role.map { " " + $0 } ?? ""))
    }
}
