import FoundationEssentials

/// An asset fetch, described as data so that it can run again (for ``FetchResultChangeDetails``) and compiled to one
/// SQL statement (plus one for the resources of the rows found).
struct AssetQuery: Sendable, Hashable {
    enum Source: Sendable, Hashable {
        /// Every asset that is not deleted.
        case all
        /// The members of a regular album, in album order by default.
        case album(rowID: Int64)
        /// A smart album.
        case smart(SmartAlbum)
        /// Assets by identifier, in the order given by default.
        case identifiers([String])
    }

    var source: Source
    var options: FetchOptions

    static let columns = """
        a.id, a.uuid, a.media_type, a.media_subtypes, a.playback_style, a.creation_date, a.creation_date_source, \
        a.added_date, a.modification_date, a.pixel_width, a.pixel_height, a.duration, a.latitude, a.longitude, \
        a.altitude, a.is_favorite, a.is_hidden, a.deleted_date, a.content_identifier, a.creation_time_zone_offset, \
        a.creation_date_is_floating, a.title, a.caption, a.keywords, a.rating, a.pairing_key, a.awaits_partner, \
        a.camera_make, a.camera_model, a.capture_details
        """

    /// Compiles the query.
    func compile() throws -> SQLBuilder {
        var sql = SQLBuilder()
        sql.append("SELECT \(AssetQuery.columns) FROM assets a")
        var defaultOrder = "a.creation_date, a.id"
        switch source {
        case .all:
            sql.append(" WHERE a.deleted_date IS NULL")
            if !options.includeHiddenAssets { sql.append(" AND a.is_hidden = 0") }
        case .album(let rowID):
            sql.append(" JOIN album_assets m ON m.asset_id = a.id WHERE m.album_id = ")
            sql.bind(.integer(rowID))
            sql.append(" AND a.deleted_date IS NULL")
            if !options.includeHiddenAssets { sql.append(" AND a.is_hidden = 0") }
            defaultOrder = "m.position, m.asset_id"
        case .smart(let album):
            sql.append(" WHERE ")
            sql.append(options.includeHiddenAssets ? "(\(album.condition))" : "(\(album.visibleCondition))")
            defaultOrder = album.naturalOrder
        case .identifiers(let identifiers):
            let uuids = identifiers.compactMap(LocalIdentifier.assetUUID)
            sql.append(" JOIN json_each(")
            sql.bind(.text(AssetQuery.jsonArray(uuids)))
            sql.append(") j ON a.uuid = j.value WHERE TRUE")
            if !options.includeHiddenAssets { sql.append(" AND a.is_hidden = 0") }
            defaultOrder = "j.key"
        }
        if let predicate = options.predicate {
            sql.append(" AND (")
            try AssetQuery.compile(predicate, into: &sql, keyset: walksByCaptureTime)
            sql.append(")")
        }
        sql.append(" ORDER BY ")
        if options.sortDescriptors.isEmpty {
            sql.append(defaultOrder)
        } else {
            for descriptor in options.sortDescriptors {
                sql.append("\(try AssetQuery.column(for: descriptor.key)) \(descriptor.direction), ")
            }
            // Ties go the way of the last key, so that a descending order is the exact reverse of the ascending one
            // (what keyset pagination with ``FetchPredicate/capturedBefore(_:)`` relies on).
            sql.append(options.sortDescriptors.last?.ascending == false ? "a.id DESC" : "a.id")
        }
        if options.fetchLimit > 0 {
            sql.append(" LIMIT ")
            sql.bind(.integer(Int64(options.fetchLimit)))
        }
        return sql
    }

    /// Whether the query walks the newest-first order by capture time (sorted by creation date descending): then a
    /// ``FetchPredicate/capturedBefore(_:)`` at the top level is compiled as an index range over the dated assets,
    /// and ``fetch(_:library:)`` adds the assets without a date after them. As one condition with an `OR … IS NULL`
    /// for those, SQLite walked the date index from the newest asset on every page, so a page deep into a large
    /// library cost many times more than the first.
    var walksByCaptureTime: Bool {
        options.sortDescriptors == [FetchSortDescriptor(key: .creationDate, ascending: false)]
    }

