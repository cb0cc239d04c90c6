import PostgresClient

/// The catalog's schema in PostgreSQL, as forward-only migrations of its own.
///
/// - v2: `nodes`, one row per `watch` node: its host, process, version and last heartbeat (database time), and what
///   it holds (claims in flight, files waiting).
/// - v1: the catalog as SQLite's schema stood at its version 13 (no replay of SQLite's history): the same tables and
///   columns, so that one set of statements serves both; 64-bit integers, `DOUBLE PRECISION` for SQLite's REAL,
///   `BYTEA` for its blobs, identity columns for its row ids, and every text column compared byte by byte
///   (`COLLATE "C"`), as SQLite's BINARY does, whatever locale the database was created with.
///
/// `library_meta` says whose database it is (`application` = `photodrop`) and its schema version
/// (`schema_version`): a database that holds other tables, or that a newer photodrop migrated, is refused, never
/// written to.
public enum PostgresSchema {
    /// Names a migration step for errors and logs.
    struct Migration: Sendable {
        let version: Int
        let name: String
        let sql: String
    }

    static let migrations: [Migration] = [version1, version2]

    /// Tables PostgreSQL's catalog has and SQLite's does not: what several nodes share (``NodeRegistration``).
    public static let sharedOnlyTables: Set<String> = ["nodes"]

    /// The version after the last step this photodrop knows.
    public static var latestVersion: Int { migrations.last?.version ?? 0 }

    /// What ``prepare(_:)`` found and did.
    public enum Preparation: Sendable, Equatable {
        /// The database was empty: the whole schema was created.
        case created
        /// The schema was at `from` and was brought to the latest version.
        case migrated(from: Int)
        /// Nothing to do.
        case current
    }

    /// The advisory lock that makes one node at a time create or migrate the schema (the others wait, then find it
    /// done): a constant of photodrop's own (`0x70686f746f64726f` is "photodro" in ASCII).
    static let migrationLock: Int64 = 0x7068_6f74_6f64_726f

