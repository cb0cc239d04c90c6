import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// What a committed block did.
struct CommitResult {
    var token: Int64?
    var commitDate: Date?
    var changes: ChangeSet
    var outcomes: [AssetCreationOutcome]
    var createdCollections: [String]
}

/// One original to place into the library.
struct Placement {
    enum Done {
        case renamed
        case copied
        /// Copied because the source is on another filesystem; the source is removed after the commit.
        case copiedForMove
    }

    let request: AssetCreationRequest
    let resourceIndex: Int
    let source: String
    let sourceInode: UInt64
    let relative: String
    let absolute: String
    let move: Bool
    var done: Done?

    /// What the ``IntentLog`` records for this placement.
    var intent: IntentLog.Entry {
        IntentLog.Entry(
            action: .place, method: move ? .move : .copy, source: source, inode: sourceInode, destination: relative)
    }
}

/// A block must start over: another process changed the content it relied on.
private struct ConflictRetry: Error {}

/// Placing the block's files failed (the transaction is rolled back, the files are put back).
private struct PlacementFailure: Error {
    let underlying: any Error
}

extension WriterConnection {
    /// Commits a finished block in one transaction (every row and the change log), while a ``PlacementStep`` writes
    /// the block's ``IntentLog`` and then places its files; the transaction commits only once every file is in place.
    /// On any failure the files are put back and nothing is left.
    func commit(_ context: ChangeContext, dataVersionAtStart: Int64) throws -> CommitResult {
        var dataVersion = dataVersionAtStart
        var attempts = 0
        while true {
            var placements = plan(context)
            let batch = makeBatch()
            let placing =
                placements.isEmpty
                ? nil
                : PlacementStep(placements, on: placementQueue) { placements in
                    // The intents are durable before the first file moves.
                    try IntentLog.write(
                        placements.map(\.intent), batch: batch, to: self.intentLog, path: self.intentLogPath)
                    try self.place(&placements)
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
                try database.inTransaction(.immediate) {
                    if try self.dataVersion() != dataVersion, try !resolutionsStillHold(context) {
                        throw ConflictRetry()
                    }
                    for request in context.assetCreations { try applier.create(request) }
                    for request in context.collectionCreations { try applier.createCollection(request) }
                    for operation in context.operations { try applier.apply(operation) }
                    try applier.flushAlbums()
                    for path in applier.purgedPaths {
                        try insertIntent(
                            action: .remove, method: .copy, source: nil, inode: nil, destination: path, batch: batch)
                    }
                    if !applier.changes.assets.isEmpty || !applier.changes.collections.isEmpty {
                        (token, commitDate) = try writeHistory(applier.changes)
                    }
                    if let failure = placed() { throw PlacementFailure(underlying: failure) }
                }
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
        return try database.inTransaction(.immediate) {
            let insert = try database.cachedStatement("INSERT INTO journal(kind, payload, created_at) VALUES (?, ?, ?)")
            var ids: [Int64] = []
            ids.reserveCapacity(payloads.count)
            for payload in payloads {
                try insert.bind(kind, at: 1)
                try insert.bind(payload, at: 2)
                try insert.bind(now, at: 3)
                _ = try insert.step()
                insert.reset()
                ids.append(database.lastInsertRowID)
            }
            return ids
        }
    }

    /// Removes journal entries in one transaction.
    func removeJournal(ids: [Int64]) throws {
        try database.inTransaction(.immediate) {
            try database.run(
                "DELETE FROM journal WHERE id IN (SELECT value FROM json_each(?))",
                [.text("[" + ids.map(String.init).joined(separator: ",") + "]")])
        }
    }

    // MARK: Placing files

    /// Assigns destinations `originals/xx/<asset-uuid>[-n].<ext>` to the resources of new assets.
    ///
    /// `xx` is a random byte, drawn afresh after every 128 placements (counted across blocks): folders fill evenly
    /// over a library's life, while a block touches one or two folders, each costing one `fsync` (a disk cache flush)
    /// per block, and a small library does not make all 256 folders. A 2,000-file block makes 16 folder fsyncs
    /// instead of up to 256.
    private func plan(_ context: ChangeContext) -> [Placement] {
        var placements: [Placement] = []
        for request in context.assetCreations {
            guard case .new = request.state.resolution else { continue }
            let name = request.uuid.lowercased()
            if currentFolder.isEmpty || placementsInCurrentFolder >= WriterConnection.placementsPerFolder {
                var byte: UInt8 = 0
                withUnsafeMutableBytes(of: &byte) { RandomPool.shared.fill($0) }
                currentFolder = "originals/" + String(format: "%02x", byte)
                placementsInCurrentFolder = 0
            }
            placementsInCurrentFolder += 1
            let folder = currentFolder
            request.creation.withLock { state in
                var number = 0
                for index in state.resources.indices where !state.resources[index].isSkipped {
                    let resource = state.resources[index]
                    // Interpolation sizes each string once; chains of `+` reallocated four times per file.
                    let suffix = number == 0 ? "" : "-\(number + 1)"
                    let dot = resource.fileExtension.isEmpty ? "" : "."
                    let relative = "\(folder)/\(name)\(suffix)\(dot)\(resource.fileExtension)"
                    state.resources[index].destination = relative
                    number += 1
                    placements.append(
                        Placement(
                            request: request, resourceIndex: index, source: resource.sourcePath,
                            sourceInode: resource.inode, relative: relative, absolute: "\(libraryPath)/\(relative)",
                            move: resource.shouldMove, done: nil))
                }
            }
        }
        return placements
    }

    /// How many files of one block go into the same `originals/xx` folder.
    static let placementsPerFolder = 128

    private func insertIntent(
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

    /// Places every file, then makes the new directory entries durable (one `fsync` per touched directory).
    ///
    /// Copies are written to temporary names first, made durable together (one `syncfs` for the block instead of an
    /// `fsync` per file, which dominated copying imports of many small files), and only then renamed into place, so a
    /// final name never points at bytes that are not on disk.
    private func place(_ placements: inout [Placement]) throws {
        var touched = Set<String>()
        var createdFolders = false
        var copies: [(index: Int, done: Placement.Done)] = []
        for index in placements.indices {
            let placement = placements[index]
            let folder = FilePathText.parent(of: placement.absolute)
            if !knownDirectories.contains(folder) {
                if try SystemCall.makeDirectory(folder) { createdFolders = true }
                knownDirectories.insert(folder)
            }
            if placement.move {
                do {
                    try SystemCall.renameNoReplace(placement.source, placement.absolute)
                    placements[index].done = .renamed
                } catch let error as SystemCallError where error.errno == EXDEV {
                    try copyToTemporary(placement)
                    copies.append((index, .copiedForMove))
                }
            } else {
                try copyToTemporary(placement)
                copies.append((index, .copied))
            }
            touched.insert(folder)
        }
        if !copies.isEmpty {
            let temporaries = copies.map { PlacementIntent.temporaryPath(for: placements[$0.index].absolute) }
            try SystemCall.syncFileSystem(containing: originalsPath, files: temporaries)
            for (index, done) in copies {
                let temporary = PlacementIntent.temporaryPath(for: placements[index].absolute)
                try SystemCall.renameNoReplace(temporary, placements[index].absolute)
                placements[index].done = done
            }
        }
        for folder in touched { try SystemCall.fsyncDirectory(folder) }
        if createdFolders { try SystemCall.fsyncDirectory(originalsPath) }
    }

    /// Copies a source to its destination's temporary name, without syncing (``place(_:)`` syncs the batch).
    private func copyToTemporary(_ placement: Placement) throws {
        let temporary = PlacementIntent.temporaryPath(for: placement.absolute)
        try? SystemCall.unlink(temporary)
        try SystemCall.copyFile(from: placement.source, to: temporary, buffer: buffer, sync: false)
    }

    /// Puts placed files back (renamed ones to their source, copies removed). The intents of files that could not be
    /// put back are copied into the `placement_intents` table, since the next block overwrites the ``IntentLog``; if
    /// even that fails, the log is kept under a name of its own (`<session>.<batch>.intents`). Either way recovery
    /// settles them once this session is gone.
    private func undo(_ placements: [Placement], batch: Int64) {
        var failed: [Placement] = []
        for placement in placements.reversed() {
            switch placement.done {
            case .renamed:
                if (try? SystemCall.renameNoReplace(placement.absolute, placement.source)) == nil {
                    failed.append(placement)
                }
            case .copied, .copiedForMove:
                if (try? SystemCall.unlink(placement.absolute)) == nil { failed.append(placement) }
            case nil:
                // Possibly copied to its temporary name, not yet renamed into place.
                try? SystemCall.unlink(PlacementIntent.temporaryPath(for: placement.absolute))
            }
            request(placement.request, clearDestinationAt: placement.resourceIndex)
        }
        defer { if !placements.isEmpty { clearIntentLog() } }
        guard !failed.isEmpty else { return }
        let kept: Void? = try? database.inTransaction(.immediate) {
            for placement in failed {
                let intent = placement.intent
                try insertIntent(
                    action: intent.action, method: intent.method, source: intent.source, inode: intent.inode,
                    destination: intent.destination, batch: batch)
            }
        }
        if kept == nil {
            let keptLog = IntentLog.keptPath(session: session.id, batch: batch, locksDirectory: session.locksDirectory)
            _ = try? SystemCall.copyFile(from: intentLogPath, to: keptLog, buffer: buffer, sync: true)
        }
    }

    /// Empties the ``IntentLog`` once its block is settled, so that a live writer between blocks shows no intents
    /// in flight (`verify`). Not synced: a log that still holds a settled block's intents after a crash is harmless.
    private func clearIntentLog() {
        _ = ftruncate(intentLog, 0)
    }

    private func request(_ request: AssetCreationRequest, clearDestinationAt index: Int) {
        request.creation.withLock { $0.resources[index].destination = nil }
    }

    /// After the commit: removes sources of cross-filesystem moves and files of purged assets.
    private func finishCommitted(_ placements: [Placement], purged: [String], batch: Int64) {
        if !placements.isEmpty { clearIntentLog() }
        for placement in placements where placement.done == .copiedForMove {
            try? SystemCall.unlink(placement.source)
        }
        guard !purged.isEmpty else { return }
        for path in purged { try? SystemCall.unlink(libraryPath + "/" + path) }
        _ = try? database.inTransaction(.immediate) {
            try database.run(
                "DELETE FROM placement_intents WHERE session = ? AND batch = ?", [.text(session.id), .integer(batch)])
        }
    }

    private func outcomes(_ context: ChangeContext, _ placements: [Placement], restored: Set<ObjectIdentifier>)
        -> [AssetCreationOutcome]
    {
        context.assetCreations.map { request in
            let state = request.state
            let isDuplicate: Bool = if case .new = state.resolution { false } else { true }
            return AssetCreationOutcome(
                localIdentifier: request.placeholderForCreatedAsset?.localIdentifier ?? "",
                isDuplicate: isDuplicate,
                restoredFromRecentlyDeleted: restored.contains(ObjectIdentifier(request)),
                sourcePaths: state.resources.map(\.sourcePath),
                storedPaths: isDuplicate
                    ? [] : state.resources.compactMap { $0.destination.map { "\(libraryPath)/\($0)" } })
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
            case .existing(let rowID, _, _): if stored?.rowID != rowID { return false }
            case .sameAs: continue
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
            if let earlier = context.creationBySHA256[primary.sha256] {
                resolution = .sameAs(earlier)
                identifier = LocalIdentifier.asset(uuid: earlier.uuid)
            } else if let existing = try asset(withSHA256: primary.sha256) {
                resolution = .existing(rowID: existing.rowID, uuid: existing.uuid, isDeleted: existing.isDeleted)
                identifier = LocalIdentifier.asset(uuid: existing.uuid)
            } else {
                resolution = .new
                identifier = LocalIdentifier.asset(uuid: request.uuid)
                context.creationBySHA256[primary.sha256] = request
            }
            request.creation.withLock {
                $0.resolution = resolution
                $0.rowID = nil
            }
            request.placeholderForCreatedAsset?.resolve(to: identifier)
        }
    }

    // MARK: History

    /// Writes the transaction row (commit time in milliseconds) and one log row per changed object.
    private func writeHistory(_ changes: ChangeSet) throws -> (Int64, Date) {
        let milliseconds = Int64((Date().timeIntervalSince1970 * 1000).rounded())
        try database.run("INSERT INTO change_transactions(committed_at) VALUES (?)", [.integer(milliseconds)])
        let token = database.lastInsertRowID
        let insert = statements.insertChange
        for (type, map) in [(PhotoObjectType.asset, changes.assets), (.assetCollection, changes.collections)] {
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
        case let error as SystemCallError: return error.photosError(action: action)
        default: return error
        }
    }
}
