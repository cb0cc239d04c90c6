import FoundationEssentials

extension PhotoLibrary {
    /// A journal entry moved from a dead node to this one by ``takeOverJournalEntries(ofNode:fromKind:toKind:ids:lease:rewrite:)``.
    public struct TakenOverEntry: Sendable {
        /// The entry's id under the dead node (gone now).
        public var oldID: Int64
        /// Its id under this node: the new fencing number of the work it stands for.
        public var newID: Int64
        /// The payload as written under the new id.
        public var payload: Data
    }

    /// The nodes of a shared (PostgreSQL) catalog other than `excluding` whose lease ran out: their last heartbeat is
    /// older than `lease` seconds by the database's clock (a node's own clock never counts). Empty on SQLite.
    public func expiredNodes(lease: Double, excluding node: String) throws -> [String] {
        guard catalog.isPostgres else { return [] }
        return try read("read the nodes whose lease ran out") { database in
            try database.rows(
                """
                SELECT id FROM nodes
                WHERE id <> ? AND heartbeat_at < now() - CAST(? AS DOUBLE PRECISION) * interval '1 second'
                ORDER BY id
                """, [.text(node), .real(lease)]
            ) { $0.string(0) }
        } ?? []
    }

    /// Takes the journal entries `ids` of kind `fromKind` from node `node`, whose lease ran out, for this node: in one
    /// transaction each is deleted and written again as kind `toKind` with `rewrite`'s payload, under a new id (a
    /// photodrop addition, for the work a dead node had claimed).
    ///
    /// The new id is the work's fencing number: a commit of the dead node that consumes the old entry
    /// (``JournalChangeRequest/consumeEntries(_:kind:)``) fails from now on, so that a node waking up after its lease
    /// was taken cannot finish the same work a second time. Nothing is taken while `node` still lives: the transaction
    /// takes the node's advisory lock (held by its running daemon for as long as its session lasts) and checks its
    /// heartbeat is older than `lease` seconds by the database's clock; entries the dead node consumed meanwhile are
    /// simply not returned.
    ///
    /// - Returns: the entries taken, in id order; empty when the node lives, or on SQLite (one node writes there).
    public func takeOverJournalEntries(
        ofNode node: String, fromKind: String, toKind: String, ids: [Int64], lease: Double,
        rewrite: @escaping @Sendable (_ oldID: Int64, _ payload: Data) -> Data
    ) async throws -> [TakenOverEntry] {
        guard catalog.isPostgres, !ids.isEmpty else { return [] }
        return try await writer.run {
            let connection = try self.openWriter()
            do {
                try connection.checkLibraryInPlace()
                let database = connection.database
                return try database.inTransaction(.immediate) { () throws -> [TakenOverEntry] in
                    let free = try database.firstRow(
                        "SELECT pg_try_advisory_xact_lock(CAST(? AS INTEGER), hashtext(?))",
                        [.integer(Int64(NodeRegistration.lockClass)), .text(node)]
                    ) { $0.bool(0) }
                    guard free == true else { return [] }
                    let expired = try database.firstRow(
                        """
                        SELECT count(*) FROM nodes
                        WHERE id = ? AND heartbeat_at >= now() - CAST(? AS DOUBLE PRECISION) * interval '1 second'
                        """, [.text(node), .real(lease)]
                    ) { $0.int64(0) } == 0
                    guard expired else { return [] }
                    let taken = try database.rows(
                        """
                        DELETE FROM journal
                        WHERE kind = ? AND id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))
                        RETURNING id, payload
                        """, [.text(fromKind), .text("[" + ids.map(String.init).joined(separator: ",") + "]")]
                    ) { ($0.int64(0), $0.data(1)) }.sorted { $0.0 < $1.0 }
                    let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
                    var entries: [TakenOverEntry] = []
                    for (oldID, payload) in taken {
                        let fresh = rewrite(oldID, payload)
                        let newID = try database.firstRow(
                            "INSERT INTO journal(kind, payload, created_at) VALUES (?, ?, ?) RETURNING id",
                            [.text(toKind), .blob(fresh), .integer(now)]
                        ) { $0.int64(0) }
                        guard let newID else {
                            throw DatabaseError(extendedCode: 1, message: "INSERT … RETURNING id returned no row")
                        }
                        entries.append(TakenOverEntry(oldID: oldID, newID: newID, payload: fresh))
                    }
                    return entries
                }
            } catch {
                throw connection.mapped(error, action: "take over the journal entries of node '\(node)'")
            }
        }
    }
}
