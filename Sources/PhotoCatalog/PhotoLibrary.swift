import Dispatch
import FoundationEssentials
import PhotodropSystem
import Synchronization

/// A photo library in a folder (`PHPhotoLibrary`): `library.sqlite` (the catalog, its change history and an
/// application journal) and `originals/`, the stored files.
///
/// There is no shared library: make one per folder with ``init(url:historyRetention:permissions:catalog:)``, which does no I/O. Reading
/// a library that does not exist yet finds nothing; the first write (or ``requestAuthorization(for:)``) creates it.
///
/// All changes go through ``performChanges(_:)`` (or its completion-handler and synchronous forms): the requests made
/// in one block commit in one SQLite transaction, or none does. Blocks run one at a time on the library's writer;
/// fetches use separate read connections and never wait for the writer.
public final class PhotoLibrary: Sendable {
    /// The name of the database file inside the library folder.
    public static let databaseName = "library.sqlite"

    /// The library folder.
    public let url: URL
    /// How long the persistent change history is kept.
    public let historyRetention: HistoryRetention
    /// Who may read the library's files (a photodrop addition).
    public let permissions: LibraryPermissions
    /// Where the catalog is: SQLite in the folder, or PostgreSQL (a photodrop addition).
    public let catalog: CatalogLocation

    /// The library folder's path (``url``'s, kept: reading it from the URL each time costs a Foundation call).
    let folderPath: String
    let databasePath: String
    let connector: CatalogConnector
    let writer: LibraryWriter
    private let writerQueueExecutor: WriterQueueExecutor
    let readers: ReaderPool
    let observers = Mutex<[WeakObserver]>([])
    let observerQueue: DispatchQueue
    let completionQueue: DispatchQueue
    private let schemaIsCurrent = Atomic<Bool>(false)
    let pendingSnapshots = Atomic<Int>(0)
    /// The library folder, opened at most once a second per shard for ``openDerivative(_:)`` (a server opens
    /// thumbnails by the thousand per second; a library folder replaced meanwhile is seen within that second). Shards
    /// by thread: one lock shared by a server's 32 connection threads made them spin on it.
    let derivativeFolders = (0..<16).map { _ in FolderShard() }

    /// One shard of ``derivativeFolders``.
    final class FolderShard: Sendable {
        let cached = Mutex<(folder: Directory, until: ContinuousClock.Instant)?>(nil)
    }

    /// A library in the folder at `url` (created at the first write). Does no I/O.
    ///
    /// - Parameters:
    ///   - url: the library's folder.
    ///   - historyRetention: how much of the persistent change history is kept (``HistoryRetention``).
    ///   - permissions: the modes and group its folders, database and originals get (folders `0750`, database
    ///     `0640`, originals `0440`, the writer's own group unless one is given).
    ///   - catalog: where the catalog is: `library.sqlite` in the folder (the default), or a PostgreSQL database that
    ///     the library's nodes share.
    public init(
        url: URL, historyRetention: HistoryRetention = .default, permissions: LibraryPermissions = LibraryPermissions(),
        catalog: CatalogLocation = .sqlite
    ) {
        self.url = url.standardizedFileURL
        self.historyRetention = historyRetention
        self.permissions = permissions
        self.catalog = catalog
        folderPath = self.url.path
        databasePath = folderPath + "/" + PhotoLibrary.databaseName
        connector = CatalogConnector(location: catalog, sqlitePath: databasePath)
        writer = LibraryWriter(label: "photodrop.library.writer")
        writerQueueExecutor = WriterQueueExecutor(queue: writer.queue)
        readers = ReaderPool(connector: connector)
        observerQueue = DispatchQueue(label: "photodrop.library.observers")
        completionQueue = DispatchQueue(label: "photodrop.library.completions")
    }

    deinit {
        // Readers close without SQLite's checkpoint (``ReaderPool/open(path:)``): they go first, so that the writer's
        // connection is the last one and folds the write-ahead log into library.sqlite. A reader closing last left the
        // whole log beside the database (an import that looked for stored Live Photo halves).
        readers.closeIdle()
    }

    /// The folder of stored originals.
    public var originalsURL: URL { url.appendingPathComponent("originals", isDirectory: true) }

