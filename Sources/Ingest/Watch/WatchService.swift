import FoundationEssentials
import PhotoCatalog
import PhotoImageManager
import PhotodropSystem
import Synchronization
import PhotodropTelemetry
import PhotodropConcurrency
import PhotodropConfiguration

/// `photodrop watch`: the daemon that files everything dropped into the inbox into the library, until SIGINT or
/// SIGTERM.
///
/// Start: the watch lock (one daemon per library), the library's recovery of interrupted changes, the quarantine's
/// recovery, the claim journal's recovery (files in flight at a crash are processed again), then the inbox watcher
/// (whose first event asks for the start-up scan). Then: ``WatchLoop`` (settle, claim) → ``IngestPipeline``
/// (workers, group-committing ``Committer``). A signal stops the intake; claimed files are finished; ``run()``
/// returns.
///
/// A reload (``requestReload(_:)``, SIGHUP) is a graceful restart inside the process: the intake stops, the files in
/// flight are finished, and the stages start again with the new configuration, under the same lock and library (a
/// start-up scan finds whatever arrived meanwhile). Every key that may change live applies that way, the worker count
/// included; keys that name places (``ConfigReload``) are refused.
public final class WatchService: Sendable {
    /// Tuning; the defaults suit a daemon.
    public struct Options: Sendable {
        /// Files tracked one by one before new arrivals are left to folder rescans (bounded memory).
        var trackerCapacity: Int
        /// How often a summary line is logged while files arrive.
        var summaryInterval: Duration
        /// The inbox watcher's options (the config's `ignore` is added).
        public var watcher: InotifyWatcher.Options
        /// How often Recently Deleted is checked for assets older than the config's `trashDays`.
        var trashCheckInterval: Duration
        /// systemd's notify socket (`READY=1`, `STATUS=`, `WATCHDOG=1`, …); nil when not run by systemd.
        public var notifier: ServiceNotifier? = nil
        /// photodrop's version, as the node's row in a shared catalog shows it.
        public var version = "unknown"

        /// Options; the defaults suit a daemon.
        public init(
            trackerCapacity: Int = 10_000, summaryInterval: Duration = .seconds(60),
            watcher: InotifyWatcher.Options = InotifyWatcher.Options(), trashCheckInterval: Duration = .seconds(3600)
        ) {
            self.trackerCapacity = trackerCapacity
            self.summaryInterval = summaryInterval
            self.watcher = watcher
            self.trashCheckInterval = trashCheckInterval
        }
    }

    /// Why the daemon could not run.
    public struct Failure: Error, Sendable, CustomStringConvertible {
        /// What went wrong and what to do.
        public var description: String
        /// The typed failure behind it, when the pipeline or the library failed.
        public var cause: IngestFailure? = nil
        /// The configuration is what is wrong (a catalog that cannot be reached, is not photodrop's, or is empty
        /// beside stored originals): the command exits 2, as for any configuration error, and a service manager
        /// that restarts on failure does not hammer the server.
        public var isConfiguration = false
    }

    /// A start-up failure of the catalog: a configuration failure when the catalog is in PostgreSQL (the connection
    /// string, the database or the server named in config.json), else an ordinary one.
    private static func catalogFailure(_ description: String, error: any Error, config: IngestConfig) -> Failure {
        var failure = Failure(description: description)
        if config.catalog.isPostgres, let error = error as? PhotosError,
            ["Catalog unreachable", "Empty catalog database", "Not a photodrop catalog", "Catalog newer than this photodrop"]
                .contains(error.title) || error.code == .libraryVolumeOffline
        {
            failure.isConfiguration = true
        }
        return failure
    }

