import FoundationEssentials

/// A folder fetch compiled to one SQL statement over `collection_lists`.
struct CollectionListQuery: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        case all
        /// By UUID, in the order given.
        case identifiers([String])
        /// Directly in a folder (nil: at the top level).
        case parent(folderUUID: String?)
        /// The folder bound to a key.
        case bindingKey(String)
    }

    var source: Source
    var options: FetchOptions

    func compile() throws -> SQLBuilder {
        var sql = SQLBuilder()
        sql.append(
            """
            SELECT l.id, l.uuid, l.title, l.creation_date, p.uuid, l.binding_key,
                   (SELECT count(*) FROM collection_lists k WHERE k.parent_id = l.id)
                   + (SELECT count(*) FROM albums a WHERE a.parent_id = l.id)
            FROM collection_lists l LEFT JOIN collection_lists p ON p.id = l.parent_id
            """)
        var defaultOrder = "l.id"
        switch source {
        case .all:
            sql.append(" WHERE TRUE")
        case .identifiers(let uuids):
            sql.append(" JOIN json_each(")
            sql.bind(.text(AssetQuery.jsonArray(uuids)))
            sql.append(") j ON l.uuid = j.value WHERE TRUE")
            defaultOrder = "j.key"
        case .parent(let folderUUID):
            if let folderUUID {
                sql.append(" WHERE p.uuid = ")
                sql.bind(.text(folderUUID))
            } else {
                sql.append(" WHERE l.parent_id IS NULL")
            }
        case .bindingKey(let folder):
            sql.append(" WHERE l.binding_key = ")
            sql.bind(.text(folder))
        }
        if let predicate = options.predicate {
            guard case .title(let match) = predicate else {
                throw PhotosError.invalidParameter("Folders can be filtered by title only; \(predicate) is not.")
            }
            sql.append(" AND ")
            AssetQuery.compile(match, column: "l.title", into: &sql)
        }
        sql.append(" ORDER BY ")
        for descriptor in options.sortDescriptors {
            switch descriptor.key {
            case .title: sql.append("l.title")
            case .creationDate: sql.append("l.creation_date")
            default:
                throw PhotosError.invalidParameter(
                    "Folders can be sorted by title or creationDate, not by \(descriptor.key.rawValue).")
            }
            sql.append(" \(descriptor.direction), ")
        }
        sql.append(defaultOrder)
        if options.fetchLimit > 0 {
            sql.append(" LIMIT ")
            sql.bind(.integer(Int64(options.fetchLimit)))
        }
        return sql
    }

    func fetch(_ database: Database, library: PhotoLibrary) throws -> [CollectionList] {
        if case .identifiers(let uuids) = source, uuids.isEmpty { return [] }
        let sql = try compile()
        return try database.rows(sql.sql, sql.values) { row in
            CollectionList(
                record: CollectionList.Record(
                    rowID: row.int64(0), uuid: row.string(1), title: row.string(2),
                    creationDate: Date(timeIntervalSince1970: row.double(3)), parentUUID: row.optionalString(4),
                    bindingKey: row.optionalString(5), childCount: row.int(6)),
                library: library)
        }
    }
}

extension PhotoLibrary {
    func fetchCollectionLists(_ query: CollectionListQuery) throws -> FetchResult<CollectionList> {
        _ = try query.compile()
        let objects = try read("fetch folders") { try query.fetch($0, library: self) } ?? []
        return FetchResult(
            objects: objects, library: self, dependsOn: [.collections],
            refetch: { database, library in try query.fetch(database, library: library) })
    }
}
