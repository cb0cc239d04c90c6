/// The writer's statements that run once per asset, prepared once when the writer opens, so that the hot path of a
/// group commit does not even look them up in the statement cache.
final class WriterStatements {
    let assetBySHA256: Statement
    let insertAsset: Statement
    let insertResource: Statement
    let insertMembership: Statement
    let insertIntent: Statement
    let insertChange: Statement
    let assetState: Statement
    let assetByUUID: Statement

    init(database: Database) throws {
        assetBySHA256 = try database.prepare(SQL.assetBySHA256)
        insertAsset = try database.prepare(SQL.insertAsset)
        insertResource = try database.prepare(SQL.insertResource)
        insertMembership = try database.prepare(SQL.insertMembership)
        insertIntent = try database.prepare(SQL.insertIntent)
        insertChange = try database.prepare(SQL.insertChange)
        assetState = try database.prepare(SQL.assetState)
        assetByUUID = try database.prepare(SQL.assetByUUID)
    }

    /// The statements' text, written in the SQL that SQLite and PostgreSQL share (`PostgresDialect` does the rest).
    enum SQL {
        static let assetBySHA256 = """
            SELECT a.id, a.uuid, a.deleted_date IS NOT NULL, r.id, r.path, r.byte_count, r.damage
            FROM resources r JOIN assets a ON a.id = r.asset_id WHERE r.sha256 = ?
            """
        static let insertAsset = """
            INSERT INTO assets(uuid, media_type, media_subtypes, playback_style, creation_date, creation_date_source,
                added_date, modification_date, pixel_width, pixel_height, duration, latitude, longitude, altitude,
                is_favorite, is_hidden, content_identifier, creation_time_zone_offset, creation_date_is_floating,
                title, caption, keywords, rating, pairing_key, awaits_partner, camera_make, camera_model,
                capture_details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            RETURNING id
            """
        static let insertResource = """
            INSERT INTO resources(asset_id, type, sha256, byte_count, mime_type, uniform_type_identifier,
                original_filename, path)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        static let insertMembership = """
            INSERT INTO album_assets(album_id, asset_id, position) VALUES (?, ?, ?) ON CONFLICT DO NOTHING
            """
        static let insertIntent = """
            INSERT INTO placement_intents(session, batch, action, method, source, source_inode, destination, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """
        static let insertChange = "INSERT INTO change_log(token, object_type, uuid, change_type) VALUES (?, ?, ?, ?)"
        static let assetState = "SELECT is_hidden, deleted_date IS NOT NULL FROM assets WHERE id = ?"
        static let assetByUUID = "SELECT id FROM assets WHERE uuid = ?"

        /// Every statement, for checks that each one runs on both backends.
        static let all: [(name: String, sql: String)] = [
            ("assetBySHA256", assetBySHA256),
            ("insertAsset", insertAsset),
            ("insertResource", insertResource),
            ("insertMembership", insertMembership),
            ("insertIntent", insertIntent),
            ("insertChange", insertChange),
            ("assetState", assetState),
            ("assetByUUID", assetByUUID),
        ]
    }
}
