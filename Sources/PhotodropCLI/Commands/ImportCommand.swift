import Ingest
import PhotodropSystem
import Synchronization

/// `photodrop import PATH… [--album NAME] [--move] [--dry-run] [--json]`: parse, run ``Ingest/ImportService``,
/// print.
///
/// Text: one line per rejected or failed file on stderr (with `--dry-run`, one line per file on stdout saying what
/// would happen), then a summary on stdout. `--json`: one object on stdout, `items` streamed as files finish, then
/// `imported`, `duplicates`, `attached`, `rejected`, `failed`. Exit 0 when nothing was rejected or failed, 1 otherwise, 2 for usage
/// errors.
enum ImportCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        let command = context.command
        let console = context.console
        let json = command.flag("json")
        let dryRun = command.flag("dry-run")
        let request = ImportService.Request(
            paths: command.arguments("PATH"), album: command.value("album"), move: command.flag("move"),
            dryRun: dryRun)
        // Warnings about single files are part of the output already; the log only says what is wrong beyond them.
        let logger = Logger(label: "photodrop.import", level: .error, format: context.config.log.format)
        let firstItem = Mutex(true)
        let onOutcome: @Sendable (FileOutcome) -> Void = { outcome in
            if json {
                let separator = firstItem.withLock { first in
                    defer { first = false }
                    return first ? "{\"items\":[\n" : ",\n"
                }
                console.output(separator + outcome.json)
            } else if dryRun {
                console.output(dryRunLine(outcome))
            } else if !outcome.kind.isStored {
                console.error("\(outcome.kind.rawValue): \(outcome.path): \(outcome.message)\n")
            }
        }
        let started = ContinuousClock.now
        let counts: IngestStatistics.Counts
        let terminal = json ? nil : TerminalProgress()
        var progress: (@Sendable (ProgressSnapshot) -> Void)?
        if let terminal { progress = { snapshot in terminal.update(snapshot) } }
        do {
            counts = try await ImportService(config: context.config, logger: logger).run(
                request, progress: progress, onOutcome: onOutcome)
        } catch {
            console.error("photodrop import: \(error.description)\n")
            return ExitStatus.usage
        }
        terminal?.finish()
        if json {
            // The items were streamed as files finished; the counts close the same object.
            let opening = firstItem.withLock { $0 } ? "{\"items\":[" : "\n"
            var counters = JSONWriter()
            counters.beginObject()
            counters.member("imported", counts.imported)
            counters.member("duplicates", counts.duplicates)
            counters.member("attached", counts.attached)
            counters.member("rejected", counts.rejected)
            counters.member("failed", counts.failed)
            counters.member("dryRun", dryRun)
            counters.endObject()
            console.output(opening + "]," + counters.text.dropFirst() + "\n")
        } else {
            console.output(summary(counts, dryRun: dryRun, elapsed: started.duration(to: .now)))
        }
        return counts.rejected + counts.failed == 0 ? ExitStatus.success : ExitStatus.failure
    }

    static func dryRunLine(_ outcome: FileOutcome) -> String {
        switch outcome.kind {
        case .photo, .gif, .video:
            return "new \(outcome.kind.rawValue)\t\(outcome.path)\(outcome.album.map { "\t→ \($0)" } ?? "")\n"
        case .duplicate:
            return "duplicate\t\(outcome.path)\t\(outcome.message)\n"
        case .attached:
            return "attached\t\(outcome.path)\t\(outcome.message)\n"
        case .rejected:
            return "rejected (\(outcome.reason ?? "?"))\t\(outcome.path)\t\(outcome.message)\n"
        case .failed:
            return "failed\t\(outcome.path)\t\(outcome.message)\n"
        }
    }

    static func summary(_ counts: IngestStatistics.Counts, dryRun: Bool, elapsed: Duration) -> String {
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        var kinds: [String] = []
        if counts.photos > 0 { kinds.append(plural(counts.photos, "photo")) }
        if counts.gifs > 0 { kinds.append(plural(counts.gifs, "GIF")) }
        if counts.videos > 0 { kinds.append(plural(counts.videos, "video")) }
        let breakdown = kinds.isEmpty ? "" : " (" + kinds.joined(separator: ", ") + ")"
        let rate = seconds > 0 ? Int((Double(counts.total) / seconds).rounded()) : 0
        let verb = dryRun ? "Would import" : "Imported"
        let attached = counts.attached > 0 ? "\(counts.attached) attached to them, " : ""
        return "\(verb) \(counts.imported)\(breakdown), \(attached)\(plural(counts.duplicates, "duplicate")), "
            + "\(counts.rejected) rejected, \(counts.failed) failed in \(String(format: "%.2f", seconds)) s "
            + "(\(rate) files/s)\n"
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
