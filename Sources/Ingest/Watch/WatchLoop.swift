import PhotodropSystem
import Synchronization
import PhotodropTelemetry
import PhotodropConcurrency
import PhotodropConfiguration

/// The watch daemon's source stage, run by one task: inotify events and scans in, settled files claimed and handed
/// to the workers.
///
/// Owns the ``SettleTracker`` (pure) and does the I/O around it: ``FileLook`` when a check is due, streaming scans
/// (start, overflow, inbox recreated, overflowing folders), claims in batches (``ClaimJournal``). It waits on its
/// ``Mailbox`` with the tracker's next deadline as timeout, so a quiet daemon sleeps and a settled file is taken on
/// time.
///
/// Memory stays bounded: when ``trackerCapacity`` files are waiting, events for new files are not tracked one by
/// one; their folders are remembered and rescanned (streaming) once there is room again. The scan is the truth.
final class WatchLoop {
    private typealias Instant = ContinuousClock.Instant

    private let inbox: String
    private let ignore: IgnoreRules
    private let claims: ClaimJournal
    private let settled: BoundedQueue<IngestJob>
    private let mailbox: Mailbox<WatchInput>
    private let stopRequested: StopFlag
    private let logger: Logger
    private let statistics: IngestStatistics
    private let health: HealthMonitor
    private let heartbeat: ServiceHeartbeat?
    /// On an inbox other nodes watch too: which files they take first.
    private let share: InboxShare?
    private var isReady = false
    private let trackerCapacity: Int
    private let summaryInterval: Duration

    private var tracker: SettleTracker<Instant>
    private var scans: [String] = []
    private var currentScan: InboxScanner.Iterator?
    private var overflowFolders: Set<String> = []
    private var failures: [String: (attempts: Int, last: Instant)] = [:]
    /// What the probe found about files waiting out their incomplete-file grace period, so that an unchanged one is
    /// rejected at the end without being read again.
    private var incompleteVerdicts: [String: IncompleteVerdict] = [:]
    private var reportedProblems: Set<String> = []
    private(set) var failure: IngestFailure?
    private var stopping = false
    private var nextSummary: Instant
    /// When the next full rescan is due even without a reason: the scan is the truth, events only make it fast.
    private var nextSafetyScan: Instant
    private let safetyScanInterval: Duration
    private var lastSummary = IngestStatistics.Counts()
    private var lastSummaryTime: Instant
    private var nextOldestLook: Instant = .now

    init(
        config: IngestConfig, claims: ClaimJournal, settled: BoundedQueue<IngestJob>,
        mailbox: Mailbox<WatchInput>, stopRequested: StopFlag, statistics: IngestStatistics,
        health: HealthMonitor = HealthMonitor(), heartbeat: ServiceHeartbeat? = nil, share: InboxShare? = nil,
        logger: Logger, trackerCapacity: Int, summaryInterval: Duration = .seconds(60), safetyScanInterval: Duration = .seconds(600)
    ) {
        self.inbox = claims.inbox.path
        self.ignore = config.ignoreRules
        self.claims = claims
        self.settled = settled
        self.mailbox = mailbox
        self.stopRequested = stopRequested
        self.statistics = statistics
        self.health = health
        self.heartbeat = heartbeat
        self.share = share
        self.logger = logger
        self.trackerCapacity = max(16, trackerCapacity)
        self.summaryInterval = summaryInterval
        self.tracker = SettleTracker(config: config)
        self.nextSummary = .now + summaryInterval
        self.safetyScanInterval = safetyScanInterval
        self.nextSafetyScan = .now + safetyScanInterval
        self.lastSummaryTime = .now
    }

    private var isStopping: Bool { stopping || stopRequested.isRaised }

    /// Runs until a stop message (or the pipeline's failure).
    func run() async {
        while !isStopping {
            let now = Instant.now
            var deadline = min(tracker.nextDeadline.map { min($0, nextSummary) } ?? nextSummary, nextSafetyScan)
            if let heartbeat { deadline = min(deadline, heartbeat.nextDue(after: now)) }
            if let share { deadline = min(deadline, share.nextRefresh(after: now)) }
            if scanHasWork { deadline = now }
            for message in await mailbox.receive(until: deadline) { handle(message) }
            if isStopping { break }
            heartbeat?.loopTurned()
            if Instant.now >= nextSafetyScan {
                nextSafetyScan = .now + safetyScanInterval
                if currentScan == nil && scans.isEmpty {
                    logger.debug("periodic rescan of the inbox")
                    scans = [""]
                    health.scanCompleted()
                }
            }
            feedScan()
            share?.refreshIfDue()
            await claimDueFiles()
            summarizeIfDue()
            health.setWaiting(tracker.count)
            publishOldestWaitingIfDue()
        }
    }

