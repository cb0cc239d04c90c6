import Foundation
import Ingest
import LibraryJSON
import PhotoCatalog
import PhotodropSystem

/// `photodrop status [--json]`: counts, sizes, the last change, the inbox and rejected folders, the daemon, and
/// health problems.
///
/// Works without a library (it says there is none yet) and while a daemon writes. Health is the list of
/// ``Ingest/HealthProblem``s: what a running daemon reports about itself (its status file: stuck files, a locked
/// library, rejected files that cannot be quarantined, unreadable inbox folders, the watch limit) and what this
/// command finds itself (no daemon while files wait or claims are in flight, a daemon that stopped reporting, a
/// missing inbox, a read-only or unreadable library). Exit status 0 when the list is empty, 1 otherwise.
enum StatusCommand {
    /// The journal kind of the ingest pipeline's claims.
    static let claimKind = "claim"

    /// Everything `status` reports.
    struct Report {
        var library: String
        var configFile: String?
        var libraryExists = false
        var writable: Bool?
        var statistics: LibraryStatistics?
        var databaseBytes: Int64 = 0
        var daemon: DaemonLock.State = .notRunning(stalePID: nil)
        var inbox: String
        var inboxCount = FolderCensus.Count()
        var rejected: String
        var rejectedCount = FolderCensus.Count()
        var daemonStatus: DaemonStatus?
        var problems: [HealthProblem] = []

