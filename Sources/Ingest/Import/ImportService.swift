import FoundationEssentials
import PhotoCatalog
import PhotodropSystem
import Synchronization
import PhotodropTelemetry
import PhotodropConfiguration

/// `photodrop import`: files and folders into the library in one batch, through the same workers and committer as
/// the daemon, without claims (the sources are not in an inbox).
///
/// A folder is read like an inbox — first-level subfolders become albums, files directly in it join the library
/// without an album — unless ``Request/album`` puts everything into one album. Sources are copied (reflink or
/// `copy_file_range` where possible) unless ``Request/move``; with ``Request/dryRun`` files are read, hashed and
/// probed, and nothing at all is written. A file whose SHA-256 is already stored is recognised right after hashing,
/// without probing, so a second import of the same tree is cheap.
public final class ImportService: Sendable {
    /// What to import.
    public struct Request: Sendable, Hashable {
        /// Files and folders, absolute or relative to the working directory.
        public var paths: [String]
        /// Put everything into this album instead of the folder rule.
        public var album: String?
        /// Move the sources instead of copying them; rejected files then go to `Rejected/`.
        public var move: Bool
        /// Read and judge everything, write nothing.
        public var dryRun: Bool

        /// A request.
        public init(paths: [String], album: String? = nil, move: Bool = false, dryRun: Bool = false) {
            self.paths = paths
            self.album = album
            self.move = move
            self.dryRun = dryRun
        }
    }

    /// A usage problem found before anything was done (exit status 2).
    public struct UsageFailure: Error, Sendable, CustomStringConvertible {
        /// What is wrong, naming the argument.
        public var description: String
    }

    /// The configuration (library, rejected folder, workers, ignore rules, duplicates, video policy).
    public let config: IngestConfig
    private let logger: Logger

    /// An importer; `logger` gets one line per file outcome at its level.
    public init(config: IngestConfig, logger: Logger = .disabled) {
        self.config = config
        self.logger = logger
    }

    /// `realpath(3)`, or nil when the path cannot be resolved (e.g. a library that does not exist yet).
    static func realPath(_ path: String) -> String? {
        Path.real(path)
    }