    /// The configuration in force (the last one a reload accepted).
    public var config: IngestConfig { current.withLock { $0.config } }
    /// Tuning.
    public let options: Options
    private let logger: Logger
    private let stopRequested = StopFlag()
    /// What the stages of the running session listen to; a reload replaces them.
    private struct Current {
        var config: IngestConfig
        var pending: IngestConfig?
        var mailbox: Mailbox<WatchInput>?
        var stop: StopFlag?
        var library: PhotoLibrary?
        var watches: (@Sendable () -> InotifyWatcher.Status?)?
        var started = false
    }
    private let current: Mutex<Current>
    /// What the stages mark as under way (the watchdog's view).
    public let progress = WorkProgress()
    /// Counts of outcomes since the daemon started (across reloads).
    public let statistics = IngestStatistics()
    private let heartbeat: ServiceHeartbeat?
    private let health = HealthMonitor()

    /// A daemon for `config`, logging to `logger`.
    public init(config: IngestConfig, logger: Logger, options: Options = Options()) {
        self.current = Mutex(Current(config: config))
        self.logger = logger
        self.options = options
        self.heartbeat = options.notifier.map { [progress, statistics, health] in
            ServiceHeartbeat(notifier: $0, progress: progress, statistics: statistics, health: health, logger: logger)
        }
    }

    /// Stops the daemon: no new files are taken, claimed files are finished, ``run()`` returns. The command line
    /// calls it on SIGINT and SIGTERM (`cause` names the signal in the log); it may come before ``run()`` starts, which
    /// then stops as soon as the library is recovered.
    public func requestStop(cause: String? = nil) {
        let fields: KeyValuePairs<String, LogValue> = cause.map { ["signal": .string($0)] } ?? [:]
        if stopRequested.raise() {
            heartbeat?.stopping()
            logger.info("stopping: no new files are taken, files in flight are finished", metadata: fields)
        } else {
            logger.info("already stopping; waiting for the files in flight", metadata: fields)
        }
        let session = current.withLock { ($0.mailbox, $0.stop) }
        session.1?.raise()
        session.0?.post(.stop)
    }

    /// Whether the stages have started once (the lock is held, the library recovered): metrics describe this
    /// daemon only from then on.
    public var hasStarted: Bool { current.withLock { $0.started } }

    /// The journal kind of this daemon's claims.
    private var claimKind: String {
        ClaimJournal.kind(node: current.withLock { $0.config.sharedNode })
    }

    /// The metrics now (counts since the start, the inbox, inotify, the library's counts from one read).
    public func metrics() -> WatchMetrics {
        let (library, watches) = current.withLock { ($0.library, $0.watches) }
        let statisticsOfLibrary = try? library?.statistics()
        return WatchMetrics(
            counts: statistics.snapshot, details: statistics.detailSnapshot, waiting: health.waiting,
            claimed: statisticsOfLibrary?.journalEntryCounts[claimKind] ?? 0,
            oldestWaitingAge: health.oldestWaitingAge, watches: watches?(), library: statisticsOfLibrary,
            problems: health.problems().map(\.code))
    }

    /// A reload that could not even be read: `RELOADING=1`, then `READY=1` with `why` in `STATUS=`.
    public func refuseReload(_ why: String) {
        heartbeat?.reloading()
        heartbeat?.ready(note: "reload refused: \(why); running on the previous config")
    }

    /// What became of a reload.
    public enum ReloadResult: Sendable, Equatable {
        /// Accepted: the stages restart with it once the files in flight are finished.
        case accepted(changed: [String])
        /// Nothing that matters to `watch` changed.
        case unchanged
        /// Refused; the daemon keeps running on its configuration. Why, naming the keys.
        case refused(String)
    }