    /// The stored original of an asset's primary resource.
    public func originalURL(for asset: Asset) -> URL? { asset.primaryResource?.fileURL }

    // MARK: Changes

    /// Runs `changeBlock` on the library's writer and commits every change request made in it in one transaction
    /// (`performChanges(_:) async`).
    ///
    /// The block may throw: then nothing is committed and the error is rethrown. Files are placed only after the
    /// block returned, and put back if the commit fails, so a failed block leaves no rows and no files.
    ///
    /// - Returns: what the block did: creations (with duplicates), the change token and commit time.
    /// - Throws: the block's error, or a ``PhotosError``.
    @discardableResult
    public func performChanges(_ changeBlock: @escaping @Sendable () throws -> Void) async throws -> ChangeReport {
        try await writer.run { try self.runChanges(changeBlock) }
    }

    /// An executor that runs jobs on the library's writer queue, between change blocks (a photodrop extension).
    ///
    /// For an actor that does little but feed change blocks to this library: its `await performChanges` then hands
    /// the block to the writer, and gets the result back, without waking another thread. Its jobs run one at a time
    /// with the library's blocks, so they must not block for long, and never call ``performChangesAndWait(_:)`` (it
    /// throws there: the block would wait for itself).
    public var writerExecutor: any SerialExecutor { writerQueueExecutor }

    /// Runs `changeBlock` and calls `completionHandler(success, error)` on a background queue when it committed or
    /// failed (`performChanges(_:completionHandler:)`).
    public func performChanges(
        _ changeBlock: @escaping @Sendable () throws -> Void,
        completionHandler: (@Sendable (Bool, (any Error)?) -> Void)? = nil
    ) {
        writer.queue.async {
            let result = Result { try self.runChanges(changeBlock) }
            guard let completionHandler else { return }
            self.completionQueue.async {
                switch result {
                case .success: completionHandler(true, nil)
                case .failure(let error): completionHandler(false, error)
                }
            }
        }
    }

    /// Runs `changeBlock` and waits until it committed (`performChangesAndWait(_:)`).
    ///
    /// - Throws: the block's error, or a ``PhotosError``; `.invalidParameter` when called inside a change block
    ///   (which would wait for itself).
    @discardableResult
    public func performChangesAndWait(_ changeBlock: @escaping @Sendable () throws -> Void) throws -> ChangeReport {
        if writer.isOnWriterQueue {
            throw PhotosError.invalidParameter(
                "performChangesAndWait was called inside a change block of the same library, which would wait for "
                    + "itself; make the requests directly in the running block.")
        }
        return try writer.queue.sync { try runChanges(changeBlock) }
    }

    /// Finishes or undoes the file work of writers that died mid-change (placed originals whose block never
    /// committed go back to their sources; files of committed purges are removed), and opens the library for writing.
    ///
    /// The first write does this implicitly. Call it explicitly after a crash before looking at your own records of
    /// files in flight (e.g. the ingest journal), so that every file is back where those records expect it. It may be
    /// called again at any time to clean up after other processes that died.
    public func recoverInterruptedChanges() async throws {
        try await writer.run {
            let connection = try self.openWriter()
            do { try connection.reconcileIntents() } catch {
                throw connection.mapped(error, action: "recover interrupted changes")
            }
        }
    }

    /// Runs one block on the writer queue.
    private func runChanges(_ changeBlock: () throws -> Void) throws -> ChangeReport {
        let connection = try openWriter()
        let dataVersion: Int64?
        do { dataVersion = try connection.dataVersion() } catch {
            throw connection.mapped(error, action: "start a change")
        }
        let context = ChangeContext(library: self, writer: connection)
        do {
            // One read transaction for the whole block: the duplicate lookups of its creation requests then share a
            // snapshot and the connection's page cache, instead of each taking and dropping SQLite's locks.
            try connection.whileReading {
                try ChangeContext.$current.withValue(context) { try changeBlock() }
            }
        } catch {
            context.close()
            throw error
        }
        context.close()
        if let error = context.recordedError { throw error }
        if context.assetCreations.isEmpty && context.resourceAdditions.isEmpty && context.collectionCreations.isEmpty
            && context.collectionListCreations.isEmpty && context.operations.isEmpty
        {
            return ChangeReport(changeToken: nil, commitDate: nil, assetCreations: [], createdCollectionIdentifiers: [])
        }
        let result = try connection.commit(context, dataVersionAtStart: dataVersion)
        let token = result.token.map { PersistentChangeToken(libraryID: connection.libraryID, value: $0) }
        notifyObservers(result.changes, token: token)
        return ChangeReport(
            changeToken: token, commitDate: result.commitDate, assetCreations: result.outcomes,
            createdCollectionIdentifiers: result.createdCollections)
    }

