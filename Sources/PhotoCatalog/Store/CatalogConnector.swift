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
        guard case .postgres(let connectionString, let password) = location else {
            preconditionFailure("openPostgres on a SQLite catalog")
        }
        let shown = CatalogLocation.redacted(connectionString)
        do {
            let connection = try PostgresConnection(
                connectionString: connectionString, password: password, applicationName: Self.applicationName)
            return Database(postgres: connection, location: shown)
        } catch {
            throw PostgresSession.databaseError(error, sql: nil, location: shown)
        }
    }
}