    /// The dated cursor the query continues after, when it is compiled as an index range (see
    /// ``walksByCaptureTime``).
    var datedCursor: AssetCursor? {
        guard walksByCaptureTime else { return nil }
        func dated(_ predicate: FetchPredicate) -> AssetCursor? {
            if case .capturedBefore(let cursor) = predicate, cursor.creationDate != nil { return cursor }
            return nil
        }
        switch options.predicate {
        case let predicate? where dated(predicate) != nil: return dated(predicate)
        case .and(let parts)?: return parts.lazy.compactMap(dated).first
        default: return nil
        }
    }

    /// Runs the query on `database` (inside a read transaction for a consistent snapshot).
    func fetch(_ database: Database, library: PhotoLibrary) throws -> [Asset] {
        let sql = try compile()
        if case .identifiers(let identifiers) = source, identifiers.isEmpty { return [] }
        var records = try database.rows(sql.sql, sql.values, row: AssetQuery.record)
        if let cursor = datedCursor, options.fetchLimit == 0 || records.count < options.fetchLimit {
            // The dated assets ran out within this page: the ones without a date follow (they sort last).
            var tail = self
            let start = FetchPredicate.capturedBefore(AssetCursor(creationDate: nil, rowID: Int64.max))
            tail.options.predicate = AssetQuery.replacing(cursor, with: start, in: options.predicate)
            if options.fetchLimit > 0 { tail.options.fetchLimit = options.fetchLimit - records.count }
            let sql = try tail.compile()
            records += try database.rows(sql.sql, sql.values, row: AssetQuery.record)
        }
        try AssetQuery.attachResources(to: &records, database: database, libraryURL: library.url)
        return records.map { Asset(record: $0, library: library) }
    }

    /// `predicate` with the top-level `capturedBefore(cursor)` replaced by `replacement`.
    static func replacing(_ cursor: AssetCursor, with replacement: FetchPredicate, in predicate: FetchPredicate?)
        -> FetchPredicate?
    {
        switch predicate {
        case .capturedBefore(cursor)?: return replacement
        case .and(let parts)?:
            return .and(parts.map { if case .capturedBefore(cursor) = $0 { replacement } else { $0 } })
        default: return predicate
        }
    }

    /// Keywords as stored: a JSON array of strings.
    static func encodeKeywords(_ keywords: [String]) -> String? {
        guard !keywords.isEmpty, let data = try? JSONEncoder().encode(keywords) else { return nil }
        return String(decoding: data, as: UTF8.self)
    }

