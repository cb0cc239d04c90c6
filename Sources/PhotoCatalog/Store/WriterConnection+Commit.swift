import FoundationEssentials
import PhotodropSystem

/// What a committed block did.
struct CommitResult {
    var token: Int64?
    var commitDate: Date?
    var changes: ChangeSet
    var outcomes: [AssetCreationOutcome]
    var createdCollections: [String]
}

/// A block must start over: another process changed the content it relied on.
private struct ConflictRetry: Error {}

extension WriterConnection {
    /// The PostgreSQL advisory lock that orders the change history across nodes ("photohis" in ASCII).
    static let historyLock: Int64 = 0x7068_6f74_6f68_6973

    /// Commits a finished block in one transaction (every row and the change log), while a ``PlacementStep`` writes
    /// the block's ``IntentLog`` and then places its files; the transaction commits only once every file is in place.
    /// On any failure the files are put back and nothing is left.
    func commit(_ context: ChangeContext, dataVersionAtStart: Int64?) throws -> CommitResult {
        var dataVersion = dataVersionAtStart
        var attempts = 0
        while true {
            var placements: [Placement]
            do { placements = try plan(context) } catch { throw mapped(error, action: "plan where the new originals go") }
            let batch = makeBatch()
            let placing =
                placements.isEmpty
                ? nil
                : PlacementStep(placements, on: placementQueue) { placements in
                    try self.resolveAndPlace(&placements, batch: batch)
                }
            /// Waits for the placement step (at most once) and takes its placements back.
            func placed() -> (any Error)? {
                guard let placing else { return nil }
                let failure = placing.finish()
                placements = placing.placements
                return failure
            }
            let applier = ChangeApplier(writer: self, now: Date())
            var token: Int64?
            var commitDate: Date?
            do {
                try checkLibraryInPlace()
                try database.inTransaction(.immediate) {
                    // On PostgreSQL other nodes commit all the time: the unique SHA-256 index and the foreign keys catch
                    // a block whose lookups went stale (the retry below), without a second lookup per file.
                    if let version = try self.dataVersion(), version != dataVersion, try !resolutionsStillHold(context) {
                        throw ConflictRetry()
                    }
                    try applier.holdConsumedJournalEntries(context.operations)
                    try applier.createAll(context.assetCreations)
                    for request in context.resourceAdditions { try applier.addResources(request) }
                    for request in context.collectionListCreations { try applier.createCollectionList(request) }
                    for request in context.collectionCreations { try applier.createCollection(request) }
                    for operation in context.operations { try applier.apply(operation) }
                    try applier.flushAlbums()
                    for path in applier.purgedPaths {
                        try insertIntent(
                            action: .remove, method: .copy, source: nil, inode: nil, destination: path, batch: batch)
                    }
                    // On PostgreSQL the history's lock is held from the token's allocation to the commit: the files are
                    // placed first, so that other nodes wait for this one's commit only, never for its disk.
                    if database.isPostgres, let failure = placed() { throw PlacementFailure(underlying: failure) }
                    if !applier.changes.assets.isEmpty || !applier.changes.collections.isEmpty
                        || !applier.changes.collectionLists.isEmpty
                    {
                        (token, commitDate) = try writeHistory(applier.changes)
                    }
                    if let failure = placed() { throw PlacementFailure(underlying: failure) }
                }
            } catch let error as DatabaseError
                where database.isPostgres && ["23505", "23503", "40001", "40P01"].contains(error.sqlState)
            {
                // Another node stored the same content (the SHA-256 is unique) or removed an asset the block used (a
                // foreign key) between this block's lookups and its commit, or PostgreSQL chose this transaction to
                // give way: decide again and retry, as below.
                _ = placed()
                undo(placements, batch: batch)
                attempts += 1
                guard attempts < 8 else { throw mapped(error, action: "save the changes") }
                try reresolve(context)
                continue
            } catch is ConflictRetry {
                _ = placed()
                undo(placements, batch: batch)
                attempts += 1
                guard attempts < 4 else {
                    throw PhotosError(
                        .operationInterrupted, title: "Library changed concurrently",
                        message: "Another process kept adding the same content while this change was being saved; "
                            + "retry the change.")
                }
                dataVersion = try self.dataVersion()
                try reresolve(context)
                continue
            } catch let failure as PlacementFailure {
                undo(placements, batch: batch)
                throw mapped(failure.underlying, action: "store the new originals")
            } catch {
                _ = placed()
                undo(placements, batch: batch)
                throw mapped(error, action: "save the changes")
            }
            finishCommitted(placements, purged: applier.purgedPaths, batch: batch)
            if token != nil { pruneHistoryIfNeeded(latest: token!) }
            return CommitResult(
                token: token, commitDate: commitDate, changes: applier.changes,
                outcomes: outcomes(context, placements, restored: applier.restoredRequests),
                createdCollections: context.collectionCreations.compactMap {
                    $0.placeholderForCreatedAssetCollection?.localIdentifier
                })
        }
    }