    // MARK: - Messages

    private func handle(_ message: WatchInput) {
        let now = Instant.now
        switch message {
        case .event(let event): handle(event, at: now)
        case .deferred(let deferral): handle(deferral, at: now)
        case .stop, .reload:
            stopping = true
        case .claimFailed(let paths, let cause):
            for path in paths {
                tracker.forget(path: path)
                retryLater(path, cause, at: now, what: "cannot take a file out of the inbox")
            }
        case .pipelineFailed(let cause):
            failure = cause
            stopping = true
        }
    }

    private func handle(_ event: InboxEvent, at now: Instant) {
        switch event {
        case .file(let path, let activity):
            if tracker.count >= trackerCapacity && tracker.phase(of: path) == nil {
                if overflowFolders.isEmpty {
                    logger.info(
                        "many files are waiting; new arrivals are found by rescans of their folders",
                        metadata: ["waiting": .count(tracker.count)])
                }
                overflowFolders.insert(WatchLoop.folder(of: path))
                return
            }
            _ = tracker.observe(activity, path: path, at: now)
        case .removed(let path):
            tracker.forget(path: path)
        case .directoryRemoved(let folder):
            tracker.forgetAll(under: folder)
        case .rescanNeeded(let reason):
            logger.info("scanning the inbox", metadata: ["reason": .string(reason.description)])
            statistics.recordRescan(reason.code)
            health.scanCompleted()
            scans = [""]
            currentScan = nil
            overflowFolders.removeAll()
            if !isReady {
                // The start-up scan is queued: ready (systemd's READY=1).
                isReady = true
                heartbeat?.ready()
            }
        }
    }

    private func handle(_ deferral: Deferral, at now: Instant) {
        tracker.forget(path: deferral.path)
        switch deferral.reason {
        case .incomplete(let verdict):
            tracker.markIncomplete(path: deferral.path, identity: verdict.identity, at: now)
            if incompleteVerdicts.count >= trackerCapacity { incompleteVerdicts.removeAll() }
            incompleteVerdicts[deferral.path] = verdict
            logger.info(
                "incomplete; left in the inbox until it has been quiet for the grace period",
                metadata: ["path": .string(deferral.path), "grace_s": .count(tracker.incompleteGrace.components.seconds)])
        case .changed:
            _ = tracker.observe(.modified, path: deferral.path, at: now)
        case .failed(let cause):
            retryLater(deferral.path, cause, at: now, what: "cannot store a file")
        }
    }

    /// Schedules another try of `path` after a back-off that grows with each failure (1 s … 5 min). The first
    /// failure of a path is a warning; later ones are logged at debug level only, so that a file in a read-only
    /// folder does not fill the log, while `photodrop status` reports it as stuck.
    private func retryLater(_ path: String, _ cause: IngestFailure, at now: Instant, what: String) {
        let message = cause.description
        var entry = failures[path] ?? (0, now)
        if now - entry.last > .seconds(900) { entry.attempts = 0 }
        entry.attempts += 1
        entry.last = now
        if failures.count > 10_000 { failures.removeAll() }
        failures[path] = entry
        health.fileFailed(path, kind: cause.healthKind, message: message)
        statistics.recordRetry()
        let delay = WatchLoop.backoff(attempt: entry.attempts)
        tracker.retry(path: path, at: now + delay)
        let fields: KeyValuePairs<String, LogValue> = [
            "path": .string(path), "error": .string(message), "attempt": .count(entry.attempts),
            "retry_in_s": .count(delay.components.seconds),
        ]
        if entry.attempts == 1 {
            logger.warning("\(what); it stays in the inbox and is retried with back-off", metadata: fields)
        } else {
            logger.debug("will retry", metadata: fields)
        }
    }

