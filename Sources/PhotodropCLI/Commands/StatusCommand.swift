import BuildInfo
import FoundationEssentials
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
    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
            let report = StatusReport.gather(context.config)
            if context.command.flag("json") {
                context.print(CatalogJSON.status(report).text)
            } else {
                context.console.output(text(report))
            }
            return report.problems.isEmpty ? ExitStatus.success : ExitStatus.failure
        }
    }

    static func text(_ report: StatusReport) -> String {
        var lines: [(String, String)] = [("Library", report.library)]
        lines.append(("Configuration", report.configFile ?? "none (built-in defaults)"))
        lines.append(("Version", PhotodropVersion.description))
        switch report.daemon {
        case .running(let pid):
            var text = "running" + (pid.map { " (pid \($0))" } ?? "")
            if let status = report.daemonStatus, status.saysConfiguration, status.configFile != report.configFile {
                // The daemon may have been started elsewhere, with another file or none: say what it runs with.
                text += ", with " + (status.configFile ?? "the built-in defaults (no configuration file)")
            }
            lines.append(("Daemon", text))
            if let watches = report.daemonStatus?.watches { lines.append(("Watching", watchingText(watches))) }
        case .notRunning: lines.append(("Daemon", "not running"))
        case .unknown(let problem): lines.append(("Daemon", "unknown: \(problem)"))
        }
        for (index, node) in report.nodes.enumerated() {
            let state =
                node.running
                ? "heartbeat \(Int(node.heartbeatAge.rounded())) s ago, \(TextFormat.plural(node.claimed, "file")) claimed, "
                    + "\(TextFormat.count(node.waiting)) waiting"
                : "stopped"
            let mine = node.id == report.node ? " (this node)" : ""
            lines.append(
                (index == 0 ? "Nodes" : "", "\(node.id)\(mine): \(node.host), pid \(node.pid), \(state)"))
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
        if let polled = watches.polledInbox {
            let why = polled == "poll" ? "\"poll\" in the configuration" : "on \(polled): other machines' files make no event"
            text += "; the inbox is rescanned every \(TextFormat.plural(watches.rescanSeconds ?? 0, "second")) (\(why))"
        }
        if watches.unwatchedFolders > 0 {
            let limit = watches.maxUserWatches.map { " (\(TextFormat.count($0)))" } ?? ""
            text += "; \(TextFormat.plural(watches.unwatchedFolders, "folder")) polled instead: the limit "
                + "fs.inotify.max_user_watches\(limit) is reached; raise it with sysctl"
        }
        return text
    }

}
