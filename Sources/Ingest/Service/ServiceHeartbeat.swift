import FoundationEssentials
import PhotodropSystem
import Synchronization
import PhotodropTelemetry
import PhotodropConcurrency
import PhotodropConfiguration

/// What `photodrop watch` tells systemd (``ServiceNotifier``): `EXTEND_TIMEOUT_USEC=` while a long start-up recovery
/// runs, `READY=1` once the library is recovered and the start-up scan is queued, a one-line `STATUS=`, `WATCHDOG=1`,
/// `RELOADING=1` and `STOPPING=1`.
///
/// The watchdog is pinged from ``WatchLoop``'s own turns (``loopTurned(waiting:)``), never from a timer of its own:
/// a loop that stops turning stops the pings. A loop that turns while the stages behind it are wedged stops them too:
/// each ping first asks ``WorkProgress`` whether some activity (a worker's file, the committer's batch) has gone
/// longer than ``stallLimit`` without progress. Legitimate long waits make progress or end: a 5 GB file advances
/// with every chunk it hashes, and a library locked by another process makes each commit give up after SQLite's busy
/// timeout (the files wait in the inbox and `STATUS=` says why).
final class ServiceHeartbeat: Sendable {
    private let notifier: ServiceNotifier
    private let progress: WorkProgress
    private let statistics: IngestStatistics
    private let health: HealthMonitor
    private let logger: Logger
    /// How long an activity may go without progress before the pipeline counts as wedged: the watchdog interval,
    /// but at least 20 s (a commit can wait out SQLite's 5 s busy timeout more than once).
    let stallLimit: Duration
    /// How often the loop pings: half the watchdog interval (nil: no watchdog).
    let pingInterval: Duration?
    /// How often `STATUS=` may change.
    static let statusInterval: Duration = .seconds(2)

    private struct State {
        var ready = false
        var lastPing: ContinuousClock.Instant?
        var lastStatusTime: ContinuousClock.Instant?
        var lastStatus = ""
        var reportedStall = false
    }

    private let state = Mutex(State())
    private let startupDone = StopFlag()

    /// A heartbeat through `notifier`.
    public init(
        notifier: ServiceNotifier, progress: WorkProgress, statistics: IngestStatistics, health: HealthMonitor,
        logger: Logger
    ) {
        self.notifier = notifier
        self.progress = progress
        self.statistics = statistics
        self.health = health
        self.logger = logger
        self.pingInterval = notifier.watchdogInterval.map { $0 / 2 }
        self.stallLimit = max(notifier.watchdogInterval ?? .seconds(60), .seconds(20))
    }

    // MARK: - Start-up

    /// Start-up began: until ``ready()``, systemd's start timeout is extended by 30 s every 10 s, from a thread of
    /// its own (recovery may block the cooperative pool), so that a long recovery is not killed as a hung start.
    func startingUp(_ what: String) {
        notifier.send(["STATUS=starting: \(what)"])
        let notifier = self.notifier
        let done = startupDone
        SystemThread.start(name: "start-up notice") {
            while !done.isRaised {
                notifier.send([ServiceNotifier.extendTimeout(.seconds(30))])
                for _ in 0..<100 where !done.isRaised { SystemThread.sleep(seconds: 0.1) }
            }
        }
    }

    /// The library is recovered and the start-up scan is queued (or a reload is over): `READY=1`, with `note` in
    /// `STATUS=` instead of the summary when given.
    public func ready(note: String? = nil) {
        startupDone.raise()
        let wasReady = state.withLock { state in
            defer { state.ready = true }
            return state.ready
        }
        let now = ContinuousClock.now
        var message = ["READY=1", "STATUS=" + (note ?? summary(at: now))]
        if pingInterval != nil { message.append("WATCHDOG=1") }
        notifier.send(message)
        state.withLock { state in
            state.lastPing = now
            state.lastStatusTime = now
        }
        if !wasReady, let interval = notifier.watchdogInterval {
            logger.debug("watchdog", metadata: ["interval_ms": .count(Int(interval / .milliseconds(1)))])
        }
    }

    /// A reload begins (`RELOADING=1`); ``ready()`` follows when it is done.
    public func reloading() {
        notifier.send(["RELOADING=1", "STATUS=reloading config.json"])
    }

    /// A stop begins: `STOPPING=1`; files in flight are finished.
    public func stopping() {
        startupDone.raise()
        notifier.send(["STOPPING=1", "STATUS=stopping: finishing the files in flight"])
    }

    // MARK: - The loop's turns

    /// When the loop must turn again at the latest, for the next ping or status line.
    func nextDue(after now: ContinuousClock.Instant = .now) -> ContinuousClock.Instant {
        let (lastPing, lastStatus) = state.withLock { ($0.lastPing, $0.lastStatusTime) }
        var due = (lastStatus ?? now) + ServiceHeartbeat.statusInterval
        if let pingInterval { due = min(due, (lastPing ?? now) + pingInterval) }
        return due
    }

    /// One turn of the watch loop: pings the watchdog unless the pipeline is wedged, and updates `STATUS=`.
    func loopTurned(now: ContinuousClock.Instant = .now) {
        let stall = progress.stalled(limit: stallLimit, at: now)
        var message: [String] = []
        let (ready, pingDue, statusDue) = state.withLock { state in
            (
                state.ready,
                pingInterval.map { now - (state.lastPing ?? now) >= $0 * 0.9 } ?? false,
                now - (state.lastStatusTime ?? now) >= ServiceHeartbeat.statusInterval
            )
        }
        guard ready else { return }
        if let stall {
            let seconds = Int((now - stall.lastProgress) / .seconds(1))
            let reported = state.withLock { state in
                defer { state.reportedStall = true }
                return state.reportedStall
            }
            if !reported {
                logger.error(
                    "the pipeline is wedged: no progress; the watchdog is no longer told that all is well, so "
                        + "systemd restarts photodrop (files in flight are recovered at the next start)",
                    metadata: ["activity": .string(stall.what), "stalled_s": .count(seconds)])
            }
            if statusDue {
                message.append("STATUS=stalled for \(seconds) s: \(stall.what); waiting for the watchdog to restart")
            }
        } else {
            state.withLock { $0.reportedStall = false }
            if pingDue { message.append("WATCHDOG=1") }
            if statusDue { message.append("STATUS=" + summary(at: now)) }
        }
        guard !message.isEmpty else { return }
        notifier.send(message)
        state.withLock { state in
            if message.contains("WATCHDOG=1") { state.lastPing = now }
            if statusDue { state.lastStatusTime = now }
        }
    }

    /// `stored 120, duplicates 3, rejected 2, failed 0; 5 waiting, 2 in progress`, and what a long wait is about.
    func summary(at now: ContinuousClock.Instant = .now) -> String {
        let counts = statistics.snapshot
        var text =
            "stored \(counts.imported), duplicates \(counts.duplicates), rejected \(counts.rejected), "
            + "failed \(counts.failed); \(health.waiting) waiting, \(progress.count) in progress"
        if let problem = health.problems().first(where: { $0.code == "libraryLocked" }) {
            text += "; waiting: another process holds the library's write lock (\(problem.count) tries)"
        }
        if let long = progress.longest(over: .seconds(5), at: now) {
            text += "; busy for \(Int((now - long.since) / .seconds(1))) s: \(long.what)"
            if let detail = long.detail { text += " (\(detail))" }
        }
        return text
    }
}