    /// 1 s, 2 s, 4 s, … up to 5 minutes.
    static func backoff(attempt: Int) -> Duration {
        .seconds(min(300, 1 << min(max(attempt - 1, 0), 9)))
    }

    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return String(path[..<slash])
    }

    // MARK: - Scans

    private var scanHasWork: Bool {
        guard tracker.count < trackerCapacity else { return false }
        return currentScan != nil || !scans.isEmpty || (!overflowFolders.isEmpty && tracker.count < trackerCapacity / 2)
    }

    /// Feeds up to one chunk of scanned files to the tracker, while it has room.
    private func feedScan() {
        var budget = 1024
        let now = Instant.now
        while budget > 0 && tracker.count < trackerCapacity {
            if currentScan == nil {
                if scans.isEmpty {
                    guard !overflowFolders.isEmpty, tracker.count < trackerCapacity / 2 else { return }
                    scans = overflowFolders.sorted()
                    overflowFolders.removeAll()
                }
                let folder = scans.removeFirst()
                currentScan = InboxScanner(root: inbox, albums: claims.albums, ignore: ignore, startingAt: folder)
                    .makeIterator()
            }
            guard let item = currentScan?.next() else {
                currentScan = nil
                continue
            }
            budget -= 1
            switch item {
            case .file(let candidate):
                _ = tracker.observe(.listed, path: candidate.relativePath, at: now)
            case .problem(let problem):
                if case .unreadableFolder(let error) = problem.kind {
                    if error.code == Errno.noSuchFileOrDirectory { continue }
                    health.folderUnreadable(problem.path, message: problem.description)
                }
                if reportedProblems.count < 1000 && reportedProblems.insert(problem.path).inserted {
                    logger.warning(problem.description, metadata: ["path": .string(problem.path)])
                }
            }
        }
    }

    // MARK: - Claims

    private func claimDueFiles() async {
        let checks = tracker.dueChecks(at: .now)
        guard !checks.isEmpty else { return }
        let root: Directory?
        do {
            root = try claims.inbox.directory()
        } catch {
            root = nil
        }
        let now = Instant.now
        for check in checks {
            if isStopping { return }
            // Another node sharing the inbox prefers it: left to that node for a moment, taken after all if it is
            // still here then; a file events vouch for is left before it is looked at (the nodes then look only at
            // their own files), one found by polling after its looks (below). Asked once per check: it hashes the path.
            let leftToOthers = check.purpose == .settle && share?.isLeftToOthers(check.path) == true
            if leftToOthers, tracker.yield(check, until: now + InboxShare.yieldTime) {
                statistics.recordLeftToOtherNode()
                continue
            }
            let look: FileLook.Outcome =
                root.map { FileLook.take(in: $0, relativePath: check.path) } ?? .missing
            let file: IngestJob
            switch tracker.inspect(check, look, at: .now) {
            case .ready(let identity):
                guard let root else { continue }
                if leftToOthers {
                    let now = Instant.now
                    tracker.yield(path: check.path, identity: identity, at: now, until: now + InboxShare.yieldTime)
                    statistics.recordLeftToOtherNode()
                    continue
                }
                file = IngestJob(settledAt: check.path, in: root, identity: identity)
            case .incompleteExpired(let identity):
                guard let root else { continue }
                let verdict = incompleteVerdicts.removeValue(forKey: check.path)
                file = IngestJob(
                    settledAt: check.path, in: root, identity: identity, graceExpired: true,
                    incompleteVerdict: verdict?.identity == identity ? verdict : nil)
            case .forgotten(.unreadable(let error)):
                // Unreadable (EACCES, an I/O error): retried with back-off and reported, never silently dropped.
                retryLater(
                    check.path, .io(error), at: .now, what: "cannot look at a file")
                continue
            case .wait, .forgotten, .superseded:
                continue
            }
            do {
                try await settled.send(file)
            } catch {
                stopping = true  // the claim stage is gone
                return
            }
        }
    }

    // MARK: - Summaries

    /// When the file waiting longest was first seen, looked up at most every 5 s (a look at every tracked file).
    private func publishOldestWaitingIfDue() {
        let now = Instant.now
        guard now >= nextOldestLook else { return }
        nextOldestLook = now + .seconds(5)
        health.setOldestWaitingAge(tracker.oldestFirstSeen.map { now - $0 })
    }

    private func summarizeIfDue() {
        let now = Instant.now
        guard now >= nextSummary else { return }
        nextSummary = now + summaryInterval
        let counts = statistics.snapshot
        guard counts != lastSummary else {
            lastSummaryTime = now
            return
        }
        let seconds = max(0.001, Double((now - lastSummaryTime).components.seconds))
        logger.info(
            "summary",
            metadata: [
                "stored": .count(counts.imported - lastSummary.imported),
                "duplicates": .count(counts.duplicates - lastSummary.duplicates),
                "rejected": .count(counts.rejected - lastSummary.rejected),
                "failed": .count(counts.failed - lastSummary.failed),
                "files_per_s": .double(((Double(counts.total - lastSummary.total) / seconds) * 10).rounded() / 10),
                "waiting": .count(tracker.count),
            ])
        lastSummary = counts
        lastSummaryTime = now
    }
}
