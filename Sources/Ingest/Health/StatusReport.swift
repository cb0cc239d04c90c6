import FoundationEssentials
import PhotoCatalog
import PhotodropSystem
import PhotodropTelemetry
import PhotodropConfiguration

/// Everything `photodrop status` and `serve`'s `/api/status` report: counts, sizes, the last change, the inbox and
/// rejected folders, the daemon, and health problems (``HealthProblem``): what a running daemon reports about itself
/// and what this finds itself (no daemon while files wait or claims are in flight, a daemon that stopped reporting, a
/// missing inbox, a read-only or unreadable library).
public struct StatusReport: Sendable {
    public var library: String
    public var configFile: String?
    public var libraryExists = false
    public var writable: Bool?
    public var statistics: LibraryStatistics?
    public var databaseBytes: Int64 = 0
    public var daemon: DaemonLock.State = .notRunning(stalePID: nil)
    public var inbox: String
    public var inboxCount = FolderCensus.Count()
    public var rejected: String
    public var rejectedCount = FolderCensus.Count()
    public var daemonStatus: DaemonStatus?
    public var problems: [HealthProblem] = []
    /// On a shared (PostgreSQL) catalog: every node with its last heartbeat and what it holds; empty for SQLite.
    public var nodes: [NodeRegistration.Node] = []
    /// This node's id on a shared catalog.
    public var node: String?

    public var claims: Int { statistics?.journalEntryCounts[claimKind] ?? 0 }
    public var daemonRunning: Bool {
        if case .running = daemon { return true }
        return false
    }

    /// The journal kind of this node's claims (`claim`, or `claim:<node>` on a shared catalog).
    var claimKind = ClaimJournal.kind

    /// Gathers the report for `config`: works without a library and beside a running daemon.
    public static func gather(_ config: IngestConfig) -> StatusReport {
        var report = StatusReport(
            library: config.library, configFile: config.sourceFile, inbox: config.inbox, rejected: config.rejected)
        if let node = config.sharedNode {
            report.claimKind = ClaimJournal.kind(node: node)
            report.node = node
        }
        report.libraryExists =
            LibraryLocation.state(of: config) == .library
        let now = UTCTimestamp.now()
        if report.libraryExists {
            let library = LibraryLocation.library(config)
            do {
                report.statistics = try library.statistics()
            } catch {
                report.problems.append(
                    HealthProblem(
                        .libraryUnreadable, oldestPath: config.library,
                        message: "cannot read the library: \(error)"))
            }
            if config.catalog.isPostgres {
                do { report.nodes = try NodeRegistration.nodes(of: library) } catch {
                    report.problems.append(
                        HealthProblem(
                            .catalogUnreachable, oldestPath: config.library,
                            message: "cannot read the nodes from the catalog: \(error)"))
                }
            }
            switch library.authorizationStatus(for: .readWrite) {
            case .authorized, .limited: report.writable = true
            case .restricted:
                report.writable = false
                report.problems.append(
                    HealthProblem(
                        .libraryReadOnly, oldestPath: config.library,
                        message: "the library at \(config.library) is on a read-only filesystem: nothing can be "
                            + "imported; mount it read-write"))
            case .denied: report.writable = false
            case .notDetermined: report.writable = nil
            }
            for suffix in ["", "-wal", "-shm"] {
                if let info = try? FileSystem.status(atPath: config.library + "/" + PhotoLibrary.databaseName + suffix) {
                    report.databaseBytes += info.size
                }
            }
        }
        report.daemon = DaemonLock.inspect(library: config.library, node: config.sharedNode)
        if case .unknown(let problem) = report.daemon {
            report.problems.append(HealthProblem(.libraryUnreadable, oldestPath: config.library, message: problem))
        }
        if report.daemonRunning {
            report.daemonStatus = DaemonStatus.read(
                library: config.library, inbox: config.inbox, node: config.sharedNode)
            if let status = report.daemonStatus, now.seconds - status.updated.seconds <= DaemonStatus.staleAfterSeconds {
                report.problems += status.problems
            } else if let since = report.daemonStatus?.updated ?? DaemonLock.lockedSince(library: config.library, node: config.sharedNode),
                now.seconds - since.seconds > DaemonStatus.staleAfterSeconds
            {
                report.problems.append(
                    HealthProblem(
                        .daemonUnresponsive, since: since,
                        message: "photodrop watch holds the library but has not reported since \(since.iso8601) "
                            + "(its status file \(DaemonStatus.fileName) is old or missing): it may be stuck. Look at "
                            + "its log; restart it if it does not recover"))
            }
        }
        report.inboxCount = FolderCensus.inbox(config.inbox, ignore: config.ignoreRules)
        if !report.inboxCount.exists && report.inboxCount.problems.isEmpty {
            report.problems.append(
                HealthProblem(
                    .inboxMissing, oldestPath: config.inbox,
                    message: "the inbox \(config.inbox) does not exist; create it, files are dropped there"))
        }
        if !report.inboxCount.problems.isEmpty, !report.problems.contains(where: { $0.code == "inboxUnreadable" }) {
            report.problems.append(
                HealthProblem(
                    .inboxUnreadable, count: report.inboxCount.problems.count,
                    oldestPath: report.inboxCount.problems[0].path, message: report.inboxCount.problems[0].message))
        }
        if let first = report.inboxCount.untakeable.first {
            report.problems.append(
                HealthProblem(
                    .untakeableEntries, count: report.inboxCount.untakeable.count, oldestPath: first.path,
                    message: "entries in the inbox that photodrop never takes (symbolic links, FIFOs, sockets): "
                        + first.message))
        }
        report.rejectedCount = FolderCensus.rejected(config.rejected)
        if !report.rejectedCount.problems.isEmpty, !report.problems.contains(where: { $0.code == "rejectedUnreadable" }) {
            report.problems.append(
                HealthProblem(
                    .rejectedUnreadable, count: report.rejectedCount.problems.count,
                    oldestPath: report.rejectedCount.problems[0].path, message: report.rejectedCount.problems[0].message))
        }
        if !report.daemonRunning {
            if report.claims > 0 {
                report.problems.append(
                    HealthProblem(
                        .claimsWaiting, count: report.claims,
                        message: "\(plural(report.claims, "file")) claimed from the inbox "
                            + "\(report.claims == 1 ? "waits" : "wait") to be finished, but no daemon runs; start "
                            + "'photodrop watch'"))
            }
            if report.inboxCount.files > 0 {
                report.problems.append(
                    HealthProblem(
                        .notWatching, count: report.inboxCount.files,
                        message: "\(plural(report.inboxCount.files, "file")) "
                            + "\(report.inboxCount.files == 1 ? "waits" : "wait") in the inbox, but no daemon runs; "
                            + "start 'photodrop watch' (or import them with 'photodrop import')"))
            }
        }
        return report
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
