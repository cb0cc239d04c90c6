import Dispatch
import FoundationEssentials
import Ingest
import LibraryJSON
import MediaProbe
import PhotoCatalog
import PhotodropSystem
import Synchronization
import PhotodropConfiguration

/// `photodrop probe FILE… [--json]`: what photodrop would do with each file, decided by content, touching nothing.
///
/// Folders are walked recursively (symbolic links to folders not followed), files in name order, skipping what the
/// daemon would never take from an inbox (the same ``IgnoreRules``: hidden and temporary names, `ignore` patterns);
/// the summary says how many were skipped. A file named on the command line is always probed. The files are probed in batches by `workers` probers at once (one libmagic cookie each), and each batch is
/// printed in walk order with one write as soon as it is done. Exit status 0 when every file is accepted, 1 when any
/// is rejected or cannot be read (or nothing was found to probe).
enum ProbeCommand {
    /// Files probed together and printed with one write.
    static let batchSize = 256

    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
            let json = context.command.flag("json")
            let probers: [MediaProber]
            do {
                let policy = videoPolicy(context.config.video)
                probers = try (0..<context.config.workerCount).map { _ in try MediaProber(policy: policy) }
            } catch {
                throw CommandFailure("\(error)")
            }
            var tally = Tally()
            var batch: [(path: String, problem: String?)] = []
            batch.reserveCapacity(batchSize)
            let pairing = context.config.pairing
            let flush = {
                let (text, counts) = probe(batch, with: probers, json: json, pairing: pairing)
                context.console.output(text)
                tally.add(counts)
                batch.removeAll(keepingCapacity: true)
            }
            let rules = context.config.ignoreRules
            var skipped = 0
            for argument in context.command.arguments("FILE") {
                walk(argument, ignoring: rules, skipped: &skipped) { path, problem in
                    batch.append((path, problem))
                    if batch.count == batchSize { flush() }
                }
            }
            if !batch.isEmpty { flush() }
            if !json {
                var parts = [TextFormat.plural(tally.accepted, "accepted", "accepted")]
                parts.append(TextFormat.plural(tally.rejected, "rejected", "rejected"))
                if tally.failed > 0 { parts.append(TextFormat.plural(tally.failed, "unreadable", "unreadable")) }
                context.print(
                    "\(TextFormat.plural(tally.total, "file")) probed: " + parts.joined(separator: ", ")
                        + (skipped > 0 ? skippedNote(skipped) : ""))
            } else if skipped > 0 {
                context.console.error("photodrop probe:" + skippedNote(skipped) + "\n")
            }
            if tally.total == 0 {
                throw CommandFailure(
                    "no files to probe in \(context.command.arguments("FILE").joined(separator: ", "))")
            }
            return tally.rejected + tally.failed == 0 ? ExitStatus.success : ExitStatus.failure
        }
    }

    struct Tally {
        var accepted = 0
        var rejected = 0
        var failed = 0
        var total: Int { accepted + rejected + failed }

        mutating func add(_ other: Tally) {
            accepted += other.accepted
            rejected += other.rejected
            failed += other.failed
        }
    }

    enum Verdict { case accepted, rejected, failed }

    /// The probers and result slots of one batch, shared by the threads of `concurrentPerform`.
    ///
    /// Invariant (why `@unchecked Sendable` is sound): iteration `n` is the only user of `probers[n]` (a prober never
    /// runs on two threads at once), each slot is written by the one iteration that took its index from the atomic
    /// counter, and the slots are read only after `concurrentPerform` has returned.
    private struct BatchSlots: @unchecked Sendable {
        let probers: [MediaProber]
        let slots: UnsafeMutableBufferPointer<(result: ProbeResult?, failure: String?)>
    }

    /// Probes one batch on as many threads as there are probers (each prober on one thread only), works out what
    /// its files would pair with (``PairingPreview``; `pairing` nil: turned off), and returns the text of the whole
    /// batch in its order, with the counts. A file that would join another file's asset (a Live Photo's movie, a
    /// sidecar) has the outcome `attached`.
    static func probe(
        _ batch: [(path: String, problem: String?)], with probers: [MediaProber], json: Bool,
        pairing: CommitSettings.Pairing? = nil
    ) -> (String, Tally) {
        var results = [(result: ProbeResult?, failure: String?)](repeating: (nil, nil), count: batch.count)
        let next = Atomic<Int>(0)
        results.withUnsafeMutableBufferPointer { slots in
            let shared = BatchSlots(probers: probers, slots: slots)
            DispatchQueue.concurrentPerform(iterations: min(probers.count, batch.count)) { worker in
                let prober = shared.probers[worker]
                while true {
                    let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
                    guard index < batch.count else { return }
                    let (path, problem) = batch[index]
                    if let problem {
                        shared.slots[index] = (nil, problem)
                        continue
                    }
                    do {
                        var result = try prober.probe(path: path)
                        result.metadata.adoptFileNameDate(Path.lastComponent(of: path))
                        shared.slots[index] = (result, nil)
                    } catch {
                        shared.slots[index] = (nil, "\(error)")
                    }
                }
            }
        }
        let paths = batch.map(\.path)
        let preview =
            pairing.map {
                PairingPreview(paths: paths, results: results.map(\.result), pairsRawAndJpeg: $0.pairsRawAndJpeg)
            } ?? PairingPreview(paths: [], results: [])
        var tally = Tally()
        var text = ""
        for (index, (result, problem)) in results.enumerated() {
            let path = paths[index]
            guard let result else {
                text += failure(problem ?? "cannot be read", path: path, json: json)
                tally.failed += 1
                continue
            }
            let joins = preview.joins[index].map { (path: paths[$0.primary], type: $0.type) }
            let partners = (preview.partners[index] ?? []).map { (path: paths[$0.index], type: $0.type) }
            text +=
                json
                ? CatalogJSON.probeItem(path: path, result: result, joins: joins, partners: partners).text + "\n"
                : describe(path: path, result: result, joins: joins, partners: partners)
            if result.isAccepted || joins != nil { tally.accepted += 1 } else { tally.rejected += 1 }
        }
        return (text, tally)
    }

    /// The configuration's codec lists as the probe's policy.
    static func videoPolicy(_ video: IngestConfig.Video) -> VideoPolicy {
        VideoPolicy(
            videoCodecs: Set(video.videoCodecs.map(\.description)), audioCodecs: Set(video.audioCodecs.map(\.description)))
    }

    /// The text for a file `probe` could not read at all.
    private static func failure(_ message: String, path: String, json: Bool) -> String {
        if json { return CatalogJSON.probeFailure(path: path, message: message).text + "\n" }
        return block(path, [("outcome", "failed (cannot be read)"), ("message", message)])
    }

    /// "; 3 skipped (names photodrop never takes …)".
    private static func skippedNote(_ count: Int) -> String {
        "; \(count) skipped (hidden or temporary names, or config ignore patterns: the daemon would never take them)"
    }

    /// Calls `visit` with every file at or below `path`, or with a problem for a path that cannot be walked.
    /// Folders: entries in name order, symbolic links to folders not followed; entries `rules` skip (relative to the
    /// folder named, as to an inbox) are counted in `skipped` instead.
    static func walk(
        _ path: String, ignoring rules: IgnoreRules = IgnoreRules(), skipped: inout Int,
        visit: (String, String?) -> Void
    ) {
        let info: FileStatus
        do throws(SystemError) { info = try FileSystem.status(atPath: path) } catch {
            visit(path, "cannot read '\(path)': \(error.reason)")
            return
        }
        guard info.isDirectory else {
            visit(path, nil)
            return
        }
        let root: Directory
        do {
            root = try Directory.open(atPath: path)
        } catch {
            visit(path, "cannot list the folder '\(path)': \(error.reason)")
            return
        }
        // The walker asks once per folder whether to enter it: the rules are applied, and the skips counted, there.
        var skippedFolders = 0
        defer { skipped += skippedFolders }
        let walker = DirectoryWalker(root: root, sorted: true) { entry, relative in
            if rules.skipsDirectory(named: entry.name, relativePath: relative) {
                skippedFolders += 1
                return false
            }
            return true
        }
        for item in walker {
            switch item {
            case .unreadable(let relative, let error):
                let folder = Path.join(path, relative)
                visit(folder, "cannot list the folder '\(folder)': \(error.reason)")
            case .entry(let entry, let relative, _):
                let child = Path.join(path, relative)
                if entry.type == .directory { continue }
                // A link to a folder is not followed; a link to a file is probed, as a named file would be.
                if entry.type == .symbolicLink, (try? FileSystem.status(atPath: child))?.isDirectory == true {
                    continue
                }
                if rules.skipsFile(named: entry.name, relativePath: relative) {
                    skipped += 1
                } else {
                    visit(child, nil)
                }
            }
        }
    }

    /// The text block for one file: outcome, reason, message, MIME type, then the metadata that is known.
    static func describe(
        path: String, result: ProbeResult, joins: (path: String, type: AssetResourceType)? = nil,
        partners: [(path: String, type: AssetResourceType)] = []
    ) -> String {
        var lines: [(String, String)] = []
        if let joins {
            lines.append(("outcome", "attached"))
            lines.append(("joins", "\(joins.path), as its \(joins.type.name)"))
            if !result.isAccepted {
                lines.append(("mime", result.mime))
                return block(path, lines)
            }
        } else {
            lines.append(("outcome", result.outcome))
        }
        for partner in partners { lines.append(("with", "\(partner.path) (\(partner.type.name))")) }
        lines.append(("reason", result.rejection?.rawValue ?? "-"))
        lines.append(("message", result.message))
        lines.append(("mime", "\(result.mime) (.\(result.fileExtension))" + (result.isTruncated ? ", truncated" : "")))
        let metadata = result.metadata
        if let date = metadata.captureDate {
            let taken = CaptureTime(
                date: date, offset: metadata.captureTimeZoneOffset, isFloating: metadata.captureDateIsFloating)
            var text = taken.long
            var notes: [String] = []
            if taken.offset != nil { notes.append(TextFormat.date(date)) }
            if let source = metadata.captureDateSource { notes.append("from " + source.rawValue) }
            if !notes.isEmpty { text += " (" + notes.joined(separator: ", ") + ")" }
            lines.append(("taken", text))
        }
        if let width = metadata.pixelWidth, let height = metadata.pixelHeight {
            var text = TextFormat.pixels(width, height)
            if let orientation = metadata.orientation, orientation != 1 { text += ", orientation \(orientation)" }
            lines.append(("pixels", text))
        }
        if let duration = metadata.duration { lines.append(("duration", TextFormat.duration(duration))) }
        if let frames = metadata.frameCount {
            let text = TextFormat.plural(frames, "frame")
            lines.append(("frames", result.kind == .video || !metadata.isAnimated ? text : text + ", animated"))
        } else if metadata.isAnimated {
            lines.append(("frames", "animated"))
        }
        if let container = metadata.container { lines.append(("container", container)) }
        let codecs = [metadata.videoCodec.map { "video \($0)" }, metadata.audioCodec.map { "audio \($0)" }]
            .compactMap { $0 }
        if !codecs.isEmpty { lines.append(("codecs", codecs.joined(separator: ", "))) }
        let camera = [metadata.make, metadata.model].compactMap { $0 }
        if !camera.isEmpty { lines.append(("camera", camera.joined(separator: " "))) }
        if let location = metadata.location {
            var text = NumberText.fixed(location.latitude, places: 6) + ", " + NumberText.fixed(location.longitude, places: 6)
            if let altitude = location.altitude { text += ", " + NumberText.fixed(altitude, places: 1) + " m" }
            lines.append(("location", text))
        }
        if let identifier = metadata.contentIdentifier { lines.append(("live photo", identifier)) }
        if let title = metadata.title { lines.append(("title", title)) }
        if let caption = metadata.caption { lines.append(("caption", caption)) }
        if !metadata.keywords.isEmpty { lines.append(("keywords", metadata.keywords.joined(separator: ", "))) }
        if let rating = metadata.rating { lines.append(("rating", String(rating))) }
        lines += TextFormat.captureLines(AssetMetadata.captureDetails(metadata)).map { ($0.0.lowercased(), $0.1) }
        return block(path, lines)
    }

    private static func block(_ path: String, _ lines: [(String, String)]) -> String {
        let width = lines.map(\.0.count).max() ?? 0
        var text = path + "\n"
        for (key, value) in lines {
            text += "  " + key + String(repeating: " ", count: width - key.count) + "  " + value + "\n"
        }
        return text + "\n"
    }
}
