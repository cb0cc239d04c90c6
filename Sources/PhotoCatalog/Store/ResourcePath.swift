import PhotodropSystem

/// Finds the resource row of a stored path (`originals/xx/<asset-uuid>[-n].<ext>`) without an index on paths.
///
/// Schema v4 dropped the unique index on `resources.path`: the name of a stored file starts with its asset's UUID, so
/// the `assets.uuid` index and `resources_by_asset` lead to the few rows that can hold the path. A path that does not
/// have that shape (nothing photodrop writes) is looked up by a scan of the table.
enum ResourcePath {
    /// Whether a resource row refers to `path` (relative to the library folder).
    static func isReferenced(_ path: String, in database: Database) throws -> Bool {
        if let uuid = assetUUID(inStoredPath: path) {
            return try database.int64(
                """
                SELECT 1 FROM assets a JOIN resources r ON r.asset_id = a.id
                WHERE a.uuid = ? AND r.path = ? LIMIT 1
                """, [.text(uuid), .text(path)]) != nil
        }
        return try database.int64("SELECT 1 FROM resources WHERE path = ? LIMIT 1", [.text(path)]) != nil
    }

    /// The asset UUID a stored file's name starts with (upper-case, as the database keeps it), or nil.
    static func assetUUID(inStoredPath path: String) -> String? {
        let name = Path.lastComponent(of: path).utf8
        guard name.count >= 36 else { return nil }
        var uuid: [UInt8] = []
        uuid.reserveCapacity(36)
        for (index, byte) in name.prefix(36).enumerated() {
            switch (index, byte) {
            case (8, UInt8(ascii: "-")), (13, UInt8(ascii: "-")), (18, UInt8(ascii: "-")), (23, UInt8(ascii: "-")):
                uuid.append(byte)
            case (8, _), (13, _), (18, _), (23, _):
                return nil
            case (_, UInt8(ascii: "0")...UInt8(ascii: "9")), (_, UInt8(ascii: "A")...UInt8(ascii: "F")):
                uuid.append(byte)
            case (_, UInt8(ascii: "a")...UInt8(ascii: "f")):
                uuid.append(byte - 32)
            default:
                return nil
            }
        }
        if name.count > 36 {
            let next = name[name.index(name.startIndex, offsetBy: 36)]
            guard next == UInt8(ascii: ".") || next == UInt8(ascii: "-") else { return nil }
        }
        return String(decoding: uuid, as: UTF8.self)
    }
}
