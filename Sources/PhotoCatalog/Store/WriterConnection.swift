import Dispatch
import FoundationEssentials
import PhotodropSystem

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
    /// The library folder, opened once: its identity is checked before every write (``checkLibraryInPlace()``).
    let libraryDirectory: Directory
    /// The library folder's and the database file's identity when the writer opened them (no file for PostgreSQL).
    let libraryNode: FileNode
    let databaseNode: FileNode?
    /// Set once the library folder or database turned out deleted or replaced: every later write fails.
    var lostLibrary: PhotosError?
    /// `originals/`, opened once.
    let originals: Directory
    /// `originals/xx` folders opened so far, by name (`xx`). Used by the placement thread only (see ``PlacementStep``).
    var originalFolders: [String: Directory] = [:]
    /// Who may read the library's files.
    let permissions: LibraryPermissions
    /// The `originals/xx` folder new files go to, and how many have gone there (see `plan`).
    var currentFolder = ""
    var placementsInCurrentFolder = 0
    /// The session's ``IntentLog`` (open for the session's life) and its path.
    let intentLog: FileDescriptor
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
    /// When file records past their age were last removed.
    var lastFileRecordPrune = Date.distantPast

    init(libraryURL: URL, catalog: CatalogConnector, retention: HistoryRetention, permissions: LibraryPermissions) throws {
        self.libraryURL = libraryURL
        self.retention = retention
        self.permissions = permissions
        libraryPath = libraryURL.path
        originalsPath = libraryPath + "/originals"
        let action = "open the library for writing"
        let databasePath = libraryPath + "/" + PhotoLibrary.databaseName
        // On PostgreSQL the schema comes before the folders: a node starting beside this one takes a folder with
        // `originals/` for a library whose catalog exists, never for one half made.
        var shared: Database?
        if catalog.location.isPostgres {
            do {
                let connection = try catalog.openPostgres()
                try PostgresSchema.prepare(connection)
                shared = connection
            } catch let error as DatabaseError {
                throw PhotosError.database(error, action: action, library: libraryPath)
            }
        }
        do throws(SystemError) {
            libraryDirectory = try Directory.open(atPath: libraryPath)
            libraryNode = try libraryDirectory.status().node
            let created = try libraryDirectory.makeDirectory("originals", mode: permissions.folderMode)
            originals = try libraryDirectory.directory("originals")
            if created { try LibraryFiles.apply(permissions, toFolder: originals) }
            originalsDevice = UInt64(try originals.status().node.device)
            // The `originals/xx` folders are made when first used (see `plan`): a new library with a few thousand
            // files makes a few dozen of them instead of all 256 (each mkdir costs the file system real CPU time).
            if created { try libraryDirectory.sync() }
            if catalog.location.isPostgres {
                databaseNode = nil
            } else {
                // The database is made with the library's mode before SQLite opens it: its -wal and -shm files get the
                // database file's mode and owner.
                try LibraryFiles.createDatabaseFile(in: libraryDirectory, permissions: permissions)
                guard let databaseStatus = try libraryDirectory.status(PhotoLibrary.databaseName) else {
                    throw SystemError(code: Errno.noSuchFileOrDirectory, call: "stat", path: databasePath)
                }
                databaseNode = databaseStatus.node
            }
        } catch {
            throw SystemError(code: error.code, call: error.call, path: error.path ?? libraryPath)
                .photosError(action: action)
        }
        do {
            if let shared {
                database = shared
            } else {
                database = try Database(path: databasePath, mode: .readWrite(create: true))
                let mode = try database.firstRow("PRAGMA journal_mode = WAL") { $0.string(0) }
                guard mode?.lowercased() == "wal" else {
                    throw DatabaseError(
                        extendedCode: 1, message: "could not switch to WAL journal mode (got \(mode ?? "nothing"))",
                        sql: "PRAGMA journal_mode = WAL", path: databasePath)
                }
                // A 2 MiB page cache (SQLite's default): 4 MiB made no import faster and held the 100,000-file burst's
                // peak RSS 1.3-3 MB higher, against a 40 MB budget.
                try database.execute(
                    "PRAGMA synchronous = FULL; PRAGMA temp_store = MEMORY; PRAGMA cache_size = -2048")
                try Schema.migrator.migrate(database)
            }
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
            try LibraryFiles.makeFolder("locks", in: libraryDirectory, permissions: permissions)
            session = try WriterSession(locksDirectory: libraryPath + "/locks")
            intentLogPath = IntentLog.path(session: session.id, locksDirectory: session.locksDirectory)
            intentLog = try FileSystem.open(intentLogPath, [.readWrite, .create, .closeOnExec], mode: 0o644)
            // The log's directory entry must be durable before the first intents in it count.
            try FileSystem.syncDirectory(session.locksDirectory)
        } catch let error as SystemError {
            throw error.photosError(action: action)
        }
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        do {
            try reconcileIntents()
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "recover interrupted changes", library: libraryPath)
        }
        WriterSession.removeStaleLocks(in: session.locksDirectory, except: session.id)
        applyPermissionsIfChanged()
    }

    /// Applies ``permissions`` to every folder and file of the library once, when the library was made by an older
    /// photodrop (whose originals were `0644`) or with another ``LibraryPermissions/groupID``. Best effort: a file
    /// that cannot be changed stays as it was and is tried again at the next open.
    private func applyPermissionsIfChanged() {
        let signature = permissions.signature
        let stored = try? database.firstRow("SELECT value FROM library_meta WHERE key = 'permissions'") {
            $0.string(0)
        }
        guard stored != signature else { return }
        guard LibraryFiles.applyEverywhere(permissions, library: libraryDirectory) else { return }
        _ = try? database.inTransaction(.immediate) {
            try database.run(
                """
                INSERT INTO library_meta(key, value) VALUES ('permissions', ?)
                ON CONFLICT(key) DO UPDATE SET value = excluded.value
                """, [.text(signature)])
        }
    }

    /// Throws when the library folder or its database is no longer the one this writer opened: deleted (`rm -rf`),
    /// replaced by another folder, or hidden by a mount or an unmount. Writing on would commit into a file nobody can
    /// see, and delete dropped files as "duplicates" of assets that exist nowhere. Checked before every transaction;
    /// once it failed, it always fails.
    func checkLibraryInPlace() throws {
        if let lostLibrary { throw lostLibrary }
        let problem: String?
        let library: FileStatus?
        do { library = try FileSystem.linkStatus(atPath: libraryPath) } catch {
            library = nil
        }
        let database =
            databaseNode == nil ? nil : try? FileSystem.linkStatus(atPath: libraryPath + "/" + PhotoLibrary.databaseName)
        if library == nil {
            problem = "the library folder '\(libraryPath)' is gone (or cannot be looked at)"
        } else if library?.node != libraryNode {
            problem = "the library folder '\(libraryPath)' was replaced by another folder (or a disk was mounted or "
                + "unmounted there)"
        } else if databaseNode != nil && database == nil {
            problem = "its database '\(libraryPath)/\(PhotoLibrary.databaseName)' is gone"
        } else if databaseNode != nil && database?.node != databaseNode {
            problem = "its database '\(libraryPath)/\(PhotoLibrary.databaseName)' was replaced by another file"
        } else {
            problem = nil
        }
        guard let problem else { return }
        let error = PhotosError(
            .libraryVolumeOffline, title: "Library gone",
            message: "The library this process opened is no longer there: \(problem). Nothing more is written to it. "
                + "Restore the folder (or remount its disk), then start photodrop again; to start a new library on "
                + "purpose, run 'photodrop init'.",
            cause: .io(operation: "stat", path: libraryPath, errno: Errno.noSuchFileOrDirectory))
        lostLibrary = error
        throw error
    }
    deinit {
        buffer.deallocate()
        // Every block of this session has committed or been undone: its intents are resolved.
        try? FileSystem.remove(intentLogPath)
    }

    /// A fresh batch number for this session's placement intents.
    func makeBatch() -> Int64 {
        defer { nextBatch += 1 }
        return nextBatch
    }

    /// The SHA-256 of a file, read through the shared buffer.
    func hashFile(_ location: FileLocation) throws -> (String, Int64) {
        let descriptor: FileDescriptor
        do throws(SystemError) {
            descriptor = try location.open(flags: [.readOnly, .noControllingTerminal, .nonBlocking])
        } catch {
            throw SystemError(code: error.code, call: error.call, path: location.path)
        }
        let (digest, count) = try SHA256.digest(ofFile: descriptor, path: location.path, buffer: buffer)
        return (digest.hex, count)
    }

    /// What ``asset(withSHA256:)`` found for content looked up ahead (``prefetchContent(_:)``), for the block being made:
    /// a nil value means "not stored". Emptied when the block's read transaction ends.
    private var prefetchedContent: [String: StoredContentRow?] = [:]
    typealias StoredContentRow = (rowID: Int64, uuid: String, isDeleted: Bool, original: StoredOriginal)

    /// Looks up many SHA-256s with one query for the creation requests a block is about to make (PostgreSQL, where
    /// each lookup would be a round trip to the server; SQLite's cost none, and this does nothing there).
    func prefetchContent(_ sha256s: [String]) throws {
        guard database.isPostgres, !sha256s.isEmpty else { return }
        let wanted = sha256s.filter { prefetchedContent[$0] == nil }
        guard !wanted.isEmpty else { return }
        do {
            let rows = try database.rows(
                """
                SELECT r.sha256, a.id, a.uuid, a.deleted_date IS NOT NULL, r.id, r.path, r.byte_count, r.damage
                FROM resources r JOIN assets a ON a.id = r.asset_id
                WHERE r.sha256 IN (SELECT value FROM json_each(?))
                """, [.text("[" + wanted.map { "\"\($0)\"" }.joined(separator: ",") + "]")]
            ) { row -> (String, StoredContentRow) in
                (
                    row.string(0),
                    (
                        row.int64(1), row.string(2), row.bool(3),
                        StoredOriginal(
                            resourceID: row.int64(4), path: row.string(5), byteCount: row.int64(6),
                            damage: row.optionalString(7))
                    )
                )
            }
            for sha256 in wanted { prefetchedContent[sha256] = .some(nil) }
            for (sha256, found) in rows { prefetchedContent[sha256] = .some(found) }
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "look up \(wanted.count) contents", library: libraryPath)
        }
    }

    /// The asset that stores content with this SHA-256, if any, and its stored original.
    func asset(withSHA256 sha256: String) throws -> (
        rowID: Int64, uuid: String, isDeleted: Bool, original: StoredOriginal
    )? {
        if let known = prefetchedContent[sha256] { return known }
        let lookup = statements.assetBySHA256
        defer { lookup.reset() }
        do {
            try lookup.bind(sha256, at: 1)
            guard try lookup.step() else { return nil }
            let original = StoredOriginal(
                resourceID: lookup.int64(3), path: lookup.string(4), byteCount: lookup.int64(5),
                damage: lookup.optionalString(6))
            return (lookup.int64(0), lookup.string(1), lookup.bool(2), original)
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "look up content \(sha256)", library: libraryPath)
        }
    }

    /// `original` with the reason it must be replaced, when it is missing, not a regular file, of another size than
    /// recorded, or recorded as damaged by `verify --deep`; nil when it looks intact.
    func originalNeedingRepair(_ original: StoredOriginal) -> StoredOriginal? {
        var original = original
        guard let info = try? libraryDirectory.status(ofPath: original.path) else {
            original.problem = .missing
            return original
        }
        if !info.isRegularFile {
            original.problem = .notRegularFile
        } else if Int64(info.size) != original.byteCount {
            original.problem = .sizeMismatch(found: Int64(info.size))
        } else if original.damage != nil {
            original.problem = .recordedDamage
        } else {
            return nil
        }
        return original
    }

    /// Runs `body` inside a read transaction of the writer connection (a change block, whose lookups then share one
    /// snapshot); the transaction ends before `body`'s changes are committed. Another process's commit meanwhile is
    /// caught at commit time (`data_version`), as without it.
    func whileReading<R>(_ body: () throws -> R) throws -> R {
        do { try database.execute("BEGIN DEFERRED") } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "start a change", library: libraryPath)
        }
        defer {
            database.rollback()
            prefetchedContent.removeAll()
        }
        return try body()
    }

    /// `PRAGMA data_version`: changes when another connection commits. nil on PostgreSQL, where other nodes commit
    /// all the time and a block's resolutions are checked again at every commit.
    func dataVersion() throws -> Int64? { database.isPostgres ? nil : try database.pragmaInt("data_version") }

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
                try reconcile(
                    isRemoval: action == PlacementIntent.Action.remove.rawValue, source: source,
                    sourceInode: sourceInode.map { UInt64(bitPattern: $0) }, destination: destination)
            }
            try database.inTransaction(.immediate) {
                try database.run("DELETE FROM placement_intents WHERE session = ?", [.text(dead)])
            }
        }
        try reconcileIntentLogs()
    }

    /// The ``IntentLog``s of dead sessions: each is reconciled like intent rows, then removed. A log another process is
    /// reconciling (its `flock` is taken) is left to it.
    private func reconcileIntentLogs() throws {
        let locks = session.locksDirectory
        for (owner, path) in IntentLog.logs(in: locks) {
            guard owner != session.id, WriterSession.isDead(session: owner, locksDirectory: locks) else { continue }
            guard let descriptor = try? FileSystem.open(path, .readOnly),
                (try? descriptor.lock(.exclusive, wait: false, path: path)) == true
            else { continue }
            for entry in IntentLog.read(descriptor: descriptor)?.entries ?? [] {
                try reconcile(
                    isRemoval: entry.action == .remove, source: entry.source, sourceInode: entry.inode,
                    sourceFolder: entry.sourceFolder, destination: entry.destination)
            }
            try? FileSystem.remove(path)
        }
    }

    /// Finishes or undoes one intent of a dead session (see ``reconcileIntents()``).
    private func reconcile(
        isRemoval: Bool, source: String?, sourceInode: UInt64?, sourceFolder: FileNode? = nil, destination: String
    ) throws {
        let referenced = try ResourcePath.isReferenced(destination, in: database)
        let folderPath = Path.parent(of: destination)
        let name = Path.lastComponent(of: destination)
        guard let folder = try? libraryDirectory.directory(folderPath) else { return }
        if isRemoval {
            if !referenced { try? folder.remove(name) }
            return
        }
        try? folder.remove(WriterConnection.temporaryName(name))
        guard !referenced, let placed = try? folder.status(name) else { return }
        guard let source else { return }
        if let sourceInode, UInt64(placed.node.inode) == sourceInode {
            // Renamed: the file is the source itself.
            returnToSource(folder, name, source: source, sourceFolder: sourceFolder)
        } else if let sourceInode, let original = try? FileLocation(path: source).status(),
            UInt64(original.node.inode) == sourceInode
        {
            // A copy, and the original is still in place: drop the copy.
            try? folder.remove(name)
        } else {
            // A copy whose original is gone: keep the bytes.
            returnToSource(folder, name, source: source, sourceFolder: sourceFolder)
        }
    }

    /// Moves a placed file back where it came from, but only into the very folder it was taken from (the intent
    /// records its identity: a folder swapped for another, or for a link, while photodrop was down does not count);
    /// if that is impossible, into `Library/recovered/`, so that nothing is lost.
    private func returnToSource(_ folder: Directory, _ name: String, source: String, sourceFolder: FileNode?) {
        let parentPath = Path.parent(of: source)
        let sourceName = Path.lastComponent(of: source)
        if let sourceFolder, let parent = try? Directory.open(atPath: parentPath),
            let info = try? parent.status(), info.node == sourceFolder,
            (try? folder.rename(name, to: parent, as: sourceName)) == true
        {
            return
        }
        if sourceFolder == nil {
            // An intent of an older photodrop, without the folder's identity: the folder as named, made if missing.
            if let parent = try? libraryDirectoryIndependent(parentPath),
                (try? folder.rename(name, to: parent, as: sourceName)) == true
            {
                return
            }
        }
        guard let recovered = try? LibraryFiles.makeFolder("recovered", in: libraryDirectory, permissions: permissions)
        else { return }
        let kept = UUID().uuidString.lowercased() + "-" + sourceName
        _ = try? folder.rename(name, to: recovered, as: kept)
    }

    /// The folder at `path` (absolute, outside the library), made when missing.
    private func libraryDirectoryIndependent(_ path: String) throws -> Directory {
        _ = try? FileSystem.makeDirectories(path)
        return try Directory.open(atPath: path)
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
        Path.parent(of: destination) + "/." + Path.lastComponent(of: destination) + ".partial"
    }
}
