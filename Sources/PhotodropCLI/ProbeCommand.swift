import Foundation
import Ingest
import MediaProbe

#if canImport(Glibc)
    import Glibc
#endif

/// `photodrop probe FILE… [--json]`: what photodrop would do with each file, decided by content, touching nothing.
///
/// Folders are walked recursively (dot entries skipped, symbolic links to folders not followed), files in name
/// order. One prober for the whole run; each result is printed as soon as it is known. Exit status 0 when every file
/// is accepted, 1 when any is rejected or cannot be read (or nothing was found to probe).
enum ProbeCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
            let json = context.command.flag("json")
            let prober: MediaProber
            do {
                prober = try MediaProber(policy: videoPolicy(context.config.video))
            } catch {
                throw CommandFailure("\(error)")
            }
            var tally = Tally()
            for argument in context.command.arguments("FILE") {
                walk(argument) { path, problem in
                    if let problem {
                        tally.failed += 1
                        emit(context, json: json, failure: problem, path: path)
                        return
                    }
                    do {
                        let result = try prober.probe(path: path)
                        if result.isAccepted { tally.accepted += 1 } else { tally.rejected += 1 }
                        if json {
                            context.print(CatalogJSON.probeItem(path: path, result: result).text)
                        } else {
                            context.console.output(describe(path: path, result: result))
                        }
                    } catch {
                        tally.failed += 1
                        emit(context, json: json, failure: "\(error)", path: path)
                    }
                }
            }
            if !json {
                var parts = [TextFormat.plural(tally.accepted, "accepted", "accepted")]
                parts.append(TextFormat.plural(tally.rejected, "rejected", "rejected"))
                if tally.failed > 0 { parts.append(TextFormat.plural(tally.failed, "unreadable", "unreadable")) }
                context.print(
                    "\(TextFormat.plural(tally.total, "file")) probed: " + parts.joined(separator: ", "))
            }
            if tally.total == 0 {
                throw CommandFailure(
                    "no files to probe in \(context.command.arguments("FILE").joined(separator: ", "))")
            }
            return tally.rejected + tally.failed == 0 ? ExitStatus.success : ExitStatus.failure
        }
    }

    private struct Tally {
        var accepted = 0
        var rejected = 0
        var failed = 0
        var total: Int { accepted + rejected + failed }
    }

    /// The configuration's codec lists as the probe's policy.
    static func videoPolicy(_ video: IngestConfig.Video) -> VideoPolicy {
        VideoPolicy(
            videoCodecs: Set(video.videoCodecs.map(\.text)), audioCodecs: Set(video.audioCodecs.map(\.text)))
    }

    private static func emit(_ context: CommandContext, json: Bool, failure message: String, path: String) {
        if json {
            context.print(CatalogJSON.probeFailure(path: path, message: message).text)
        } else {
            context.console.output(block(path, [("outcome", "failed (cannot be read)"), ("message", message)]))
        }
    }

    /// Calls `visit` with every file at or below `path`, or with a problem for a path that cannot be walked.
    /// Folders: entries in name order, dot entries skipped, symbolic links to folders not followed.
    static func walk(_ path: String, visit: (String, String?) -> Void) {
        var info = stat()
        guard stat(path, &info) == 0 else {
            let code = errno
            visit(path, "cannot read '\(path)': \(String(cString: strerror(code)))")
            return
        }
        guard info.st_mode & S_IFMT == S_IFDIR else {
            visit(path, nil)
            return
        }
        let names: [String]
        do {
            names = try FileManager.default.contentsOfDirectory(atPath: path)
        } catch {
            visit(path, "cannot list the folder '\(path)': \(error.localizedDescription)")
            return
        }
        for name in names.sorted() where !name.hasPrefix(".") {
            let child = path.hasSuffix("/") ? path + name : path + "/" + name
            var entry = stat()
            if lstat(child, &entry) == 0, entry.st_mode & S_IFMT == S_IFLNK {
                var target = stat()
                if stat(child, &target) == 0, target.st_mode & S_IFMT == S_IFDIR { continue }
            }
            walk(child, visit: visit)
        }
    }

    /// The text block for one file: outcome, reason, message, MIME type, then the metadata that is known.
    static func describe(path: String, result: ProbeResult) -> String {
        var lines: [(String, String)] = []
        lines.append(("outcome", result.outcome))
        lines.append(("reason", result.rejection?.rawValue ?? "-"))
        lines.append(("message", result.message))
        lines.append(("mime", "\(result.mime) (.\(result.fileExtension))" + (result.isTruncated ? ", truncated" : "")))
        let metadata = result.metadata
        if let date = metadata.captureDate {
            var text = CatalogJSON.timestamp(date)
            var notes: [String] = []
            if let source = metadata.captureDateSource { notes.append(source.rawValue) }
            if let offset = metadata.captureTimeZoneOffset { notes.append("UTC" + timeZone(offset)) }
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
            var text = String(format: "%.6f, %.6f", location.latitude, location.longitude)
            if let altitude = location.altitude { text += String(format: ", %.1f m", altitude) }
            lines.append(("location", text))
        }
        if let identifier = metadata.contentIdentifier { lines.append(("live photo", identifier)) }
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

    /// `+02:00`.
    private static func timeZone(_ seconds: Int) -> String {
        let sign = seconds < 0 ? "-" : "+"
        let minutes = abs(seconds) / 60
        return sign + String(format: "%02d:%02d", minutes / 60, minutes % 60)
    }
}
