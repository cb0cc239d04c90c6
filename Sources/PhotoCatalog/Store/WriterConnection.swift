import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// The library's single write connection and the writer's small caches. Confined to the writer queue.
///
/// Opened once per ``PhotoLibrary`` at its first write: creates the database if needed (WAL, `synchronous=FULL`),
/// migrates it, takes a ``WriterSession`` and reconciles placement intents that crashed writers left behind.
///
/// `synchronous=FULL` is deliberate: the writer moves files that exist nowhere else into the library, and after a
/// power loss the database must not forget a commit whose file moves survived. Each block costs one `fdatasync` of
/// its ``IntentLog`` (on the placement thread) and one WAL fsync whatever its size, so group commit makes this cheap
/// per file.
final class WriterConnection {
    let database: Database
    let libraryURL: URL
    let libraryPath: String
    let originalsPath: String
    let libraryID: String
    let session: WriterSession
    let statements: WriterStatements
    let retention: HistoryRetention
    /// Read buffer for hashing and copying (1 MiB, reused).
    let buffer: UnsafeMutableRawBufferPointer
    /// `originals/xx` directories known to exist.
    var knownDirectories: Set<String> = []
    /// The `originals/xx` folder new files go to, and how many have gone there (see `plan`).
    var currentFolder = ""
    var placementsInCurrentFolder = 0
    /// The session's ``IntentLog`` (open for the session's life) and its path.
    let intentLog: Int32
    let intentLogPath: String
    /// Where a block's files are placed while the writer inserts its rows (see ``PlacementStep``).
    let placementQueue = DispatchQueue(label: "photodrop.library.placement", qos: .userInitiated)
    /// The device of the originals folder (to choose rename or copy up front).
    let originalsDevice: UInt64
    private var nextBatch: Int64 = 1
    /// Tokens up to this one have been pruned from the history.
    var prunedThrough: Int64
    /// When the age-based prune last ran.
    var lastAgePrune = Date.distantPast