        var claims: Int { statistics?.journalEntryCounts[StatusCommand.claimKind] ?? 0 }
        var daemonRunning: Bool {
            if case .running = daemon { return true }
            return false
        }
    }

    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
            let report = gather(context.config)
            if context.command.flag("json") {
                context.print(json(report).text)
            } else {
                context.console.output(text(report))
            }
            return report.problems.isEmpty ? ExitStatus.success : ExitStatus.failure
        }
    }

    static func gather(_ config: IngestConfig) -> Report {
        var report = Report(
            library: config.library, configFile: config.sourceFile, inbox: config.inbox, rejected: config.rejected)
        report.libraryExists = LibraryAccess.exists(config)
        let now = UTCTimestamp.now()
        if report.libraryExists {
            let library = PhotoLibrary(url: URL(fileURLWithPath: config.library))
            do {
                report.statistics = try library.statistics()
            } catch {
                report.problems.append(
                    HealthProblem(
                        code: "libraryUnreadable", oldestPath: config.library,
                        message: "cannot read the library: \(error)"))
            }
            switch library.authorizationStatus(for: .readWrite) {
            case .authorized, .limited: report.writable = true
            case .restricted:
                report.writable = false
                report.problems.append(
                    HealthProblem(
                        code: "libraryReadOnly", oldestPath: config.library,
                        message: "the library at \(config.library) is on a read-only filesystem: nothing can be "
                            + "imported; mount it read-write"))
            case .denied: report.writable = false
            case .notDetermined: report.writable = nil
            }
            for suffix in ["", "-wal", "-shm"] {
                var info = stat()
                if stat(config.library + "/" + PhotoLibrary.databaseName + suffix, &info) == 0 {
                    report.databaseBytes += Int64(info.st_size)
                }
            }
        }
        report.daemon = DaemonLock.inspect(library: config.library)
        if case .unknown(let problem) = report.daemon {
            report.problems.append(HealthProblem(code: "libraryUnreadable", oldestPath: config.library, message: problem))
        }
        if report.daemonRunning {
            report.daemonStatus = DaemonStatus.read(library: config.library, inbox: config.inbox)
            if let status = report.daemonStatus, now.seconds - status.updated.seconds <= DaemonStatus.staleAfterSeconds {
                report.problems += status.problems
            } else if let since = report.daemonStatus?.updated ?? DaemonLock.lockedSince(library: config.library),
                now.seconds - since.seconds > DaemonStatus.staleAfterSeconds
            {
                report.problems.append(
                    HealthProblem(
                        code: "daemonUnresponsive", since: since,
                        message: "photodrop watch holds the library but has not reported since \(since.iso8601) "
                            + "(its status file \(DaemonStatus.fileName) is old or missing): it may be stuck. Look at "
                            + "its log; restart it if it does not recover"))
            }
        }
        report.inboxCount = FolderCensus.inbox(config.inbox, ignore: config.ignoreRules)
        if !report.inboxCount.exists && report.inboxCount.problems.isEmpty {
            report.problems.append(
                HealthProblem(
                    code: "inboxMissing", oldestPath: config.inbox,
                    message: "the inbox \(config.inbox) does not exist; create it, files are dropped there"))
        }
        if !report.inboxCount.problems.isEmpty, !report.problems.contains(where: { $0.code == "inboxUnreadable" }) {
            report.problems.append(
                HealthProblem(
                    code: "inboxUnreadable", count: report.inboxCount.problems.count,
                    oldestPath: report.inboxCount.problems[0].path, message: report.inboxCount.problems[0].message))
        }
        if let first = report.inboxCount.untakeable.first {
            report.problems.append(
                HealthProblem(
                    code: "untakeableEntries", count: report.inboxCount.untakeable.count, oldestPath: first.path,
                    message: "entries in the inbox that photodrop never takes (symbolic links, FIFOs, sockets): "
                        + first.message))
        }
        report.rejectedCount = FolderCensus.rejected(config.rejected)
        if !report.rejectedCount.problems.isEmpty, !report.problems.contains(where: { $0.code == "rejectedUnreadable" }) {
            report.problems.append(
                HealthProblem(
                    code: "rejectedUnreadable", count: report.rejectedCount.problems.count,
                    oldestPath: report.rejectedCount.problems[0].path, message: report.rejectedCount.problems[0].message))
        }
        if !report.daemonRunning {
            if report.claims > 0 {
                report.problems.append(
                    HealthProblem(
                        code: "claimsWaiting", count: report.claims,
                        message: "\(TextFormat.plural(report.claims, "file")) claimed from the inbox "
                            + "\(report.claims == 1 ? "waits" : "wait") to be finished, but no daemon runs; start "
                            + "'photodrop watch'"))
            }
            if report.inboxCount.files > 0 {
                report.problems.append(
                    HealthProblem(
                        code: "notWatching", count: report.inboxCount.files,
                        message: "\(TextFormat.plural(report.inboxCount.files, "file")) "
                            + "\(report.inboxCount.files == 1 ? "waits" : "wait") in the inbox, but no daemon runs; "
                            + "start 'photodrop watch' (or import them with 'photodrop import')"))
            }
        }
        return report
    }

    static func text(_ report: Report) -> String {
        var lines: [(String, String)] = [("Library", report.library)]
        lines.append(("Configuration", report.configFile ?? "none (built-in defaults)"))
        switch report.daemon {
        case .running(let pid):
            lines.append(("Daemon", "running" + (pid.map { " (pid \($0))" } ?? "")))
            if let watches = report.daemonStatus?.watches { lines.append(("Watching", watchingText(watches))) }
        case .notRunning: lines.append(("Daemon", "not running"))
        case .unknown(let problem): lines.append(("Daemon", "unknown: \(problem)"))
        }
        if let stats = report.statistics {
            var kinds = [
                TextFormat.plural(stats.photoCount, "photo"), TextFormat.plural(stats.gifCount, "GIF"),
                TextFormat.plural(stats.videoCount, "video"),
            ].joined(separator: ", ")
            if stats.livePhotoCount > 0 { kinds += " (\(TextFormat.plural(stats.livePhotoCount, "Live Photo")))" }
            lines.append(("Assets", "\(TextFormat.count(stats.assetCount)): \(kinds)"))
            lines.append(("Favorites", TextFormat.count(stats.favoriteCount)))
            if stats.hiddenCount > 0 { lines.append(("Hidden", TextFormat.count(stats.hiddenCount))) }
            lines.append(("Recently deleted", TextFormat.count(stats.recentlyDeletedCount)))
            lines.append(("Albums", TextFormat.count(stats.albumCount)))
            lines.append(
                (
                    "Originals",
                    "\(TextFormat.plural(stats.originalCount, "file")), \(TextFormat.bytes(stats.originalBytes))"
                ))
            lines.append(("Database", TextFormat.bytes(report.databaseBytes)))
            if let date = stats.latestChangeDate {
                lines.append(
                    (
                        "Last change",
                        "\(TextFormat.date(date)) (\(TextFormat.age(date))), token \(stats.latestChangeToken)"
                    ))
            } else {
                lines.append(("Last change", "none yet"))
            }
            if report.writable == false {
                lines.append(("Access", "read-only for this user"))
            }
        } else if !report.libraryExists {
            lines.append(("Assets", "no library yet ('photodrop watch' or 'photodrop import' creates it)"))
        }
        lines.append(
            (
                "Inbox",
                report.inboxCount.exists
                    ? "\(TextFormat.plural(report.inboxCount.files, "file")) waiting in \(report.inbox)"
                    : "\(report.inbox) does not exist"
            ))
        let partners = report.daemonRunning ? report.daemonStatus?.waitingForPartner ?? 0 : 0
        lines.append(
            (
                "Claimed",
                "\(TextFormat.plural(report.claims, "file")) in flight"
                    + (partners > 0 ? ", \(partners) waiting for a partner (pairWaitSeconds)" : "")
            ))
        lines.append(
            (
                "Rejected",
                "\(TextFormat.plural(report.rejectedCount.files, "file")), "
                    + "\(TextFormat.bytes(report.rejectedCount.bytes)) in \(report.rejected)"
            ))
        lines.append(("Health", report.problems.isEmpty ? "ok" : TextFormat.plural(report.problems.count, "problem")))
        let width = lines.map(\.0.count).max() ?? 0
        var text =
            lines.map { $0.0 + String(repeating: " ", count: width - $0.0.count) + "  " + $0.1 }
            .joined(separator: "\n") + "\n"
        for problem in report.problems {
            var details: [String] = []
            if problem.count > 1 { details.append("\(problem.count)") }
            if let path = problem.oldestPath { details.append("oldest: \(FileNameEncoding.displayText(path))") }
            if let since = problem.since { details.append("since \(since.iso8601)") }
            text += "  - \(problem.code): \(problem.message)"
            text += details.isEmpty ? "\n" : " (\(details.joined(separator: ", ")))\n"
        }
        return text
    }

    /// "12 folders", or, with folders beyond inotify's limit, how many are polled instead and what to raise.
    static func watchingText(_ watches: InotifyWatcher.Status) -> String {
        var text = TextFormat.plural(watches.watchedFolders, "folder") + " with inotify"
        if watches.unwatchedFolders > 0 {
            let limit = watches.maxUserWatches.map { " (\(TextFormat.count($0)))" } ?? ""
            text += "; \(TextFormat.plural(watches.unwatchedFolders, "folder")) polled instead: the limit "
                + "fs.inotify.max_user_watches\(limit) is reached; raise it with sysctl"
        }
        return text
    }

    static func json(_ report: Report) -> JSONNode {
        let stats = report.statistics
        var members: [(String, JSONNode)] = [
            ("library", .string(report.library)),
            ("config", .string(report.configFile)),
            ("libraryExists", .bool(report.libraryExists)),
            ("writable", report.writable.map { .bool($0) } ?? .null),
        ]
        switch report.daemon {
        case .running(let pid):
            var daemon: [(String, JSONNode)] = [("running", .bool(true)), ("pid", pid.map { .int(Int($0)) } ?? .null)]
            if let watches = report.daemonStatus?.watches {
                daemon.append(
                    (
                        "watches",
                        .object([
                            ("folders", .int(watches.watchedFolders)), ("polled", .int(watches.unwatchedFolders)),
                            ("maxUserWatches", watches.maxUserWatches.map { .int($0) } ?? .null),
                        ])
                    ))
            }
            members.append(("daemon", .object(daemon)))
        case .notRunning, .unknown:
            members.append(("daemon", .object([("running", .bool(false)), ("pid", .null)])))
        }
        members += [
            (
                "assets",
                .object([
                    ("total", .int(stats?.assetCount ?? 0)), ("photos", .int(stats?.photoCount ?? 0)),
                    ("gifs", .int(stats?.gifCount ?? 0)), ("videos", .int(stats?.videoCount ?? 0)),
                    ("livePhotos", .int(stats?.livePhotoCount ?? 0)),
                ])
            ),
            ("favorites", .int(stats?.favoriteCount ?? 0)),
            ("hidden", .int(stats?.hiddenCount ?? 0)),
            ("recentlyDeleted", .int(stats?.recentlyDeletedCount ?? 0)),
            ("albums", .int(stats?.albumCount ?? 0)),
            (
                "originals",
                .object([("count", .int(stats?.originalCount ?? 0)), ("bytes", .int(stats?.originalBytes ?? 0))])
            ),
            ("databaseBytes", .int(report.databaseBytes)),
            (
                "lastChange",
                stats.flatMap { stats in
                    stats.latestChangeDate.map {
                        .object([
                            ("token", .string(stats.latestChangeToken.stringValue)), ("date", CatalogJSON.date($0)),
                        ])
                    }
                } ?? .null
            ),
            (
                "inbox",
                .object([
                    ("path", .string(report.inbox)), ("exists", .bool(report.inboxCount.exists)),
                    ("waiting", .int(report.inboxCount.files)),
                ])
            ),
            ("claimsInFlight", .int(report.claims)),
            ("waitingForPartner", .int(report.daemonRunning ? report.daemonStatus?.waitingForPartner ?? 0 : 0)),
            (
                "rejected",
                .object([
                    ("path", .string(report.rejected)), ("files", .int(report.rejectedCount.files)),
                    ("bytes", .int(report.rejectedCount.bytes)),
                ])
            ),
            ("healthy", .bool(report.problems.isEmpty)),
            (
                "problems",
                .array(
                    report.problems.map { problem in
                        .object([
                            ("code", .string(problem.code)), ("count", .int(problem.count)),
                            ("oldestPath", .string(problem.oldestPath)),
                            ("since", .string(problem.since?.iso8601)), ("message", .string(problem.message)),
                        ])
                    })
            ),
        ]
        return .object(members)
    }
}
