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
        assetBySHA256 = try database.prepare(
            """
            SELECT a.id, a.uuid, a.deleted_date IS NOT NULL, r.id, r.path, r.byte_count, r.damage
            FROM resources r JOIN assets a ON a.id = r.asset_id WHERE r.sha256 = ?
            """)
        insertAsset = try database.prepare(
            """
            INSERT INTO assets(uuid, media_type, media_subtypes, playback_style, creation_date, creation_date_source,
                added_date, modification_date, pixel_width, pixel_height, duration, latitude, longitude, altitude,
                is_favorite, is_hidden, content_identifier, creation_time_zone_offset, creation_date_is_floating,
                title, caption, keywords, rating, pairing_key, awaits_partner, camera_make, camera_model,
                capture_details)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertResource = try database.prepare(
            """
            INSERT INTO resources(asset_id, type, sha256, byte_count, mime_type, uniform_type_identifier,
                original_filename, path)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertMembership = try database.prepare(
            "INSERT OR IGNORE INTO album_assets(album_id, asset_id, position) VALUES (?, ?, ?)")
        insertIntent = try database.prepare(
            """
            INSERT INTO placement_intents(session, batch, action, method, source, source_inode, destination, created_at)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?)
            """)
        insertChange = try database.prepare(
            "INSERT INTO change_log(token, object_type, uuid, change_type) VALUES (?, ?, ?, ?)")
        assetState = try database.prepare(
            "SELECT is_hidden, deleted_date IS NOT NULL FROM assets WHERE id = ?")
        assetByUUID = try database.prepare("SELECT id FROM assets WHERE uuid = ?")
    }
}
