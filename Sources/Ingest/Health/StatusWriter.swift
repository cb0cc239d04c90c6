import PhotodropSystem
import PhotodropTelemetry

/// Keeps `watch.status.json` current while the daemon runs: rewritten when the counts or the problems change, and
/// at least every ``DaemonStatus/heartbeat`` so that a reader can tell a live daemon from a wedged one. Written into
/// the library; where the library cannot be written (read-only, full), into the inbox's `.photodrop/` instead.
/// Runs until its task is cancelled.
struct StatusWriter: Sendable {
    let statistics: IngestStatistics
    let health: HealthMonitor
    let library: FolderRoot
    let inbox: FolderRoot
    /// The watcher's budget now (folders watched and polled).
    let watches: @Sendable () -> InotifyWatcher.Status?
    /// The configuration file the daemon was started with, nil for the built-in defaults.
    let configFile: String?
    /// The status file's name (one per node on a shared library).
    var fileName = DaemonStatus.fileName
    let startedAt = UTCTimestamp.now()
    /// The library folder the daemon opened (its identity at start): a folder that took its place since (the library
    /// deleted or moved away, an empty one made there) is never written into.
    var libraryNode: FileNode? = nil

    func run() async {
        var written:
            (change: Int, counts: IngestStatistics.Counts, watches: InotifyWatcher.Status?, at: ContinuousClock.Instant)?
        while !Task.isCancelled {
            let counts = statistics.snapshot
            let change = health.changeCount
            let budget = watches()
            let due = written.map {
                $0.change != change || $0.counts != counts || $0.watches != budget
                    || .now - $0.at >= DaemonStatus.heartbeat
            }
            if due ?? true, write(counts, budget) { written = (change, counts, budget, .now) }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Writes the status once; returns whether it was written anywhere.
    private func write(_ counts: IngestStatistics.Counts, _ budget: InotifyWatcher.Status?) -> Bool {
        let status = DaemonStatus(
            pid: SystemProcess.id, started: startedAt, updated: .now(), waiting: health.waiting,
            waitingForPartner: health.waitingForPartner, counts: counts,
            problems: health.problems(), watches: budget, configFile: configFile)
        if let folder = try? library.directory(), libraryNode == nil || (try? folder.status().node) == libraryNode,
            (try? status.write(into: folder, named: fileName)) != nil
        {
            if let inbox = try? inbox.directory() {
                try? inbox.directory(".photodrop").remove(fileName)
            }
            return true
        }
        // The library cannot be written (read-only, full): report from the inbox instead.
        if let inbox = try? inbox.directory(), let folder = try? inbox.directory(".photodrop"),
            (try? status.write(into: folder, named: fileName, mode: 0o644)) != nil
        {
            return true
        }
        return false
    }
}