    init(libraryURL: URL, retention: HistoryRetention) throws {
        self.libraryURL = libraryURL
        self.retention = retention
        libraryPath = libraryURL.path
        originalsPath = libraryPath + "/originals"
        let action = "open the library for writing"
        do {
            let created = try SystemCall.makeDirectory(originalsPath)
            originalsDevice = UInt64(try SystemCall.stat(originalsPath).st_dev)
            // The `originals/xx` folders are made when first used (see `plan`): a new library with a few thousand
            // files makes a few dozen of them instead of all 256 (a folder's mkdir costs ext4 about 0.1 ms of CPU).
            if created { try SystemCall.fsyncDirectory(libraryPath) }
        } catch let error as SystemCallError {
            throw error.photosError(action: action)
        }
        let databasePath = libraryPath + "/" + PhotoLibrary.databaseName
        do {
            database = try Database(path: databasePath, mode: .readWrite(create: true))
            let mode = try database.firstRow("PRAGMA journal_mode = WAL") { $0.string(0) }
            guard mode?.lowercased() == "wal" else {
                throw DatabaseError(
                    extendedCode: 1, message: "could not switch to WAL journal mode (got \(mode ?? "nothing"))",
                    sql: "PRAGMA journal_mode = WAL", path: databasePath)
            }
            // A 2 MiB page cache (SQLite's default): 4 MiB made no import faster and held the 100,000-file burst's
            // peak RSS 1.3-3 MB higher, against a 40 MB budget.
            try database.execute("PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -2048")
            try Schema.migrator.migrate(database)
            statements = try WriterStatements(database: database)
            libraryID =
                try database.firstRow("SELECT value FROM library_meta WHERE key = 'library_id'") {
                    $0.string(0)
                } ?? ""
            prunedThrough =
                Int64(
                    try database.firstRow("SELECT value FROM library_meta WHERE key = 'history_pruned_through'") {
                        $0.string(0)
                    } ?? "0") ?? 0
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: action, library: libraryPath)
        } catch let error as MigrationError {
            throw PhotosError.newerLibrary(error, path: libraryPath)
        }
        do {
            session = try WriterSession(locksDirectory: libraryPath + "/locks")
            intentLogPath = IntentLog.path(session: session.id, locksDirectory: session.locksDirectory)
            intentLog = try SystemCall.open(intentLogPath, O_RDWR | O_CREAT | O_CLOEXEC, mode: 0o644)
            // The log's directory entry must be durable before the first intents in it count.
            try SystemCall.fsyncDirectory(session.locksDirectory)
        } catch let error as SystemCallError {
            throw error.photosError(action: action)
        }
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        do {
            try reconcileIntents()
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "recover interrupted changes", library: libraryPath)
        }
        WriterSession.removeStaleLocks(in: session.locksDirectory, except: session.id)
    }

    deinit {
        buffer.deallocate()
        // Every block of this session has committed or been undone: its intents are settled.
        SystemCall.close(intentLog)
        _ = Glibc.unlink(intentLogPath)
    }

    /// A fresh batch number for this session's placement intents.
    func makeBatch() -> Int64 {
        defer { nextBatch += 1 }
        return nextBatch
    }

    /// The SHA-256 of a file, read through the shared buffer.
    func hashFile(atPath path: String) throws -> (String, Int64) {
        try SHA256Hasher.hashFile(atPath: path, buffer: buffer)
    }

    /// The asset that stores content with this SHA-256, if any.
    func asset(withSHA256 sha256: String) throws -> (rowID: Int64, uuid: String, isDeleted: Bool)? {
        let lookup = statements.assetBySHA256
        defer { lookup.reset() }
        do {
            try lookup.bind(sha256, at: 1)
            guard try lookup.step() else { return nil }
            return (lookup.int64(0), lookup.string(1), lookup.bool(2))
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "look up content \(sha256)", library: libraryPath)
        }
    }

    /// Runs `body` inside a read transaction of the writer connection (a change block, whose lookups then share one
    /// snapshot); the transaction ends before `body`'s changes are committed. Another process's commit meanwhile is
    /// caught at commit time (`data_version`), as without it.
    func whileReading<R>(_ body: () throws -> R) throws -> R {
        do { try database.execute("BEGIN DEFERRED") } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "start a change", library: libraryPath)
        }
        defer { database.rollback() }
        return try body()
    }

    /// `PRAGMA data_version`: changes when another connection commits.
    func dataVersion() throws -> Int64 { try database.pragmaInt("data_version") }

    // MARK: Reconciling

    /// Finishes or undoes the file work of writers that died between placing files and committing (or between
    /// committing a purge and removing its files).
    ///
    /// For each intent of a dead session: when a resource row refers to the destination, the commit happened and the
    /// intent is dropped. Otherwise a placed file is undone: a file that was renamed (same inode as the source had)
    /// goes back to its source path; a copy is removed when its original is still in place, and otherwise also put at
    /// the source path. When the source path is taken or its folder cannot be made, the file goes to
    /// `Library/recovered/` instead: nothing is ever deleted that is not stored elsewhere. A purge's file is removed
    /// when no row refers to it any more.
    func reconcileIntents() throws {
        let sessions = try database.rows(
            "SELECT DISTINCT session FROM placement_intents WHERE session != ?", [.text(session.id)]
        ) { $0.string(0) }
        for dead in sessions where WriterSession.isDead(session: dead, locksDirectory: session.locksDirectory) {
            let intents = try database.rows(
                "SELECT action, source, source_inode, destination FROM placement_intents WHERE session = ? ORDER BY id",
                [.text(dead)]
            ) { row in (row.int(0), row.optionalString(1), row.optionalInt64(2), row.string(3)) }
            for (action, source, sourceInode, destination) in intents {
                try settle(
                    isRemoval: action == PlacementIntent.Action.remove.rawValue, source: source,
                    sourceInode: sourceInode.map { UInt64(bitPattern: $0) }, destination: destination)
            }
            try database.inTransaction(.immediate) {
                try database.run("DELETE FROM placement_intents WHERE session = ?", [.text(dead)])
            }
        }
        try reconcileIntentLogs()
    }

    /// The ``IntentLog``s of dead sessions: each is settled like intent rows, then removed. A log another process is
    /// settling (its `flock` is taken) is left to it.
    private func reconcileIntentLogs() throws {
        let locks = session.locksDirectory
        for (owner, path) in IntentLog.logs(in: locks) {
            guard owner != session.id, WriterSession.isDead(session: owner, locksDirectory: locks) else { continue }
            let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC)
            guard descriptor >= 0 else { continue }
            defer { Glibc.close(descriptor) }
            guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { continue }
            for entry in IntentLog.read(descriptor: descriptor)?.entries ?? [] {
                try settle(
                    isRemoval: entry.action == .remove, source: entry.source, sourceInode: entry.inode,
                    destination: entry.destination)
            }
            _ = Glibc.unlink(path)
        }
    }

    /// Finishes or undoes one intent of a dead session (see ``reconcileIntents()``).
    private func settle(isRemoval: Bool, source: String?, sourceInode: UInt64?, destination: String) throws {
        let referenced = try ResourcePath.isReferenced(destination, in: database)
        let absolute = libraryPath + "/" + destination
        if isRemoval {
            if !referenced { try? SystemCall.unlink(absolute) }
            return
        }
        try? SystemCall.unlink(PlacementIntent.temporaryPath(for: absolute))
        guard !referenced, let placed = try? SystemCall.stat(absolute) else { return }
        guard let source else { return }
        if let sourceInode, UInt64(placed.st_ino) == sourceInode {
            // Renamed: the file is the source itself.
            returnToSource(absolute, source: source)
        } else if let original = try? SystemCall.stat(source), let sourceInode, UInt64(original.st_ino) == sourceInode {
            // A copy, and the original is still in place: drop the copy.
            try? SystemCall.unlink(absolute)
        } else {
            // A copy whose original is gone: keep the bytes.
            returnToSource(absolute, source: source)
        }
    }

    /// Moves a placed file back where it came from; if that is impossible, into `Library/recovered/` so that nothing
    /// is lost.
    private func returnToSource(_ path: String, source: String) {
        let folder = (source as NSString).deletingLastPathComponent
        if (try? SystemCall.makeDirectories(folder)) != nil, (try? SystemCall.renameNoReplace(path, source)) != nil {
            return
        }
        let recovered = libraryPath + "/recovered"
        _ = try? SystemCall.makeDirectory(recovered)
        let name = UUID().uuidString.lowercased() + "-" + (source as NSString).lastPathComponent
        try? SystemCall.renameNoReplace(path, recovered + "/" + name)
    }
}

/// Placement intents: a block's placements in the session's ``IntentLog``, written before its files move; removals of
/// purged originals as `placement_intents` rows, written in the purging transaction and deleted once the files are
/// gone (the table also keeps the intents of files an undo could not put back, and rows of older photodrop).
enum PlacementIntent {
    enum Action: Int {
        /// A file placed into the library for a new resource.
        case place = 0
        /// A stored original to remove after a purge committed.
        case remove = 1
    }

    enum Method: Int {
        /// The source is moved: renamed, or across filesystems copied and removed after the commit.
        case move = 0
        /// The source is copied and stays.
        case copy = 1
    }

    /// The name a copy is written under before it is renamed into place.
    static func temporaryPath(for destination: String) -> String {
        FilePathText.parent(of: destination) + "/." + FilePathText.lastComponent(of: destination) + ".partial"
    }
}