    /// Appends journal entries in one transaction; returns their ids in order.
    func appendJournal(kind: String, payloads: [Data]) throws -> [Int64] {
        let now = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        try checkLibraryInPlace()
        return try database.inTransaction(.immediate) {
            if database.isPostgres {
                // One statement for the batch (each row would be a round trip to the server, and another for its id).
                var rows = PostgresBulkRows(table: "journal", columns: ["kind", "payload", "created_at"])
                for payload in payloads { rows.append([.text(kind), .blob(payload), .integer(now)]) }
                return try rows.insertReturningIDs(into: database)
            }
            let insert = try database.cachedStatement("INSERT INTO journal(kind, payload, created_at) VALUES (?, ?, ?)")
            var ids: [Int64] = []
            ids.reserveCapacity(payloads.count)
            for payload in payloads {
                try insert.bind(kind, at: 1)
                try insert.bind(payload, at: 2)
                try insert.bind(now, at: 3)
                _ = try insert.step()
                insert.reset()
                ids.append(try database.lastInsertRowID)
            }
            return ids
        }
    }

    /// Removes journal entries in one transaction.
    func removeJournal(ids: [Int64]) throws {
        try checkLibraryInPlace()
        try database.inTransaction(.immediate) { try deleteJournalRows(ids) }
    }

    /// Deletes journal entries in the current transaction (one statement, the ids as a JSON array).
    func deleteJournalRows(_ ids: [Int64]) throws {
        guard !ids.isEmpty else { return }
        try database.run(
            "DELETE FROM journal WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))",
            [.text("[" + ids.map(String.init).joined(separator: ",") + "]")])
    }

    func insertIntent(
        action: PlacementIntent.Action, method: PlacementIntent.Method, source: String?, inode: UInt64?,
        destination: String, batch: Int64
    ) throws {
        let insert = statements.insertIntent
        try insert.bind(session.id, at: 1)
        try insert.bind(batch, at: 2)
        try insert.bind(action.rawValue, at: 3)
        try insert.bind(method.rawValue, at: 4)
        try insert.bind(source, at: 5)
        try insert.bind(inode.map { Int64(bitPattern: $0) }, at: 6)
        try insert.bind(destination, at: 7)
        try insert.bind(Int64(Date().timeIntervalSince1970 * 1000), at: 8)
        _ = try insert.step()
        insert.reset()
    }

    private func outcomes(_ context: ChangeContext, _ placements: [Placement], restored: Set<ObjectIdentifier>)
        -> [AssetCreationOutcome]
    {
        var repairs: [ObjectIdentifier: Placement] = [:]
        for placement in placements where placement.repairs != nil {
            repairs[ObjectIdentifier(placement.request)] = placement
        }
        return context.assetCreations.map { request in
            let state = request.state
            let isDuplicate: Bool = if case .new = state.resolution { false } else { true }
            let repair = repairs[ObjectIdentifier(request)].flatMap { placement in
                placement.repairs.map { original in
                    RepairedOriginal(
                        path: absolute(original.path), problem: original.problem?.description ?? "damaged",
                        damagedFileKeptAt: placement.setAside.map(absolute))
                }
            }
            return AssetCreationOutcome(
                localIdentifier: request.placeholderForCreatedAsset?.localIdentifier ?? "",
                isDuplicate: isDuplicate,
                restoredFromRecentlyDeleted: restored.contains(ObjectIdentifier(request)),
                sourcePaths: state.resources.map(\.sourcePath),
                storedPaths: isDuplicate && repair == nil
                    ? [] : state.resources.compactMap { $0.destination.map { "\(libraryPath)/\($0)" } },
                repairedOriginal: repair,
                alreadyStoredSourcePaths: state.resources.filter { !$0.type.isPrimary && $0.isSkipped }.map(\.sourcePath))
        }
    }

    // MARK: Conflicts with other processes

    /// Whether every creation's duplicate decision still matches the database (another process may have committed
    /// in between).
    private func resolutionsStillHold(_ context: ChangeContext) throws -> Bool {
        for request in context.assetCreations {
            let state = request.state
            guard let primary = state.resources.first(where: { $0.type == .photo || $0.type == .video }) else {
                continue
            }
            let stored = try asset(withSHA256: primary.sha256)
            switch state.resolution {
            case .new: if stored != nil { return false }
            case .existing(let rowID, _, _):
                if stored?.rowID != rowID { return false }
                // A repair decided on an original that another process has repaired (or damaged) since: decide again.
                if let stored, (originalNeedingRepair(stored.original) != nil) != (state.repair != nil) {
                    return false
                }
            case .sameAs, .addition: continue
            }
        }
        return true
    }

