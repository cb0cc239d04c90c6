import FoundationEssentials
import Ingest
import PhotoCatalog
import PhotoImageManager
import PhotodropSystem
import Rendering
import Synchronization
import PhotodropTelemetry
import PhotodropConfiguration

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
        let makesDerivatives =
            !dryRun && !command.flag("no-derivatives") && context.config.derivatives == .ingest
        let newAssets = Mutex<[String]>([])
        let onOutcome: @Sendable (FileOutcome) -> Void = { outcome in
            if makesDerivatives, let asset = outcome.assetID,
                [.photo, .gif, .video, .attached].contains(outcome.kind)
            {
                newAssets.withLock { $0.append(asset) }
            }
            if json {
                // Outcomes come from the committer and from the rejection desk: one line at a time, in the order the
                // separators were handed out.
                firstItem.withLock { first in
                    console.output((first ? "{\"items\":[\n" : ",\n") + outcome.json)
                    first = false
                }
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
                request, progress: progress,
                onCreatingFolder: { folder in
                    console.error("Creating \(folder.role) \(folder.path) (\"\(folder.key)\" in the configuration)\n")
                }, onOutcome: onOutcome)
        } catch {
            console.error("photodrop import: \(error.description)\n")
            return ExitStatus.usage
        }
        terminal?.finish()
        let ingested = started.duration(to: .now)
        let pictures = await makeDerivatives(
            of: newAssets.withLock { $0 }, config: context.config, terminal: terminal, console: console)
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
            if let pictures {
                counters.key("derivatives")
                counters.beginObject()
                counters.member("made", pictures.made)
                counters.member("failed", pictures.failed)
                counters.member("seconds", pictures.seconds)
                counters.endObject()
            }
            counters.endObject()
            console.output(opening + "]," + counters.text.dropFirst() + "\n")
        } else {
            console.output(summary(counts, dryRun: dryRun, elapsed: ingested))
            if let pictures, pictures.made + pictures.failed > 0 {
                var line = "Made thumbnails and previews of \(plural(pictures.made, "asset")) in "
                    + NumberText.fixed(pictures.seconds, places: 2) + " s"
                if pictures.failed > 0 {
                    line += " (\(pictures.failed) could not be decoded: stored without them)"
                }
                console.output(line + "\n")
            }
        }
        return counts.rejected + counts.failed == 0 ? ExitStatus.success : ExitStatus.failure
    }

    /// What the import's derivative step did.
    struct DerivativeCounts {
        var made = 0
        var failed = 0
        var seconds = 0.0
    }

    /// Makes the new assets' thumbnails and previews on all cores, after the import's last commit; nil when there was
    /// nothing to do. A missing render helper is reported and does not fail the import (the pictures are made later).
    static func makeDerivatives(
        of assets: [String], config: IngestConfig, terminal: TerminalProgress?, console: Console
    ) async -> DerivativeCounts? {
        guard !assets.isEmpty else { return nil }
        let started = ContinuousClock.now
        let pool = RenderPool(size: max(1, ProcessInfo.processInfo.activeProcessorCount))
        defer { pool.stop() }
        let maker = DerivativeMaker(library: LibraryLocation.library(config), pool: pool)
        var counts = DerivativeCounts()
        do {
            let results = try await maker.makeMissing(for: assets) { done, total in
                terminal?.update(force: done == 0) { _ in "Thumbnails and previews: \(done) of \(total)" }
            }
            for (asset, outcome) in results {
                switch outcome {
                case .made: counts.made += 1
                case .failed(let message):
                    counts.failed += 1
                    console.error("no thumbnail: \(asset): \(message)\n")
                case .skipped: break
                case .helperUnavailable(let message):
                    console.error("photodrop import: thumbnails not made now (photodrop thumbnails makes them later): \(message)\n")
                }
            }
        } catch {
            console.error("photodrop import: thumbnails not made now (photodrop thumbnails makes them later): \(error)\n")
        }
        terminal?.finish()
        let elapsed = started.duration(to: .now)
        counts.seconds = elapsed.seconds
        return counts
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
        let seconds = elapsed.seconds
        var kinds: [String] = []
        if counts.photos > 0 { kinds.append(plural(counts.photos, "photo")) }
        if counts.gifs > 0 { kinds.append(plural(counts.gifs, "GIF")) }
        if counts.videos > 0 { kinds.append(plural(counts.videos, "video")) }
        let breakdown = kinds.isEmpty ? "" : " (" + kinds.joined(separator: ", ") + ")"
        let rate = seconds > 0 ? Int((Double(counts.total) / seconds).rounded()) : 0
        let verb = dryRun ? "Would import" : "Imported"
        let attached = counts.attached > 0 ? "\(counts.attached) attached to them, " : ""
        return "\(verb) \(counts.imported)\(breakdown), \(attached)\(plural(counts.duplicates, "duplicate")), "
            + "\(counts.rejected) rejected, \(counts.failed) failed in \(NumberText.fixed(seconds, places: 2)) s "
            + "(\(rate) files/s)\n"
    }

    private static func plural(_ count: Int, _ noun: String) -> String {
        "\(count) \(noun)\(count == 1 ? "" : "s")"
    }
}