    /// Imports everything; `onOutcome` sees each file's outcome as it is committed (from one task at a time).
    ///
    /// - Parameter progress: called with the files and bytes done (and, once a second walk has counted them, the
    ///   totals) after every outcome; nil skips the counting walk.
    /// - Parameter onCreatingFolder: told about each configured folder that does not exist yet and is created (the
    ///   last folder of its path only; see ``ConfiguredFolders``).
    /// - Returns: the counts.
    /// - Throws: ``UsageFailure`` when a path does not exist or an album name is empty; nothing was done then.
    public func run(
        _ request: Request, progress: (@Sendable (ProgressSnapshot) -> Void)? = nil,
        onCreatingFolder: (ConfiguredFolders.Folder) -> Void = { _ in },
        onOutcome: @escaping @Sendable (FileOutcome) -> Void = { _ in }
    ) async throws(UsageFailure) -> IngestStatistics.Counts {
        if let album = request.album, album.trimmingWhitespace().isEmpty {
            throw UsageFailure(description: "--album needs a name that is not empty")
        }
        let libraryFolder = ImportService.realPath(config.library) ?? config.library
        for path in request.paths {
            do throws(SystemError) { _ = try FileSystem.status(atPath: path) } catch {
                throw UsageFailure(
                    description: "cannot import '\(path)': \(error.reason); give existing files or folders")
            }
            // The library's own originals must never be read as sources: with --move, a "duplicate" would be the
            // stored original itself.
            let resolved = ImportService.realPath(path) ?? path
            if Path.isSameOrBelow(resolved, libraryFolder)
                || Path.isSameOrBelow(libraryFolder, resolved)
            {
                throw UsageFailure(
                    description:
                        "cannot import '\(path)': it contains or lies inside the library (\(config.library)); import the folders beside the library instead"
                )
            }
        }
        if !request.dryRun {
            do {
                let created = try ConfiguredFolders.check(
                    ConfiguredFolders.forImport(config, movesRejected: request.move), config: config)
                try LibraryLocation.checkWritable(config)
                try LibraryLocation.checkCatalog(config)
                try LibraryLocation.checkGroup(config)
                for folder in created { onCreatingFolder(folder) }
            } catch {
                throw UsageFailure(description: error.description)
            }
        }
        let album = request.album.map { AlbumRule.albumTitle(forFolderName: $0) }
        let library = LibraryLocation.library(config)
        let statistics = IngestStatistics()
        let started = ContinuousClock.now
        let totals = Mutex<(files: Int?, bytes: Int64?)>((nil, nil))
        let logger = self.logger
        let report: @Sendable (FileOutcome) -> Void = { outcome in
            statistics.record(outcome)
            OutcomeLog.write(outcome, to: logger)
            onOutcome(outcome)
            if let progress {
                let counts = statistics.snapshot
                let (files, bytes) = totals.withLock { $0 }
                progress(
                    ProgressSnapshot(
                        filesDone: counts.total, filesTotal: files, bytesDone: counts.bytes, bytesTotal: bytes,
                        elapsed: started.duration(to: .now)))
            }
        }
        let committer = Committer(
            library: library,
            settings: .importing(
                move: request.move, dryRun: request.dryRun, duplicates: config.duplicates, pairing: config.pairing),
            quarantine: Quarantine(root: config.rejected), claims: nil, hooks: Committer.Hooks(finished: report),
            logger: logger)
        let pipeline = IngestPipeline(
            workers: config.workerCount, committer: committer,
            makeWorker: IngestPipeline.standardWorkers(config: config, library: library, truncatedFiles: .reject))
        let ignore = config.ignoreRules
        let rule: AlbumRule = album.map { .fixed($0) } ?? .folders(config.albums)

        let counting: Task<Void, Never>? =
            progress == nil
            ? nil
            : Task {
                var files = 0
                var bytes: Int64 = 0
                for path in request.paths {
                    for item in InboxScanner(root: path, albums: rule, ignore: ignore) {
                        if Task.isCancelled { return }
                        guard case .file(let candidate) = item else { continue }
                        if let info = try? FileSystem.status(atPath: candidate.path) { bytes += info.size }
                        files += 1
                    }
                }
                totals.withLock { $0 = (files, bytes) }
            }
        let pipelineTask = Task { () -> IngestFailure? in
            do {
                try await pipeline.run()
                return nil
            } catch {
                pipeline.finishIntake()
                return IngestFailure(error)
            }
        }
        feeding: for path in request.paths {
            for item in InboxScanner(root: path, albums: rule, ignore: ignore) {
                switch item {
                case .file(let candidate):
                    let source: FileLocation
                    if let location = candidate.location {
                        source = location
                    } else {
                        do {
                            source = try FileLocation(path: candidate.path)
                        } catch {
                            report(
                                FileOutcome(
                                    path: candidate.path, kind: .failed, failure: .io(error),
                                    message: error.description))
                            continue
                        }
                    }
                    let job = IngestJob(
                        source: source, displayPath: candidate.path, album: candidate.album,
                        originalName: Path.lastComponent(of: candidate.relativePath),
                        folder: Path.parent(of: candidate.relativePath))
                    do { try await pipeline.send(job) } catch { break feeding }
                case .problem(let problem):
                    report(FileOutcome(path: problem.path, kind: .failed, message: problem.description))
                }
            }
        }
        pipeline.finishIntake()
        if let failure = await pipelineTask.value {
            report(
                FileOutcome(
                    path: request.paths.joined(separator: " "), kind: .failed, failure: failure,
                    message: failure.description))
        }
        counting?.cancel()
        return statistics.snapshot
    }
}
