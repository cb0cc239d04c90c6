import FoundationEssentials

extension PhotoLibrary {
    /// The token of the newest committed change (`currentChangeToken`). For a library that does not exist yet it is
    /// a token that comes before every change the library will have.
    public var currentChangeToken: PersistentChangeToken {
        get throws {
            try read("read the current change token") { database in
                let (libraryID, _) = try PhotoLibrary.historyBounds(database)
                return PersistentChangeToken(libraryID: libraryID, value: try PhotoLibrary.latestToken(database))
            } ?? PersistentChangeToken(libraryID: "", value: 0)
        }
    }

    /// The changes committed after `token`, oldest first (`fetchPersistentChanges(since:)`), at most `limit` of them.
    ///
    /// Works across processes: the history is written in the same transaction as each change.
    ///
    /// - Throws: ``PhotosError`` `.persistentChangeTokenExpired` when the history after `token` has been pruned (see
    ///   ``HistoryRetention``: re-read the library and continue from ``currentChangeToken``), and
    ///   `.persistentChangeDetailsUnavailable` for a token of another library or one newer than the history.
    public func fetchPersistentChanges(since token: PersistentChangeToken, limit: Int? = nil) throws
        -> [PersistentChange]
    {
        let changes = try read("read the change history") { database -> [PersistentChange] in
            let (libraryID, prunedThrough) = try PhotoLibrary.historyBounds(database)
            let latest = try PhotoLibrary.latestToken(database)
            try PhotoLibrary.validate(token, libraryID: libraryID, latest: latest, prunedThrough: prunedThrough)
            return try PhotoLibrary.changes(database, libraryID: libraryID, after: token.value, limit: limit)
        }
        if let changes { return changes }
        guard token.libraryID.isEmpty, token.value == 0 else {
            throw PhotosError(
                .persistentChangeDetailsUnavailable, title: "Unknown change token",
                message: "There is no library at '\(url.path)', so the token \(token) cannot be from it.")
        }
        return []
    }

    static func historyBounds(_ database: Database) throws -> (libraryID: String, prunedThrough: Int64) {
        let libraryID =
            try database.firstRow("SELECT value FROM library_meta WHERE key = 'library_id'") {
                $0.string(0)
            } ?? ""
        let pruned =
            try database.firstRow("SELECT value FROM library_meta WHERE key = 'history_pruned_through'") {
                Int64($0.string(0)) ?? 0
            } ?? 0
        return (libraryID, pruned)
    }

    /// The newest token committed (or pruned): in SQLite, the table's AUTOINCREMENT counter; in PostgreSQL, the
    /// newest row, else what was pruned (its identity sequence runs ahead of commits that other nodes have not
    /// finished, and a token that is not yet visible must never be handed out).
    static func latestToken(_ database: Database) throws -> Int64 {
        if database.isPostgres {
            return try database.int64(
                """
                SELECT coalesce((SELECT max(token) FROM change_transactions),
                    (SELECT CAST(value AS BIGINT) FROM library_meta WHERE key = 'history_pruned_through'), 0)
                """) ?? 0
        }
        return try database.int64("SELECT seq FROM sqlite_sequence WHERE name = 'change_transactions'") ?? 0
    }

    private static func validate(
        _ token: PersistentChangeToken, libraryID: String, latest: Int64, prunedThrough: Int64
    ) throws {
        if !token.libraryID.isEmpty && token.libraryID != libraryID {
            throw PhotosError(
                .persistentChangeDetailsUnavailable, title: "Unknown change token",
                message: "The token \(token) belongs to another library (this one is \(libraryID)); start again from "
                    + "this library's currentChangeToken.")
        }
        if token.value > latest {
            throw PhotosError(
                .persistentChangeDetailsUnavailable, title: "Unknown change token",
                message: "The token \(token) is newer than this library's history (latest \(latest)); was the library "
                    + "restored from a backup? Start again from its currentChangeToken.")
        }
        if token.value < prunedThrough {
            throw PhotosError(
                .persistentChangeTokenExpired, title: "Change token expired",
                message: "The history after \(token) has been pruned (kept from \(prunedThrough) on); re-read the "
                    + "library and continue from its currentChangeToken.")
        }
    }

    private static func changes(_ database: Database, libraryID: String, after value: Int64, limit: Int?) throws
        -> [PersistentChange]
    {
        var sql = SQLBuilder()
        sql.append(
            """
            SELECT t.token, t.committed_at, l.object_type, l.uuid, l.change_type
            FROM change_transactions t LEFT JOIN change_log l ON l.token = t.token
            WHERE t.token > 
            """)
        sql.bind(.integer(value))
        if let limit {
            sql.append(" AND t.token IN (SELECT token FROM change_transactions WHERE token > ")
            sql.bind(.integer(value))
            sql.append(" ORDER BY token LIMIT ")
            sql.bind(.integer(Int64(max(0, limit))))
            sql.append(")")
        }
        sql.append(" ORDER BY t.token")
        var result: [PersistentChange] = []
        var current:
            (
                token: Int64, date: Date, assets: PersistentObjectChangeDetails,
                collections: PersistentObjectChangeDetails, lists: PersistentObjectChangeDetails
            )?
        func flush() {
            if let current {
                result.append(
                    PersistentChange(
                        changeToken: PersistentChangeToken(libraryID: libraryID, value: current.token),
                        date: current.date, assets: current.assets, collections: current.collections,
                        collectionLists: current.lists))
            }
        }
        let statement = try database.prepare(sql.sql)
        try statement.bind(sql.values)
        while try statement.step() {
            let token = statement.int64(0)
            if current?.token != token {
                flush()
                current = (
                    token, Date(timeIntervalSince1970: Double(statement.int64(1)) / 1000),
                    PersistentObjectChangeDetails(objectType: .asset),
                    PersistentObjectChangeDetails(objectType: .assetCollection),
                    PersistentObjectChangeDetails(objectType: .collectionList)
                )
            }
            guard !statement.isNull(2), let type = PhotoObjectType(rawValue: statement.int(2)),
                let kind = ObjectChangeKind(rawValue: statement.int(4))
            else { continue }
            let uuid = statement.string(3)
            let identifier =
                switch type {
                case .asset: LocalIdentifier.asset(uuid: uuid)
                case .assetCollection: LocalIdentifier.collection(uuid: uuid)
                case .collectionList: LocalIdentifier.collectionList(uuid: uuid)
                }
            switch (type, kind) {
            case (.asset, .inserted): current?.assets.insertedLocalIdentifiers.insert(identifier)
            case (.asset, .updated): current?.assets.updatedLocalIdentifiers.insert(identifier)
            case (.asset, .deleted): current?.assets.deletedLocalIdentifiers.insert(identifier)
            case (.assetCollection, .inserted): current?.collections.insertedLocalIdentifiers.insert(identifier)
            case (.assetCollection, .updated): current?.collections.updatedLocalIdentifiers.insert(identifier)
            case (.assetCollection, .deleted): current?.collections.deletedLocalIdentifiers.insert(identifier)
            case (.collectionList, .inserted): current?.lists.insertedLocalIdentifiers.insert(identifier)
            case (.collectionList, .updated): current?.lists.updatedLocalIdentifiers.insert(identifier)
            case (.collectionList, .deleted): current?.lists.deletedLocalIdentifiers.insert(identifier)
            }
        }
        flush()
        return result
    }
}