    /// The writer connection, opened (and the library created) at the first write. Call on the writer queue.
    func openWriter() throws -> WriterConnection {
        try writer.connection {
            switch authorizationStatus(for: .readWrite) {
            case .denied:
                throw PhotosError.denied(path: url.path)
            case .restricted:
                throw PhotosError.restricted(path: url.path)
            case .notDetermined:
                do {
                    if try FileSystem.makeDirectories(url.path).last == url.path {
                        let folder = try Directory.open(atPath: url.path)
                        try LibraryFiles.apply(permissions, toFolder: folder)
                    }
                } catch let error as SystemError {
                    switch error.code {
                    case Errno.permissionDenied, Errno.notPermitted: throw PhotosError.denied(path: url.path)
                    case Errno.readOnlyFileSystem: throw PhotosError.restricted(path: url.path)
                    default: throw error.photosError(action: "create the library")
                    }
                }
            case .authorized, .limited:
                break
            }
            let connection = try WriterConnection(
                libraryURL: url, catalog: connector, retention: historyRetention, permissions: permissions)
            schemaIsCurrent.store(true, ordering: .releasing)
            return connection
        }
    }

    // MARK: Reading

    /// Runs `body` in a read transaction; nil when the library does not exist yet.
    func read<R>(_ action: String, _ body: (Database) throws -> R) throws -> R? {
        // A library not created yet reads as empty (one stat, not Foundation's file manager: reads are hot).
        if !catalog.isPostgres, (try? FileSystem.status(atPath: databasePath)) == nil { return nil }
        do {
            guard try ensureSchemaIsCurrent() else { return nil }
            return try readers.read(body)
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: action, library: url.path)
        }
    }

    /// Makes sure the database has the current schema before reading; an older one is migrated by the writer.
    /// false when there is no catalog yet (an empty PostgreSQL database).
    private func ensureSchemaIsCurrent() throws -> Bool {
        if schemaIsCurrent.load(ordering: .acquiring) { return true }
        let latest = catalog.isPostgres ? PostgresSchema.latestVersion : Schema.latestVersion
        let version = try readers.read {
            $0.isPostgres ? try PostgresSchema.version(of: $0) : try Schema.migrator.currentVersion(of: $0)
        }
        if catalog.isPostgres && version == 0 { return false }
        if version > latest {
            throw PhotosError.newerLibrary(.newerThanSupported(found: version, supported: latest), path: url.path)
        }
        if version < latest {
            do {
                _ = try writer.sync { try openWriter() }
            } catch let error as PhotosError where [.accessUserDenied, .accessRestricted].contains(error.code) {
                throw PhotosError(
                    error.code, title: "Library needs an upgrade",
                    message: "The library at '\(url.path)' was written by an older photodrop and must be upgraded "
                        + "once by a process that may write it; open it for writing (e.g. run photodrop as its owner).",
                    cause: error.cause)
            }
        }
        schemaIsCurrent.store(true, ordering: .releasing)
        return true
    }
}

extension PhotosError {
    static func denied(path: String) -> PhotosError {
        PhotosError(
            .accessUserDenied, title: "Photo library access denied",
            message: "This user may not write the library at '\(path)'. Make the folder (and library.sqlite) writable "
                + "for this user, or run photodrop as the library's owner.",
            cause: .io(operation: "access", path: path, errno: Errno.permissionDenied))
    }

    static func restricted(path: String) -> PhotosError {
        PhotosError(
            .accessRestricted, title: "Photo library is read-only",
            message: "The library at '\(path)' is on a read-only filesystem: it can be browsed but not changed. Mount "
                + "it read-write, or copy it to writable storage.",
            cause: .io(operation: "access", path: path, errno: Errno.readOnlyFileSystem))
    }
}