    /// Creates or migrates photodrop's schema in the database `connection` is connected to, in one transaction.
    ///
    /// - Throws: ``PhotosError`` when the database belongs to another application (it holds tables but no
    ///   `library_meta` saying photodrop), when a newer photodrop migrated it, or with PostgreSQL's error when a step
    ///   fails (then nothing of it stays).
    @discardableResult
    public static func prepare(_ connection: PostgresConnection) throws -> Preparation {
        try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [String(migrationLock)])
            let current = try version(of: connection)
            if current > latestVersion {
                throw PhotosError(
                    .invalidParameter, title: "Catalog newer than this photodrop",
                    message: "the PostgreSQL catalog has schema version \(current), but this photodrop knows up to "
                        + "\(latestVersion): run a newer photodrop on this node (in a rolling upgrade, new nodes "
                        + "migrate the catalog first and old ones stop)")
            }
            if current == latestVersion { return .current }
            for migration in migrations where migration.version > current {
                try connection.executeScript(migration.sql)
                try connection.execute(
                    """
                    INSERT INTO library_meta(key, value) VALUES ('schema_version', $1)
                    ON CONFLICT (key) DO UPDATE SET value = excluded.value
                    """, [String(migration.version)])
            }
            return current == 0 ? .created : .migrated(from: current)
        }
    }

    /// ``prepare(_:)-(PostgresConnection)`` on a catalog connection; PostgreSQL's errors as ``DatabaseError``s.
    @discardableResult
    static func prepare(_ database: Database) throws -> Preparation {
        guard let session = database.postgres else { preconditionFailure("PostgresSchema on a SQLite catalog") }
        do { return try prepare(session.connection) } catch let error as PostgresError {
            throw PostgresSession.databaseError(error, sql: nil, location: session.location)
        }
    }

    /// ``version(of:)-(PostgresConnection)`` on a catalog connection.
    static func version(of database: Database) throws -> Int {
        guard let session = database.postgres else { preconditionFailure("PostgresSchema on a SQLite catalog") }
        do { return try version(of: session.connection) } catch let error as PostgresError {
            throw PostgresSession.databaseError(error, sql: nil, location: session.location)
        }
    }

    /// The schema version of the database: 0 for an empty one.
    ///
    /// - Throws: ``PhotosError`` for a database that holds another application's tables.
    public static func version(of connection: PostgresConnection) throws -> Int {
        let hasMeta = try connection.execute("SELECT to_regclass('library_meta') IS NOT NULL").scalar == "t"
        if !hasMeta {
            let tables = try connection.execute(
                "SELECT tablename FROM pg_tables WHERE schemaname = current_schema() ORDER BY tablename LIMIT 3")
            guard tables.isEmpty else {
                throw foreign(connection, "it holds tables of another application (" + tables.rows.compactMap { $0[0] }
                    .joined(separator: ", ") + ")")
            }
            return 0
        }
        let meta = try connection.execute(
            "SELECT key, value FROM library_meta WHERE key IN ('application', 'schema_version')")
        var values: [String: String] = [:]
        for row in meta.rows { if let key = row[0], let value = row[1] { values[key] = value } }
        guard values["application"] == "photodrop", let version = values["schema_version"].flatMap(Int.init) else {
            throw foreign(connection, "its library_meta table is not photodrop's")
        }
        return version
    }

    private static func foreign(_ connection: PostgresConnection, _ why: String) -> PhotosError {
        let database = (try? connection.execute("SELECT current_database()").scalar) ?? "the database"
        return PhotosError(
            .invalidParameter, title: "Not a photodrop catalog",
            message: "the PostgreSQL database '\(database)' is not photodrop's: \(why). Give photodrop a database of "
                + "its own (e.g. `createdb -O photodrop photodrop`); it never writes into another application's")
    }

    /// Text compared byte by byte, as SQLite's BINARY collation does.
    private static let text = "TEXT COLLATE \"C\""

    static let version1 = Migration(
        version: 1, name: "catalog (SQLite's schema 13)",
        sql: """
            CREATE TABLE library_meta(
                key \(text) PRIMARY KEY,
                value \(text) NOT NULL
            );
            INSERT INTO library_meta(key, value) VALUES
                ('application', 'photodrop'),
                ('library_id', replace(gen_random_uuid()::text, '-', '')),
                ('history_pruned_through', '0');

            CREATE TABLE assets(
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                uuid \(text) NOT NULL UNIQUE,
                media_type BIGINT NOT NULL,
                media_subtypes BIGINT NOT NULL DEFAULT 0,
                playback_style BIGINT NOT NULL,
                creation_date DOUBLE PRECISION,
                creation_date_source \(text),
                added_date DOUBLE PRECISION NOT NULL,
                modification_date DOUBLE PRECISION NOT NULL,
                pixel_width BIGINT NOT NULL DEFAULT 0,
                pixel_height BIGINT NOT NULL DEFAULT 0,
                duration DOUBLE PRECISION NOT NULL DEFAULT 0,
                latitude DOUBLE PRECISION,
                longitude DOUBLE PRECISION,
                altitude DOUBLE PRECISION,
                is_favorite BIGINT NOT NULL DEFAULT 0,
                is_hidden BIGINT NOT NULL DEFAULT 0,
                deleted_date DOUBLE PRECISION,
                content_identifier \(text),
                creation_time_zone_offset BIGINT,
                creation_date_is_floating BIGINT NOT NULL DEFAULT 0,
                creation_zone_pending BIGINT NOT NULL DEFAULT 0,
                title \(text),
                caption \(text),
                keywords \(text),
                rating BIGINT,
                pairing_key \(text),
                awaits_partner BIGINT NOT NULL DEFAULT 0,
                camera_make \(text),
                camera_model \(text),
                capture_details \(text),
                details_pending BIGINT NOT NULL DEFAULT 0
            );
            CREATE INDEX assets_by_creation_date ON assets(creation_date, id);
            CREATE INDEX assets_by_added_date ON assets(added_date, id);
            CREATE INDEX assets_by_content_identifier ON assets(content_identifier) WHERE content_identifier IS NOT NULL;
            CREATE INDEX assets_awaiting_zone ON assets(id) WHERE creation_zone_pending = 1;
            CREATE INDEX assets_awaiting_partner ON assets(pairing_key) WHERE awaits_partner = 1;
            CREATE INDEX assets_awaiting_details ON assets(id) WHERE details_pending = 1;

            CREATE TABLE resources(
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                asset_id BIGINT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
                type BIGINT NOT NULL,
                sha256 \(text) NOT NULL UNIQUE,
                byte_count BIGINT NOT NULL,
                mime_type \(text),
                uniform_type_identifier \(text),
                original_filename \(text) NOT NULL,
                path \(text) NOT NULL,
                damage \(text)
            );
            CREATE INDEX resources_by_asset ON resources(asset_id, type);

            CREATE TABLE collection_lists(
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                uuid \(text) NOT NULL UNIQUE,
                title \(text) NOT NULL,
                creation_date DOUBLE PRECISION NOT NULL,
                parent_id BIGINT,
                binding_key \(text)
            );
            CREATE INDEX collection_lists_by_parent ON collection_lists(parent_id);
            CREATE UNIQUE INDEX collection_lists_by_binding_key ON collection_lists(binding_key)
                WHERE binding_key IS NOT NULL;

            CREATE TABLE albums(
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                uuid \(text) NOT NULL UNIQUE,
                title \(text) NOT NULL,
                creation_date DOUBLE PRECISION NOT NULL,
                next_position BIGINT NOT NULL DEFAULT 0,
                asset_count BIGINT NOT NULL DEFAULT 0,
                parent_id BIGINT,
                binding_key \(text),
                summary \(text)
            );
            CREATE INDEX albums_by_title ON albums(title);
            CREATE INDEX albums_by_parent ON albums(parent_id) WHERE parent_id IS NOT NULL;
            CREATE UNIQUE INDEX albums_by_binding_key ON albums(binding_key) WHERE binding_key IS NOT NULL;

            CREATE TABLE album_assets(
                album_id BIGINT NOT NULL REFERENCES albums(id) ON DELETE CASCADE,
                asset_id BIGINT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
                position BIGINT NOT NULL,
                PRIMARY KEY(album_id, asset_id)
            );
            CREATE INDEX album_assets_by_position ON album_assets(album_id, position);
            CREATE INDEX album_assets_by_asset ON album_assets(asset_id);

            CREATE TABLE change_transactions(
                token BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                committed_at BIGINT NOT NULL
            );
            CREATE TABLE change_log(
                token BIGINT NOT NULL,
                object_type BIGINT NOT NULL,
                uuid \(text) NOT NULL,
                change_type BIGINT NOT NULL,
                PRIMARY KEY(token, object_type, uuid)
            );

            CREATE TABLE journal(
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                kind \(text) NOT NULL,
                payload BYTEA NOT NULL,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX journal_by_kind ON journal(kind, id);

            CREATE TABLE placement_intents(
                id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                session \(text) NOT NULL,
                batch BIGINT NOT NULL,
                action BIGINT NOT NULL,
                method BIGINT NOT NULL,
                source \(text),
                source_inode BIGINT,
                destination \(text) NOT NULL,
                created_at BIGINT NOT NULL
            );
            CREATE INDEX placement_intents_by_batch ON placement_intents(session, batch);

            CREATE TABLE derivatives(
                asset_id BIGINT NOT NULL REFERENCES assets(id) ON DELETE CASCADE,
                kind BIGINT NOT NULL,
                source_sha256 \(text) NOT NULL,
                created_at DOUBLE PRECISION NOT NULL,
                path \(text),
                sha256 \(text),
                byte_count BIGINT,
                mime_type \(text),
                pixel_width BIGINT,
                pixel_height BIGINT,
                failure \(text),
                PRIMARY KEY(asset_id, kind)
            );

            CREATE TABLE file_records(
                id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                kind \(text) NOT NULL,
                device BIGINT NOT NULL,
                inode BIGINT NOT NULL,
                recorded_at BIGINT NOT NULL,
                payload BYTEA NOT NULL
            );
            CREATE INDEX file_records_by_file ON file_records(device, inode, id);
            CREATE INDEX file_records_by_time ON file_records(recorded_at);
            """)

    static let version2 = Migration(
        version: 2, name: "nodes",
        sql: """
            CREATE TABLE nodes(
                id \(text) PRIMARY KEY,
                host \(text) NOT NULL,
                pid BIGINT NOT NULL,
                version \(text) NOT NULL,
                inbox \(text) NOT NULL,
                started_at TIMESTAMPTZ NOT NULL,
                heartbeat_at TIMESTAMPTZ NOT NULL,
                stopped_at TIMESTAMPTZ,
                claimed BIGINT NOT NULL DEFAULT 0,
                waiting BIGINT NOT NULL DEFAULT 0
            );
            """)
}