    /// Reloads with `new` (SIGHUP after config.json was read again): refused, with a log line that names the keys,
    /// when it changes what cannot change live (``ConfigReload/fixedChanges(from:to:)``); else the stages restart with it.
    @discardableResult
    public func requestReload(_ new: IngestConfig) -> ReloadResult {
        heartbeat?.reloading()
        let old = config
        let fixed = ConfigReload.fixedChanges(from: old, to: new)
        guard fixed.isEmpty else {
            let reason =
                "config.json changes \(fixed.joined(separator: ", ")), which cannot change while photodrop runs; "
                + "restart it ('systemctl restart photodrop-watch') to apply them. Still running on the previous config"
            logger.error("reload refused", metadata: ["reason": .string(reason)])
            heartbeat?.ready(note: "reload refused: \(fixed.joined(separator: ", ")) cannot change live")
            return .refused(reason)
        }
        let changed = ConfigReload.liveChanges(from: old, to: new)
        guard !changed.isEmpty else {
            logger.info("config.json reloaded: nothing that watch uses changed")
            current.withLock { $0.config = new }
            heartbeat?.ready()
            return .unchanged
        }
        logger.info(
            "config.json reloaded: the stages restart with it once the files in flight are finished",
            metadata: ["changed": .string(changed.joined(separator: ","))])
        let mailbox = current.withLock { current in
            current.pending = new
            return current.mailbox
        }
        mailbox?.post(.reload)
        return .accepted(changed: changed)
    }

    /// Runs the daemon until ``requestStop(cause:)``; returns once the files in flight are finished. A service runs
    /// once.
    ///
    /// - Throws: ``Failure`` when another daemon holds the library, the library cannot be opened or recovered, or the
    ///   workers cannot start.
    public func run() async throws(Failure) {
        let logger = self.logger
        var config = self.config
        heartbeat?.startingUp("opening and recovering the library")

        do { try LibraryLocation.checkCatalog(config) } catch {
            throw Failure(description: error.description, isConfiguration: true)
        }
        let library = LibraryLocation.library(config)
        // Nodes of a shared catalog starting at once on a new library take turns here (a lock in the database): the
        // first makes the library, the others find it made. On SQLite the turn is free.
        let startTurn: PhotoLibrary.Turn
        do { startTurn = try library.takeTurn("start") } catch {
            throw Self.catalogFailure("cannot reach the catalog of \(config.library): \(error)", error: error, config: config)
        }
        // An existing folder without a library (an unmounted disk's mount point) is never made into a new library;
        // a folder whose parent is missing, on a disk that is not mounted, or not writable is refused before
        // anything is created.
        let existing = LibraryLocation.state(of: config)
        let created: [ConfiguredFolders.Folder]
        do {
            created = try ConfiguredFolders.check(ConfiguredFolders.forWatch(config), config: config)
            try LibraryLocation.checkWritable(config)
            try LibraryLocation.checkGroup(config)
        } catch {
            throw Failure(description: error.description)
        }
        for folder in created {
            logger.info("creating \(folder.role) (\"\(folder.key)\"), which does not exist yet", metadata: ["path": .string(folder.path)])
        }
        current.withLock { $0.library = library }
        if existing == .missing {
            // The first run: the library is created here, with its folder's mode and group, before the lock file.
            do { try await library.recoverInterruptedChanges() } catch {
                throw Self.catalogFailure(
                    "cannot create the library at \(config.library): \(error)", error: error, config: config)
            }
        }
        startTurn.end()
        let lock: DaemonLock
        do {
            lock = try DaemonLock(library: config.library, node: config.sharedNode)
        } catch {
            throw Failure(description: error.description)
        }
        defer { lock.release() }
        // On a shared (PostgreSQL) catalog: the node id's lock in the database, and the node's row with its
        // heartbeat, from a thread of its own.
        var registration: NodeRegistration?
        if let node = config.sharedNode {
            let health = self.health
            do {
                registration = try NodeRegistration(
                    library: library, node: node, version: options.version, inbox: config.inbox,
                    claimKind: ClaimJournal.kind(node: node), load: { NodeRegistration.Load(waiting: health.waiting) })
            } catch {
                throw Self.catalogFailure("\(error)", error: error, config: config)
            }
        }
        defer { registration?.stop() }
        // The last thing a node does on a shared inbox: its staging folder goes when it holds nothing.
        defer { if let node = config.sharedNode { ClaimJournal.removeStagingFolderIfEmpty(inbox: config.inbox, node: node) } }
        do {
            try FileSystem.makeDirectories(config.inbox)
        } catch {
            throw Failure(description: "cannot create the inbox: \(error.description)")
        }

        if existing == .library {
            // A damaged catalog is reported, never written to, and never replaced by a new one.
            do {
                let damage = try library.checkDatabase()
                if !damage.isEmpty {
                    throw Failure(
                        description:
                            "the library database \(library.url.path)/\(PhotoLibrary.databaseName) is damaged "
                            + "(SQLite's quick_check: \(damage.prefix(3).joined(separator: "; "))). Nothing was changed. "
                            + "Stop photodrop, copy the library folder away, then restore library.sqlite from a backup "
                            + "(or try 'sqlite3 library.sqlite .recover'); photodrop never replaces it with a new library.")
                }
            } catch let failure as Failure {
                throw failure
            } catch {
                throw Self.catalogFailure("\(error)", error: error, config: config)
            }
        }
        // The summary line is written however the stages end, a failure included (as before reloads existed).
        defer {
            let counts = statistics.snapshot
            logger.info(
                "photodrop watch stopped",
                metadata: [
                    "stored": .count(counts.imported), "duplicates": .count(counts.duplicates),
                    "rejected": .count(counts.rejected), "failed": .count(counts.failed),
                ])
        }
        while true {
            try await runSession(config, library: library, lock: lock, registration: registration)
            let next: IngestConfig? = current.withLock { current in
                defer { current.pending = nil }
                if let pending = current.pending { current.config = pending }
                return current.pending
            }
            guard let next, !stopRequested.isRaised else { break }
            config = next
        }
    }

