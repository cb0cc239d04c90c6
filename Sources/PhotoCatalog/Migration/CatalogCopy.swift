import FoundationEssentials
import PhotodropSystem

/// Copies a library's catalog between SQLite and PostgreSQL (`photodrop migrate`), then checks the copy row for row.
///
/// The source is read in one read transaction (one snapshot); the target must be empty (a PostgreSQL database
/// without tables, or a SQLite file that does not exist yet), gets this photodrop's schema, and receives every row of
/// every table in one transaction, with the same ids, change tokens and library id, so that change tokens handed out
/// before stay valid. Then both sides are read again and compared table by table: the number of rows and a SHA-256 of
/// all of them in one order. The library's files are not touched: they stay in the library folder.
public enum CatalogCopy {
    /// What was copied and what the check found.
    public struct Report: Sendable {
        /// Rows per table, in copy order.
        public var rows: [(table: String, count: Int)] = []
        /// Tables whose copy differs from the source (their names and why); empty when the copy is exact.
        public var differences: [String] = []
        /// Whether the copy is exact.
        public var isExact: Bool { differences.isEmpty }
    }

    /// The tables in an order that satisfies the foreign keys (assets before their resources and memberships).
    static let tables = [
        "library_meta", "assets", "resources", "collection_lists", "albums", "album_assets", "change_transactions",
        "change_log", "journal", "placement_intents", "derivatives", "file_records",
    ]
    /// library_meta keys that describe the database rather than the library: the target keeps its own.
    static let ownMetaKeys: Set<String> = ["schema_version", "application"]
    static let pageSize = 2000

    /// Copies `library`'s catalog to `target` (`.postgres` with a connection string, or `.sqlite` with `sqlitePath`,
    /// a file that must not exist) and checks the copy.
    ///
    /// - Throws: ``PhotosError`` when the target is not empty or cannot be reached, when source and target are the
    ///   same kind, or with the database's error (then the target holds nothing of the copy: it is one transaction).
    public static func copy(_ library: PhotoLibrary, to target: CatalogLocation, sqlitePath: String? = nil) throws
        -> Report
    {
        guard library.catalog.isPostgres != target.isPostgres else {
            throw PhotosError.invalidParameter(
                "The catalog is already in \(target.isPostgres ? "PostgreSQL" : "SQLite"); migrate copies it to the other "
                    + "kind.")
        }
        let source = try open(library.connector, action: "open the catalog to copy")
        let destination: Database
        if target.isPostgres {
            let connector = CatalogConnector(location: target, sqlitePath: "")
            destination = try open(connector, action: "connect to the PostgreSQL database to copy into")
            let version = try wrap("read the target's schema") { try PostgresSchema.version(of: destination) }
            guard version == 0 else {
                throw PhotosError(
                    .invalidParameter, title: "Target not empty",
                    message: "The PostgreSQL database (\(target)) already holds a photodrop catalog (schema version "
                        + "\(version)); migrate copies into an empty database only. Create a new one (createdb).")
            }
            _ = try wrap("create the schema") { try PostgresSchema.prepare(destination) }
        } else {
            guard let sqlitePath else { throw PhotosError.invalidParameter("A SQLite target needs the file's path.") }
            guard !FileSystem.exists(atPath: sqlitePath) else {
                throw PhotosError(
                    .invalidParameter, title: "Target exists",
                    message: "'\(sqlitePath)' exists already; migrate writes a new SQLite catalog only. Give the path of "
                        + "a file that does not exist yet (it becomes the library's library.sqlite).")
            }
            destination = try wrap("create '\(sqlitePath)'") {
                let database = try Database(path: sqlitePath, mode: .readWrite(create: true))
                try Schema.migrator.migrate(database)
                return database
            }
        }
        var report = Report()
        // One snapshot of the source for the copy and its check: nodes writing meanwhile (a backup of a live library)
        // change neither.
        try wrap("copy the catalog") { try source.execute("BEGIN DEFERRED") }
        defer { try? source.execute("COMMIT") }
        try wrap("copy the catalog") {
            try destination.inTransaction(.immediate) {
                if !destination.isPostgres { try destination.execute("PRAGMA defer_foreign_keys = ON") }
                for table in tables {
                    let count = try copyTable(table, from: source, to: destination)
                    report.rows.append((table, count))
                }
                if destination.isPostgres { try resetIdentities(destination) }
            }
        }
        try wrap("check the copy") {
            for table in tables {
                let (sourceCount, sourceDigest) = try digest(table, source)
                let (targetCount, targetDigest) = try digest(table, destination)
                if sourceCount != targetCount {
                    report.differences.append("\(table): \(sourceCount) rows in the source, \(targetCount) in the copy")
                } else if sourceDigest != targetDigest {
                    report.differences.append("\(table): the rows differ (SHA-256 of the table's rows)")
                }
            }
        }
        return report
    }