    /// Decides again, against the database now, which creations are duplicates.
    private func reresolve(_ context: ChangeContext) throws {
        context.creationBySHA256.removeAll()
        for request in context.assetCreations {
            let state = request.state
            guard let primary = state.resources.first(where: { $0.type == .photo || $0.type == .video }) else {
                continue
            }
            let resolution: AssetCreationRequest.Resolution
            let identifier: String
            var repair: StoredOriginal?
            if let earlier = context.creationBySHA256[primary.sha256] {
                resolution = .sameAs(earlier)
                identifier = LocalIdentifier.asset(uuid: earlier.uuid)
            } else if let existing = try asset(withSHA256: primary.sha256) {
                resolution = .existing(rowID: existing.rowID, uuid: existing.uuid, isDeleted: existing.isDeleted)
                identifier = LocalIdentifier.asset(uuid: existing.uuid)
                repair = originalNeedingRepair(existing.original)
            } else {
                resolution = .new
                identifier = LocalIdentifier.asset(uuid: request.uuid)
                context.creationBySHA256[primary.sha256] = request
            }
            request.creation.withLock {
                $0.resolution = resolution
                $0.repair = repair
                $0.rowID = nil
            }
            request.placeholderForCreatedAsset?.resolve(to: identifier)
        }
    }

    // MARK: History

    /// Writes the transaction row (commit time in milliseconds) and one log row per changed object.
    private func writeHistory(_ changes: ChangeSet) throws -> (Int64, Date) {
        if database.isPostgres {
            // Tokens must become visible in their order, or a reader that saw token N+1 would never see N: nodes
            // allocate and commit them one at a time (the lock ends with the transaction).
            try database.run("SELECT pg_advisory_xact_lock(?)", [.integer(WriterConnection.historyLock)])
        }
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        try database.run("INSERT INTO change_transactions(committed_at) VALUES (?)", [.integer(milliseconds)])
        let token = try database.lastInsertRowID
        let insert = statements.insertChange
        let maps = [
            (PhotoObjectType.asset, changes.assets), (.assetCollection, changes.collections),
            (.collectionList, changes.collectionLists),
        ]
        if database.isPostgres {
            // One statement per object type and kind, the UUIDs as a JSON array: a round trip per file would cost a
            // PostgreSQL node more than the rest of the row's work (UUIDs are hex digits and dashes: no escaping).
            for (type, map) in maps {
                var byKind: [Int: [String]] = [:]
                for (uuid, kind) in map { byKind[kind.rawValue, default: []].append(uuid) }
                for (kind, uuids) in byKind.sorted(by: { $0.key < $1.key }) {
                    try database.run(
                        """
                        INSERT INTO change_log(token, object_type, uuid, change_type)
                        SELECT ?, ?, value, ? FROM json_each(?)
                        """,
                        [
                            .integer(token), .integer(Int64(type.rawValue)), .integer(Int64(kind)),
                            .text("[\"" + uuids.joined(separator: "\",\"") + "\"]"),
                        ])
                }
            }
            // Every node's `serve` listens (``CommitSignal``): delivered when, and only if, this transaction commits.
            try database.run("SELECT pg_notify(?, ?)", [.text(CommitSignal.channel), .text(String(token))])
            return (token, Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        }
        for (type, map) in maps {
            for (uuid, kind) in map {
                try insert.bind(token, at: 1)
                try insert.bind(type.rawValue, at: 2)
                try insert.bind(uuid, at: 3)
                try insert.bind(kind.rawValue, at: 4)
                _ = try insert.step()
                insert.reset()
            }
        }
        return (token, Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// Prunes the history by the retention policy, at most 50,000 log rows per call (the rest follows with the next
    /// commits). Failures are ignored: pruning is housekeeping and retried later.
    func pruneHistoryIfNeeded(latest: Int64) {
        var target = latest - Int64(retention.maximumTransactions)
        let ageCheckInterval = min(3600, retention.maximumAge / 10)
        if Date().timeIntervalSince(lastAgePrune) >= ageCheckInterval {
            lastAgePrune = Date()
            let cutoff = Int64((Date().timeIntervalSince1970 - retention.maximumAge) * 1000)
            if let old = try? database.int64(
                "SELECT max(token) FROM change_transactions WHERE committed_at < ?", [.integer(cutoff)])
            {
                target = max(target, min(old, latest - Int64(retention.minimumTransactions)))
            }
        }
        guard target > prunedThrough else { return }
        // Bound the work: stop at the transaction that holds the 50,000th row after the pruned point.
        if let bound = try? database.int64(
            "SELECT token FROM change_log WHERE token > ? ORDER BY token LIMIT 1 OFFSET 50000",
            [.integer(prunedThrough)])
        {
            target = min(target, max(bound - 1, prunedThrough + 1))
        }
        let through = target
        let done: Void? = try? database.inTransaction(.immediate) {
            try database.run("DELETE FROM change_log WHERE token <= ?", [.integer(through)])
            try database.run("DELETE FROM change_transactions WHERE token <= ?", [.integer(through)])
            try database.run(
                "UPDATE library_meta SET value = ? WHERE key = 'history_pruned_through'", [.text(String(through))])
        }
        if done != nil {
            prunedThrough = through
            if through < latest - Int64(retention.maximumTransactions) { lastAgePrune = .distantPast }
        }
    }

    // MARK: Errors

    func mapped(_ error: any Error, action: String) -> any Error {
        switch error {
        case let error as PhotosError: return error
        case let error as DatabaseError: return PhotosError.database(error, action: action, library: libraryPath)
        case let error as SystemError: return error.photosError(action: action)
        default: return error
        }
    }
}
