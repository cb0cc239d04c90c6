import FoundationEssentials

/// A collection fetch, compiled to one SQL statement over the albums table and the smart albums (a `VALUES` list), so
/// that the same filters, order and limit apply to both.
struct CollectionQuery: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        /// Collections of a type and subtype (`.any` for all subtypes).
        case type(AssetCollectionType, AssetCollectionSubtype)
        /// Collections by identifier, in the order given by default.
        case identifiers([String])
        /// Collections of a type that contain an asset.
        case containing(assetRowID: Int64, type: AssetCollectionType)
        /// The album bound to a key (or, for a key without `/`, the oldest unbound top-level album of that title).
        case bindingKey(String)
        /// The albums directly in a folder (nil: at the top level).
        case parent(folderUUID: String?)
    }

    var source: Source
    var options: FetchOptions

    /// The smart albums as rows of the common table: natural order before every album.
    static let smartRows: String = SmartAlbum.allCases.map { album in
        // NULLs typed: PostgreSQL types a VALUES list on its own, before the UNION (an untyped NULL is text there).
        "(CAST(NULL AS BIGINT), '\(album.localIdentifier)', \(AssetCollectionType.smartAlbum.rawValue), "
            + "\(album.subtype.rawValue), '\(album.title)', CAST(NULL AS DOUBLE PRECISION), \(album.rawValue - 100), "
            + "CAST(NULL AS BIGINT), CAST(NULL AS BIGINT), CAST(NULL AS TEXT), CAST(NULL AS TEXT))"
    }.joined(separator: ", ")

    /// For a smart album row `c`, whether the asset `a` belongs to it.
    static let smartMembership: String =
        "CASE c.subtype "
        + SmartAlbum.allCases.map { "WHEN \($0.subtype.rawValue) THEN (\($0.visibleCondition))" }.joined(separator: " ")
        + " ELSE FALSE END"

    func compile() throws -> SQLBuilder {
        var sql = SQLBuilder()
        sql.append(
            """
            WITH c(row_id, local_identifier, type, subtype, title, creation_date, natural_order, asset_count,
                   parent_id, binding_key, summary) AS (
                SELECT id, uuid || '\(LocalIdentifier.collectionSuffix)', \(AssetCollectionType.album.rawValue),
                       \(AssetCollectionSubtype.albumRegular.rawValue), title, creation_date, id, asset_count,
                       parent_id, binding_key, summary
                FROM albums
                UNION ALL VALUES \(CollectionQuery.smartRows)
            )
            SELECT c.row_id, c.local_identifier, c.type, c.subtype, c.title, c.creation_date,
                   CASE WHEN c.row_id IS NOT NULL THEN c.asset_count
                        ELSE (SELECT count(*) FROM assets a WHERE \(CollectionQuery.smartMembership)) END,
                   (SELECT uuid FROM collection_lists l WHERE l.id = c.parent_id), c.binding_key, c.summary
            FROM c
            """)
        var defaultOrder = "c.natural_order"
        switch source {
        case .type(let type, let subtype):
            sql.append(" WHERE c.type = ")
            sql.bind(.integer(Int64(type.rawValue)))
            if subtype != .any {
                sql.append(" AND c.subtype = ")
                sql.bind(.integer(Int64(subtype.rawValue)))
            }
        case .identifiers(let identifiers):
            sql.append(" JOIN json_each(")
            sql.bind(.text(CollectionQuery.identifierArray(identifiers)))
            sql.append(") j ON c.local_identifier = j.value WHERE TRUE")
            defaultOrder = "j.key"
        case .containing(let assetRowID, let type):
            sql.append(" WHERE c.type = ")
            sql.bind(.integer(Int64(type.rawValue)))
            sql.append(
                " AND CASE WHEN c.row_id IS NOT NULL THEN "
                    + "EXISTS (SELECT 1 FROM album_assets m WHERE m.album_id = c.row_id AND m.asset_id = ")
            sql.bind(.integer(assetRowID))
            sql.append(") ELSE EXISTS (SELECT 1 FROM assets a WHERE a.id = ")
            sql.bind(.integer(assetRowID))
            sql.append(" AND \(CollectionQuery.smartMembership)) END")
        case .bindingKey(let folder):
            sql.append(" WHERE c.row_id IS NOT NULL AND c.binding_key = ")
            sql.bind(.text(folder))
        case .parent(let folderUUID):
            sql.append(" WHERE c.row_id IS NOT NULL AND ")
            if let folderUUID {
                sql.append("c.parent_id = (SELECT id FROM collection_lists WHERE uuid = ")
                sql.bind(.text(folderUUID))
                sql.append(")")
            } else {
                sql.append("c.parent_id IS NULL")
            }
        }
        if let predicate = options.predicate {
            sql.append(" AND (")
            try CollectionQuery.compile(predicate, into: &sql)
            sql.append(")")
        }
        sql.append(" ORDER BY ")
        if options.sortDescriptors.isEmpty {
            sql.append(defaultOrder)
        } else {
            for descriptor in options.sortDescriptors {
                let column: String
                switch descriptor.key {
                case .title: column = "c.title"
                case .creationDate: column = "c.creation_date"
                default:
                    throw PhotosError.invalidParameter(
                        "Collections can be sorted by title or creationDate, not by \(descriptor.key.rawValue).")
                }
                sql.append("\(column) \(descriptor.direction), ")
            }
            sql.append("c.natural_order")
        }
        if options.fetchLimit > 0 {
            sql.append(" LIMIT ")
            sql.bind(.integer(Int64(options.fetchLimit)))
        }
        return sql
    }

    func fetch(_ database: Database, library: PhotoLibrary) throws -> [AssetCollection] {
        if case .identifiers(let identifiers) = source, identifiers.isEmpty { return [] }
        let sql = try compile()
        return try database.rows(sql.sql, sql.values) { row in
            AssetCollection(
                record: AssetCollection.Record(
                    rowID: row.optionalInt64(0), localIdentifier: row.string(1),
                    type: AssetCollectionType(rawValue: row.int(2)) ?? .album,
                    subtype: AssetCollectionSubtype(rawValue: row.int(3)) ?? .albumRegular,
                    title: row.string(4), creationDate: row.optionalDouble(5).map(Date.init(timeIntervalSince1970:)),
                    estimatedAssetCount: row.int(6), parentUUID: row.optionalString(7),
                    bindingKey: row.optionalString(8), summary: row.optionalString(9)),
                library: library)
        }
    }

    /// The identifiers as a JSON array, keeping only well-formed ones (album identifiers are normalised).
    static func identifierArray(_ identifiers: [String]) -> String {
        let normalised: [String] = identifiers.compactMap { identifier in
            if SmartAlbum(localIdentifier: identifier) != nil { return identifier }
            return LocalIdentifier.collectionUUID(identifier).map(LocalIdentifier.collection(uuid:))
        }
        return AssetQuery.jsonArray(normalised)
    }

    static func compile(_ predicate: FetchPredicate, into sql: inout SQLBuilder) throws {
        switch predicate {
        case .title(let match):
            AssetQuery.compile(match, column: "c.title", into: &sql)
        case .localIdentifier(let identifiers):
            sql.append("c.local_identifier IN (SELECT value FROM json_each(")
            sql.bind(.text(identifierArray(identifiers)))
            sql.append("))")
        case .and(let parts), .or(let parts):
            let isAnd: Bool = if case .and = predicate { true } else { false }
            guard !parts.isEmpty else {
                sql.append(isAnd ? "1" : "0")
                return
            }
            for (index, part) in parts.enumerated() {
                if index > 0 { sql.append(isAnd ? " AND " : " OR ") }
                sql.append("(")
                try compile(part, into: &sql)
                sql.append(")")
            }
        case .not(let part):
            sql.append("NOT (")
            try compile(part, into: &sql)
            sql.append(")")
        default:
            throw PhotosError.invalidParameter(
                "Collections can be filtered by title and localIdentifier only; \(predicate) applies to assets.")
        }
    }
}