    /// Compares `library`'s catalog with another catalog of the same library (`other`: the SQLite file of a copy when
    /// `library` is in PostgreSQL, or the reverse), table by table: row counts and a SHA-256 of every table's rows,
    /// each side read in one snapshot. The report's rows are `library`'s counts.
    ///
    /// - Throws: ``PhotosError`` when a side cannot be read, or when the two are different libraries (their
    ///   `library_id`s differ).
    public static func compare(_ library: PhotoLibrary, with other: CatalogLocation, sqlitePath: String) throws -> Report {
        let source = try open(library.connector, action: "open the catalog")
        let copy = try open(CatalogConnector(location: other, sqlitePath: sqlitePath), action: "open '\(other)'")
        try wrap("read the catalogs") {
            try source.execute("BEGIN DEFERRED")
            try copy.execute("BEGIN DEFERRED")
        }
        defer {
            try? source.execute("COMMIT")
            try? copy.execute("COMMIT")
        }
        let identity = "SELECT value FROM library_meta WHERE key = 'library_id'"
        let ids = try wrap("read the libraries' ids") {
            (try source.firstRow(identity) { $0.string(0) }, try copy.firstRow(identity) { $0.string(0) })
        }
        guard ids.0 == ids.1 else {
            throw PhotosError(
                .invalidParameter, title: "Different libraries",
                message: "The two catalogs belong to different libraries (library ids \(ids.0 ?? "none") and "
                    + "\(ids.1 ?? "none")): there is nothing to compare.")
        }
        var report = Report()
        try wrap("compare the catalogs") {
            for table in tables {
                let (ownCount, ownDigest) = try digest(table, source)
                let (otherCount, otherDigest) = try digest(table, copy)
                report.rows.append((table, ownCount))
                if ownCount != otherCount {
                    report.differences.append("\(table): \(ownCount) rows here, \(otherCount) in the other")
                } else if ownDigest != otherDigest {
                    report.differences.append("\(table): the rows differ (SHA-256 of the table's rows)")
                }
            }
        }
        return report
    }

    // MARK: - Copying

    private static func open(_ connector: CatalogConnector, action: String) throws -> Database {
        try wrap(action) { try connector.location.isPostgres ? connector.openPostgres() : connector.openReader() }
    }

    private static func wrap<R>(_ action: String, _ body: () throws -> R) throws -> R {
        do { return try body() } catch let error as DatabaseError {
            throw PhotosError.database(error, action: action, library: error.path ?? "")
        }
    }

    /// The columns both sides have, in the target's order.
    static func columns(_ table: String, _ database: Database) throws -> [String] {
        if database.isPostgres {
            return try database.rows(
                """
                SELECT column_name FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = ? ORDER BY ordinal_position
                """, [.text(table)]
            ) { $0.string(0) }
        }
        return try database.rows("SELECT name FROM pragma_table_info(?) ORDER BY cid", [.text(table)]) { $0.string(0) }
    }