    static func decodeKeywords(_ text: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(text.utf8))) ?? []
    }

    /// Decodes a row selected with ``columns``; resources are attached afterwards.
    static func record(_ row: Statement) -> Asset.Record {
        let location: Location? =
            if let latitude = row.optionalDouble(12), let longitude = row.optionalDouble(13) {
                Location(latitude: latitude, longitude: longitude, altitude: row.optionalDouble(14))
            } else { nil }
        return Asset.Record(
            rowID: row.int64(0), uuid: row.string(1),
            mediaType: AssetMediaType(rawValue: row.int(2)) ?? .unknown,
            mediaSubtypes: AssetMediaSubtypes(rawValue: row.int(3)),
            playbackStyle: AssetPlaybackStyle(rawValue: row.int(4)) ?? .unsupported,
            creationDate: row.optionalDouble(5).map(Date.init(timeIntervalSince1970:)),
            creationDateSource: row.optionalString(6),
            creationTimeZoneOffset: row.optionalInt64(19).map { Int($0) }, isCreationDateFloating: row.bool(20),
            addedDate: Date(timeIntervalSince1970: row.double(7)),
            modificationDate: Date(timeIntervalSince1970: row.double(8)),
            pixelWidth: row.int(9), pixelHeight: row.int(10), duration: row.double(11), location: location,
            isFavorite: row.bool(15), isHidden: row.bool(16),
            deletedDate: row.optionalDouble(17).map(Date.init(timeIntervalSince1970:)),
            contentIdentifier: row.optionalString(18), title: row.optionalString(21), caption: row.optionalString(22),
            keywords: row.optionalString(23).map(AssetQuery.decodeKeywords) ?? [],
            rating: row.optionalInt64(24).map { Int($0) }, pairingKey: row.optionalString(25),
            awaitsPartner: row.bool(26), cameraMake: row.optionalString(27), cameraModel: row.optionalString(28),
            captureDetailsJSON: row.optionalString(29), resources: [])
    }

    /// Loads the resources of `records` with one statement and attaches them, primary resource first.
    static func attachResources(to records: inout [Asset.Record], database: Database, libraryURL: URL) throws {
        guard !records.isEmpty else { return }
        var indexByRow: [Int64: Int] = [:]
        indexByRow.reserveCapacity(records.count)
        for (index, record) in records.enumerated() { indexByRow[record.rowID] = index }
        let ids = "[" + records.map { String($0.rowID) }.joined(separator: ",") + "]"
        let statement = try database.cachedStatement(
            """
            SELECT r.asset_id, r.type, r.original_filename, r.uniform_type_identifier, r.mime_type, r.sha256,
                   r.byte_count, r.path
            FROM resources r WHERE r.asset_id IN (SELECT CAST(value AS BIGINT) FROM json_each(?)) ORDER BY r.asset_id, r.type, r.id
            """)
        defer { statement.reset() }
        try statement.bind(ids, at: 1)
        while try statement.step() {
            guard let index = indexByRow[statement.int64(0)] else { continue }
            let relativePath = statement.string(7)
            records[index].resources.append(
                AssetResource(
                    type: AssetResourceType(rawValue: statement.int(1)) ?? .photo,
                    assetLocalIdentifier: LocalIdentifier.asset(uuid: records[index].uuid),
                    originalFilename: statement.string(2), uniformTypeIdentifier: statement.optionalString(3),
                    mimeType: statement.optionalString(4), sha256: statement.string(5),
                    byteCount: statement.int64(6),
                    fileURL: libraryURL.appendingPathComponent(relativePath, isDirectory: false),
                    relativePath: relativePath))
        }
    }

    static func jsonArray(_ strings: [String]) -> String {
        // Identifiers are validated UUIDs (hex digits and dashes): nothing to escape.
        "[" + strings.map { "\"\($0)\"" }.joined(separator: ",") + "]"
    }

    static func column(for key: FetchSortDescriptor.Key) throws -> String {
        switch key {
        case .creationDate: return "a.creation_date"
        case .addedDate: return "a.added_date"
        case .modificationDate: return "a.modification_date"
        case .pixelWidth: return "a.pixel_width"
        case .pixelHeight: return "a.pixel_height"
        case .duration: return "a.duration"
        case .isFavorite: return "a.is_favorite"
        case .mediaType: return "a.media_type"
        case .title:
            throw PhotosError.invalidParameter("Sorting assets by title is not possible; titles belong to albums.")
        }
    }

    /// `keyset`: a top-level ``FetchPredicate/capturedBefore(_:)`` with a date becomes an index range over the dated
    /// assets only (see ``walksByCaptureTime``); nested under `or` or `not` it keeps its full meaning.
    static func compile(_ predicate: FetchPredicate, into sql: inout SQLBuilder, keyset: Bool = false) throws {
        switch predicate {
        case .mediaType(let type):
            sql.append("a.media_type = ")
            sql.bind(.integer(Int64(type.rawValue)))
        case .playbackStyle(let style):
            sql.append("a.playback_style = ")
            sql.bind(.integer(Int64(style.rawValue)))
        case .isFavorite(let value):
            sql.append("a.is_favorite = ")
            sql.bind(.bool(value))
        case .isHidden(let value):
            sql.append("a.is_hidden = ")
            sql.bind(.bool(value))
        case .creationDate(let from, let to):
            compileRange(column: "a.creation_date", from: from, to: to, into: &sql)
        case .addedDate(let from, let to):
            compileRange(column: "a.added_date", from: from, to: to, into: &sql)
        case .sha256(let digest):
            sql.append("a.id IN (SELECT r.asset_id FROM resources r WHERE r.sha256 = ")
            sql.bind(.text(digest.lowercased()))
            sql.append(")")
        case .originalFilename(let match):
            sql.append("EXISTS (SELECT 1 FROM resources r WHERE r.asset_id = a.id AND ")
            compile(match, column: "r.original_filename", into: &sql)
            sql.append(")")
        case .contentIdentifier(let identifier):
            sql.append("a.content_identifier = ")
            sql.bind(.text(identifier))
        case .awaitingPartner(let keys):
            // A subquery, so that SQLite reads the partial index: as a plain condition beside the default sort by
            // capture date and a limit, it walked the date index instead, every asset of the library when none
            // awaits (an ingest asks once per batch).
            sql.append("a.id IN (SELECT w.id FROM assets w WHERE w.awaits_partner = 1")
            if let keys {
                sql.append(" AND w.pairing_key IN (SELECT value FROM json_each(")
                sql.bind(.text(jsonArray(keys)))
                sql.append("))")
            }
            sql.append(")")
        case .pairingKey(let keys):
            sql.append("a.pairing_key IN (SELECT value FROM json_each(")
            sql.bind(.text(jsonArray(keys)))
            sql.append("))")
        case .capturedBefore(let cursor):
            // Descending by (creation_date, id), NULL dates last: a row comes after the cursor when its date is
            // smaller, or equal with a smaller id, or missing; after a cursor without a date, only smaller ids
            // without a date.
            if let date = cursor.creationDate, keyset {
                // A row-value range SQLite starts at the cursor in the date index; the dateless rows come from a
                // second query (fetch).
                sql.append("(a.creation_date, a.id) < (")
                sql.bind(.real(date))
                sql.append(", ")
                sql.bind(.integer(cursor.rowID))
                sql.append(")")
            } else if let date = cursor.creationDate {
                sql.append("(a.creation_date < ")
                sql.bind(.real(date))
                sql.append(" OR (a.creation_date = ")
                sql.bind(.real(date))
                sql.append(" AND a.id < ")
                sql.bind(.integer(cursor.rowID))
                sql.append(") OR a.creation_date IS NULL)")
            } else {
                sql.append("(a.creation_date IS NULL AND a.id < ")
                sql.bind(.integer(cursor.rowID))
                sql.append(")")
            }
        case .localIdentifier(let identifiers):
            sql.append("a.uuid IN (SELECT value FROM json_each(")
            sql.bind(.text(jsonArray(identifiers.compactMap(LocalIdentifier.assetUUID))))
            sql.append("))")
        case .title:
            throw PhotosError.invalidParameter(
                "The title predicate applies to albums, not assets; fetch the album first, then its assets.")
        case .and(let parts), .or(let parts):
            let isAnd: Bool = if case .and = predicate { true } else { false }
            guard !parts.isEmpty else {
                sql.append(isAnd ? "1" : "0")
                return
            }
            for (index, part) in parts.enumerated() {
                if index > 0 { sql.append(isAnd ? " AND " : " OR ") }
                sql.append("(")
                // Only a cursor directly under the top-level `and` (what `datedCursor` finds) is a range.
                let isCursor: Bool = if case .capturedBefore = part { true } else { false }
                try compile(part, into: &sql, keyset: keyset && isAnd && isCursor)
                sql.append(")")
            }
        case .not(let part):
            sql.append("NOT (")
            try compile(part, into: &sql)
            sql.append(")")
        }
    }

    static func compileRange(column: String, from: Date?, to: Date?, into sql: inout SQLBuilder) {
        sql.append("\(column) IS NOT NULL")
        if let from {
            sql.append(" AND \(column) >= ")
            sql.bind(.real(from.timeIntervalSince1970))
        }
        if let to {
            sql.append(" AND \(column) < ")
            sql.bind(.real(to.timeIntervalSince1970))
        }
    }

    /// Compiles a text comparison that is exact and case-sensitive (no LIKE, whose case folding and wildcards would
    /// change the meaning of titles such as `100%_done`).
    static func compile(_ match: FetchPredicate.TextMatch, column: String, into sql: inout SQLBuilder) {
        switch match {
        case .equals(let text):
            sql.append("\(column) = ")
            sql.bind(.text(text))
        case .contains(let text):
            sql.append("instr(\(column), ")
            sql.bind(.text(text))
            sql.append(") > 0")
        case .hasPrefix(let text):
            sql.append("substr(\(column), 1, length(")
            sql.bind(.text(text))
            sql.append(")) = ")
            sql.bind(.text(text))
        }
    }
}
