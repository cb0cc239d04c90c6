import Foundation
import PhotoCatalog
import PostgresClient
import TestFixtures
import Testing

/// photodrop's schema in PostgreSQL, created and guarded on a real server the suite starts itself.
@Suite(
    "PostgreSQL catalog schema, on a real server", .serialized, CatalogGate.one(limit: .seconds(300)),
    .requires(PostgresCluster.canStart, "PostgreSQL's server programs are not installed (.ci/run installs postgresql)"))
struct PostgresSchemaTests {
    @Test("an empty database gets the whole schema once; SQLite's tables and columns, text compared byte by byte")
    func createsOnce() async throws {
        let cluster = try await PostgresCluster("pg-schema")
        let connection = try PostgresConnection(connectionString: cluster.connectionString())
        #expect(try PostgresSchema.version(of: connection) == 0)
        #expect(try PostgresSchema.prepare(connection) == .created)
        #expect(try PostgresSchema.prepare(connection) == .current)
        #expect(try PostgresSchema.version(of: connection) == PostgresSchema.latestVersion)
        // A catalog at version 1 (before the nodes table) is brought up to date, in place.
        try connection.execute("DROP TABLE nodes")
        try connection.execute("UPDATE library_meta SET value = '1' WHERE key = 'schema_version'")
        #expect(try PostgresSchema.prepare(connection) == .migrated(from: 1))
        #expect(try connection.execute("SELECT count(*) FROM nodes").scalar == "0")

        // The same tables and columns as a SQLite library made by this build, so that one set of statements can
        // serve both backends.
        let folder = try TemporaryFolder("pg-schema-sqlite")
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        try library.performChangesAndWait {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "made")
        }
        let sqliteColumns = try Self.sqliteColumns(folder.url("Library/library.sqlite"))
        let postgresColumns = try connection.execute(
            """
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position
            """)
        var columns: [String: Set<String>] = [:]
        for row in postgresColumns.rows { columns[row[0]!, default: []].insert(row[1]!) }
        // Apart from what only several nodes need (the nodes table), the same tables and columns.
        #expect(Set(columns.keys).isSuperset(of: PostgresSchema.sharedOnlyTables))
        #expect(columns.filter { !PostgresSchema.sharedOnlyTables.contains($0.key) } == sqliteColumns)

        // Titles sort by bytes ("B" before "a", as SQLite's BINARY does), whatever the database's locale.
        try connection.execute(
            "INSERT INTO albums(uuid, title, creation_date) VALUES ('u1', 'a', 0), ('u2', 'B', 0), ('u3', 'é', 0)")
        let titles = try connection.execute("SELECT title FROM albums ORDER BY title").rows.map { $0[0] }
        #expect(titles == ["B", "a", "é"])
        // One album per binding key: a second node creating the same folder's album settles on the first.
        try connection.execute("UPDATE albums SET binding_key = 'Trip' WHERE uuid = 'u1'")
        let second = try connection.execute(
            """
            INSERT INTO albums(uuid, title, creation_date, binding_key) VALUES ('u4', 'Trip', 0, 'Trip')
            ON CONFLICT (binding_key) WHERE binding_key IS NOT NULL DO NOTHING
            """)
        #expect(second.affected == 0)
    }

    @Test("a database of another application, or one a newer photodrop migrated, is refused and left as it was")
    func refusesForeignAndNewer() async throws {
        let cluster = try await PostgresCluster("pg-schema-refuse")
        let admin = try PostgresConnection(connectionString: cluster.connectionString())
        try admin.execute("CREATE DATABASE other_app")
        try admin.execute("CREATE DATABASE newer")

        let other = try PostgresConnection(connectionString: cluster.connectionString(database: "other_app"))
        try other.execute("CREATE TABLE invoices(id int)")
        #expect {
            try PostgresSchema.prepare(other)
        } throws: { error in
            let text = "\(error)"
            return text.contains("'other_app' is not photodrop's") && text.contains("invoices")
        }
        #expect(try other.execute("SELECT to_regclass('library_meta') IS NULL").scalar == "t", "nothing was written")

        let newer = try PostgresConnection(connectionString: cluster.connectionString(database: "newer"))
        try PostgresSchema.prepare(newer)
        try newer.execute("UPDATE library_meta SET value = $1 WHERE key = 'schema_version'", [String(PostgresSchema.latestVersion + 1)])
        #expect {
            try PostgresSchema.prepare(newer)
        } throws: { error in
            "\(error)".contains("schema version \(PostgresSchema.latestVersion + 1)")
                && "\(error)".contains("run a newer photodrop")
        }
        // A library_meta of another program's is not photodrop's either.
        try other.execute("CREATE TABLE library_meta(key text PRIMARY KEY, value text)")
        #expect(throws: PhotosError.self) { try PostgresSchema.prepare(other) }
    }

    @Test("two nodes starting at once on an empty database: one creates the schema, the other finds it made")
    func concurrentStarts() async throws {
        let cluster = try await PostgresCluster("pg-schema-race")
        let string = cluster.connectionString()
        let outcomes = try await withThrowingTaskGroup(of: PostgresSchema.Preparation.self) { group in
            for _ in 0..<4 {
                group.addTask { try PostgresSchema.prepare(try PostgresConnection(connectionString: string)) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(outcomes.filter { $0 == .created }.count == 1, "\(outcomes)")
        #expect(outcomes.filter { $0 == .current }.count == 3, "\(outcomes)")
        let connection = try PostgresConnection(connectionString: string)
        #expect(try connection.execute("SELECT count(*) FROM library_meta WHERE key = 'library_id'").scalar == "1")
    }

    /// Every table's columns of a SQLite library, without SQLite's own tables.
    static func sqliteColumns(_ path: String) throws -> [String: Set<String>] {
        let listing = try ProcessRunner.runBlocking(
            URL(fileURLWithPath: "/usr/bin/sqlite3"),
            [
                path,
                "SELECT m.name, p.name FROM sqlite_master m JOIN pragma_table_info(m.name) p "
                    + "WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%'",
            ])
        var columns: [String: Set<String>] = [:]
        for line in listing.stdout.split(separator: "\n") {
            let parts = line.split(separator: "|", maxSplits: 1).map(String.init)
            if parts.count == 2 { columns[parts[0], default: []].insert(parts[1]) }
        }
        return columns
    }
}