    private static func copyTable(_ table: String, from source: Database, to destination: Database) throws -> Int {
        let targetColumns = try columns(table, destination)
        let sourceColumns = Set(try columns(table, source))
        let shared = targetColumns.filter(sourceColumns.contains)
        guard !shared.isEmpty else { return 0 }
        let list = shared.joined(separator: ", ")
        let placeholders = shared.map { _ in "?" }.joined(separator: ", ")
        var insert = "INSERT INTO \(table)(\(list)) "
        if destination.isPostgres { insert += "OVERRIDING SYSTEM VALUE " }
        insert += "VALUES (\(placeholders))"
        if table == "library_meta" {
            insert += " ON CONFLICT(key) DO UPDATE SET value = excluded.value"
        }
        let statement = try destination.prepare(insert)
        var copied = 0
        var offset = 0
        while true {
            let page = try source.rows(
                "SELECT \(list) FROM \(table) ORDER BY \(order(shared.count)) LIMIT ? OFFSET ?",
                [.integer(Int64(pageSize)), .integer(Int64(offset))]
            ) { row in (0..<Int32(shared.count)).map { row.value($0) } }
            for values in page {
                if table == "library_meta", case .text(let key) = values[0], ownMetaKeys.contains(key) { continue }
                try statement.bind(values)
                _ = try statement.step()
                statement.reset()
                copied += 1
            }
            offset += page.count
            if page.count < pageSize { break }
        }
        return copied
    }

    /// `1 NULLS FIRST, 2 NULLS FIRST, …`: one order on both engines (text compared byte by byte on both).
    private static func order(_ count: Int) -> String {
        (1...count).map { "\($0) NULLS FIRST" }.joined(separator: ", ")
    }

    /// Moves every identity sequence past the copied ids, so that the next row gets a new one.
    private static func resetIdentities(_ database: Database) throws {
        let identities = try database.rows(
            """
            SELECT table_name, column_name FROM information_schema.columns
            WHERE table_schema = current_schema() AND is_identity = 'YES'
            """
        ) { ($0.string(0), $0.string(1)) }
        for (table, column) in identities {
            try database.run(
                """
                SELECT setval(pg_get_serial_sequence(?, ?), coalesce((SELECT max(\(column)) FROM \(table)), 0) + 1, false)
                """, [.text(table), .text(column)])
        }
    }

    // MARK: - Checking

    /// The table's row count and the SHA-256 of its rows (each value as text, in one order), the target's own
    /// library_meta keys left out.
    static func digest(_ table: String, _ database: Database) throws -> (Int, String) {
        let all = try columns(table, database)
        guard !all.isEmpty else { return (0, "") }
        let list = all.sorted().joined(separator: ", ")
        let ownKeys = ownMetaKeys.sorted().map { "'\($0)'" }.joined(separator: ", ")
        let filter = table == "library_meta" ? " WHERE key NOT IN (\(ownKeys))" : ""
        var hasher = try SHA256()
        var count = 0
        var offset = 0
        while true {
            let page = try database.rows(
                "SELECT \(list) FROM \(table)\(filter) ORDER BY \(order(all.count)) LIMIT ? OFFSET ?",
                [.integer(Int64(pageSize)), .integer(Int64(offset))]
            ) { row in (0..<Int32(all.count)).map { canonical(row.value($0)) }.joined(separator: "\u{1F}") }
            for line in page {
                let bytes = Array((line + "\u{1E}").utf8)
                try bytes.withUnsafeBytes { try hasher.update($0) }
            }
            count += page.count
            offset += page.count
            if page.count < pageSize { break }
        }
        return (count, try hasher.finalize().description)
    }

    /// A value as text that is the same for the same value on both engines.
    private static func canonical(_ value: SQLValue) -> String {
        switch value {
        case .null: return "\u{0}"
        case .integer(let number): return String(number)
        case .real(let number): return number == number.rounded() && abs(number) < 1e15 ? String(Int64(number)) : "\(number)"
        case .text(let text): return text
        case .blob(let data): return PostgresText.hex(data)
        }
    }
}