    /// One run of the stages with `config`, until a stop or a reload.
    /// Throws when another process took this daemon's node id in the catalog.
    private static func checkNode(_ registration: NodeRegistration?) throws(DaemonLock.Failure) {
        if let registration, registration.isLost { throw .nodeTaken(registration.node) }
    }

    private func runSession(
        _ config: IngestConfig, library: PhotoLibrary, lock: DaemonLock, registration: NodeRegistration?
    ) async throws(Failure) {
        let logger = self.logger
        let statistics = self.statistics
        let health = self.health
        let progress = self.progress
        let heartbeat = self.heartbeat
        let stopRequested = StopFlag()
        let mailbox = Mailbox<WatchInput>(capacity: 1024)
        let reloadWaiting = current.withLock { current in
            current.mailbox = mailbox
            current.stop = stopRequested
            return current.pending != nil
        }
        // A reload that came while no stages ran (during start-up) restarts these at once.
        if reloadWaiting { mailbox.post(.reload) }
        defer { current.withLock { $0.mailbox = nil; $0.stop = nil } }
        if self.stopRequested.isRaised { stopRequested.raise() }
        let claims = ClaimJournal(
            library: library, inbox: config.inbox, albums: .folders(config.albums), node: config.sharedNode)
        let quarantine = Quarantine(root: config.rejected)
        let recovery: ClaimJournal.Recovery
        do {
            try await library.recoverInterruptedChanges()
            let rejected = quarantine.recover()
            if !rejected.completed.isEmpty || !rejected.discarded.isEmpty {
                logger.info(
                    "completed interrupted rejections",
                    metadata: ["completed": .count(rejected.completed.count), "discarded": .count(rejected.discarded.count)])
            }
            recovery = try await claims.recover(logger: logger)
        } catch {
            throw Failure(description: "cannot open or recover the library at \(config.library): \(error)")
        }
        if !recovery.jobs.isEmpty
            || recovery.returnedToInbox + recovery.alreadyFinished + recovery.unaccountedStagedFiles > 0
        {
            logger.info(
                "recovered files that were in flight",
                metadata: [
                    "reprocessed": .count(recovery.jobs.count), "back_in_inbox": .count(recovery.returnedToInbox),
                    "already_finished": .count(recovery.alreadyFinished),
                    "staged_without_entry": .count(recovery.unaccountedStagedFiles),
                ])
        }

        let derivatives =
            config.derivatives == .ingest ? DerivativeQueue(library: library, logger: logger) : nil
        let committer = Committer(
            library: library, settings: .watch(duplicates: config.duplicates, pairing: config.pairing), quarantine: quarantine, claims: claims,
            hooks: Committer.Hooks(
                finished: { outcome in
                    statistics.record(outcome)
                    OutcomeLog.write(outcome, to: logger)
                    // A new asset gets its pictures; a file added to a stored one may have replaced its primary.
                    if let asset = outcome.assetID, [.photo, .gif, .video, .attached].contains(outcome.kind) {
                        derivatives?.note(asset: asset)
                    }
                    if outcome.kind != .failed {
                        health.fileFinished(outcome.path)
                        health.libraryWritable()
                    }
                },
                deferred: { mailbox.post(.deferred($0)) },
                libraryLost: { mailbox.post(.pipelineFailed($0)) },
                guardCheck: { try lock.checkStillHeld(); try Self.checkNode(registration) },
                pairsWaiting: { health.setWaitingForPartner($0) }, progress: progress,
                committed: { statistics.recordCommit($0) }),
            logger: logger)
        let pipeline = IngestPipeline(
            workers: config.workerCount, committer: committer, progress: progress,
            makeWorker: IngestPipeline.standardWorkers(config: config, library: library, truncatedFiles: .wait))

        var watcherOptions = options.watcher
        watcherOptions.ignore = config.ignoreRules
        watcherOptions.health = health
        watcherOptions.stagingFolder = claims.stagingRelativePath
        let watcher: InotifyWatcher
        do {
            watcher = try InotifyWatcher(inbox: config.inbox, options: watcherOptions, logger: logger)
        } catch {
            throw Failure(description: "cannot watch the inbox \(config.inbox): \(error.description)")
        }

        // A folder on a file system other machines write to (NFS, SMB, CephFS …) makes no inotify event for their
        // files: the whole inbox is then rescanned on an interval of its own (`rescanSeconds`), as it is with
        // `poll`, instead of every ten minutes.
        let inboxKind = try? FileSystemKind.of(config.inbox)
        let polledReason: String? =
            config.poll ? "poll" : (inboxKind?.isRemote == true ? inboxKind?.description : nil)
        if let polledReason {
            logger.info(
                polledReason == "poll"
                    ? "the inbox is polled (\"poll\" in the configuration)"
                    : "the inbox is on a network file system: inotify does not see files other machines write there, "
                        + "so it is rescanned on an interval",
                metadata: [
                    "filesystem": .string(inboxKind?.description ?? "unknown"), "rescan_s": .count(config.rescanSeconds),
                ])
        }
        let rescanSeconds = config.rescanSeconds
        let watches: @Sendable () -> InotifyWatcher.Status? = { [weak watcher] in
            guard var status = watcher?.status else { return nil }
            if let polledReason {
                status.polledInbox = polledReason
                status.rescanSeconds = rescanSeconds
            }
            return status
        }
        current.withLock { current in
            current.watches = watches
            current.started = true
        }
        let pipelineFailure = Mutex<IngestFailure?>(nil)
        let settled = BoundedQueue<IngestJob>(capacity: 512)
        let claimer = Claimer(
            claims: claims, settled: settled, pipeline: pipeline, mailbox: mailbox, stopRequested: stopRequested,
            statistics: statistics, logger: logger, guardCheck: { try lock.checkStillHeld(); try Self.checkNode(registration) })
        let status = StatusWriter(
            statistics: statistics, health: health, library: FolderRoot(path: config.library), inbox: claims.inbox,
            watches: watches, configFile: config.sourceFile, fileName: DaemonStatus.fileName(node: config.sharedNode),
            libraryNode: try? FileSystem.status(atPath: config.library).node)
        // Nodes sharing this inbox each take the files they prefer first, instead of all racing for every file.
        let share = registration.map { registration in
            InboxShare(
                node: registration.node, inbox: claims.inbox,
                stagingParent: ClaimJournal.stagingRelativePath(node: nil), logger: logger,
                liveNodes: { registration.liveNodes })
        }
        let loop = WatchLoop(
            config: config, claims: claims, settled: settled, mailbox: mailbox, stopRequested: stopRequested,
            statistics: statistics, health: health, heartbeat: heartbeat, share: share, logger: logger,
            trackerCapacity: options.trackerCapacity, summaryInterval: options.summaryInterval,
            safetyScanInterval: polledReason == nil ? .seconds(600) : .seconds(config.rescanSeconds))

        // The watcher feeds the loop, the loop the claimer, the claimer the pipeline; a service that fails tells the
        // loop through the mailbox, and everything stops along the shutdown path below.
        let trash = config.trashRetention.map {
            TrashPurger(library: library, retention: $0, interval: options.trashCheckInterval, logger: logger)
        }
        // On a shared catalog: the files other nodes of this inbox left claimed when they died are finished here.
        let lease = Double(config.claimLeaseSeconds)
        let takeover =
            registration == nil
            ? nil
            : ClaimTakeover(
                claims: claims, lease: lease, interval: ClaimTakeover.interval(lease: lease), logger: logger,
                submit: { job in (try? await pipeline.send(job)) != nil })
        let zones = CreationZoneBackfill(library: library, logger: logger)
        let details = CaptureDetailsBackfill(library: library, logger: logger)
        let services = ServiceGroup([
            ServiceGroup.Service("pipeline") {
                do {
                    try await pipeline.run()
                } catch {
                    pipeline.finishIntake()
                    pipelineFailure.withLock { $0 = IngestFailure(error) }
                    mailbox.post(.pipelineFailed(IngestFailure(error)))
                }
            },
            ServiceGroup.Service("inotify") {
                for await event in watcher { await mailbox.send(.event(event)) }
            },
            ServiceGroup.Service("claimer") { await claimer.run() },
            ServiceGroup.Service("status") { await status.run() },
            ServiceGroup.Service("trash") { await trash?.run() },
            ServiceGroup.Service("claim takeover") { await takeover?.run() },
            ServiceGroup.Service("time zones") { await zones.run() },
            ServiceGroup.Service("capture details") { await details.run() },
            ServiceGroup.Service("derivatives") { await derivatives?.run() },
        ])
        await services.run(
            main: {
                logger.info(
                    "photodrop watch started",
                    metadata: [
                        "inbox": .string(config.inbox), "library": .string(config.library),
                        "workers": .count(config.workerCount),
                        "settle_ms": .count(config.settleMilliseconds), "pid": .count(SystemProcess.id),
                        "resolution": .string(Directory.usesOpenat2 ? "openat2" : "componentWalk"),
                    ])
                for job in recovery.jobs {
                    do { try await pipeline.send(job) } catch { break }
                }
                await loop.run()
            },
            shutdown: [
                .signal("no new pictures") { derivatives?.stop() },
                .signal("no new events") { watcher.close() },
                .signal("no new claims") {
                    stopRequested.raise()
                    settled.finish()
                },
                .waitFor("claimer"),
                .signal("no new jobs") { pipeline.finishIntake() },
                .waitFor("pipeline"),
                .signal("no new messages") { mailbox.close() },
                .waitFor("inotify"),
            ])
        let loopFailure = loop.failure
        if let failure = loopFailure {
            throw Failure(description: failure.description, cause: failure)
        }
        if let failure = pipelineFailure.withLock({ $0 }) {
            throw Failure(description: "the workers could not run: \(failure)", cause: failure)
        }
    }
}
