import FoundationEssentials
import LibraryJSON
import PhotoCatalog
import PhotoImageManager
import PhotodropSystem
import Rendering

/// `photodrop thumbnails [--missing] [--rebuild]` (stored derivatives for a whole library) and
/// `photodrop thumbnail ID [--size N] [--fill] [-o FILE]` (one picture of any size).
enum ThumbnailCommands {
    /// Assets looked at per catalog query, and rendered per writer transaction.
    static let pageSize = 128
    static let batchSize = 16

    static func thumbnails(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let library = access.library
            let rebuild = context.command.flag("rebuild")
            if rebuild && context.command.flag("missing") {
                throw CommandFailure("use either --missing or --rebuild", status: ExitStatus.usage)
            }
            let workers = try workerCount(context)
            let json = context.command.flag("json")
            let pool = RenderPool(size: workers)
            defer { pool.stop() }
            let maker = DerivativeMaker(library: library, pool: pool)
            let total = try library.derivativeSourceCount()
            let terminal = json ? nil : TerminalProgress()
            let started = ContinuousClock.now
            var tally = Tally()
            var cursor: Int64 = 0
            pages: while true {
                let page = try library.derivativeSources(rebuild ? .all : .missingOrDamaged, after: cursor, limit: pageSize)
                var start = 0
                while start < page.sources.count {
                    let batch = Array(page.sources[start..<min(start + batchSize, page.sources.count)])
                    start += batchSize
                    let outcomes = try await maker.make(batch)
                    for (source, outcome) in zip(batch, outcomes) {
                        if case .helperUnavailable(let why) = outcome {
                            terminal?.finish()
                            throw CommandFailure("cannot make pictures: \(why)")
                        }
                        tally.add(outcome, for: source.assetLocalIdentifier)
                    }
                    terminal?.update { width in line(tally, total: total, since: started, width: width) }
                }
                tally.examined += page.examined
                terminal?.update { width in line(tally, total: total, since: started, width: width) }
                guard let next = page.nextCursor else { break pages }
                cursor = next
            }
            terminal?.finish()
            pool.stop()
            let orphans = try library.removeOrphanDerivatives()
            let seconds = (ContinuousClock.now - started).seconds
            if json {
                context.print(
                    JSONNode.object([
                        ("examined", .int(Int64(tally.examined))), ("made", .int(Int64(tally.made))),
                        (
                            "failed",
                            .array(
                                tally.failed.map {
                                    .object([("id", .string($0.id)), ("error", .string($0.message))])
                                })
                        ),
                        ("skipped", .int(Int64(tally.skipped.count))),
                        ("orphansRemoved", .int(Int64(orphans))), ("seconds", .double(seconds)),
                        ("helperPeakRSS", .int(Int64(pool.peakResidentBytes))),
                    ]).text)
            } else {
                var text =
                    "Made the thumbnail and preview of \(TextFormat.plural(tally.made, "asset")) "
                    + "(\(TextFormat.count(tally.examined)) of \(TextFormat.count(total)) looked at) in "
                    + "\(TextFormat.duration(seconds)).\n"
                if !tally.failed.isEmpty {
                    text += "\(TextFormat.plural(tally.failed.count, "asset")) could not be decoded (recorded; the "
                        + "originals are kept as they are):\n"
                    for failure in tally.failed.prefix(20) { text += "  \(failure.id): \(failure.message)\n" }
                    if tally.failed.count > 20 { text += "  … and \(tally.failed.count - 20) more\n" }
                }
                if !tally.skipped.isEmpty {
                    text += "\(TextFormat.plural(tally.skipped.count, "asset")) skipped: \(tally.skipped[0])\n"
                }
                if orphans > 0 { text += "Removed \(TextFormat.plural(orphans, "leftover file")) under derivatives/.\n" }
                context.console.output(text)
            }
            return tally.failed.isEmpty ? ExitStatus.success : ExitStatus.failure
        }
    }

    private struct Tally {
        var examined = 0
        var made = 0
        var failed: [(id: String, message: String)] = []
        var skipped: [String] = []

        mutating func add(_ outcome: DerivativeMaker.Outcome, for id: String) {
            switch outcome {
            case .made: made += 1
            case .failed(let message): failed.append((id, message))
            case .skipped(let why), .helperUnavailable(let why): skipped.append(why)
            }
        }
    }

    /// `[=====>    ] 1,234/5,000 assets  made 1,200  failed 2  45/s`
    private static func line(_ tally: Tally, total: Int, since: ContinuousClock.Instant, width: Int) -> String {
        let seconds = (ContinuousClock.now - since).seconds
        var parts = ["\(TextFormat.count(tally.examined))/\(TextFormat.count(total)) assets", "made \(TextFormat.count(tally.made))"]
        if !tally.failed.isEmpty { parts.append("failed \(tally.failed.count)") }
        if seconds >= 0.2 { parts.append(NumberText.fixed(Double(tally.made + tally.failed.count) / seconds, places: 0) + "/s") }
        let fraction = total == 0 ? 1 : Double(tally.examined) / Double(total)
        return ProgressRenderer.line(parts.joined(separator: "  "), fraction: fraction, width: width)
    }

    private static func workerCount(_ context: CommandContext) throws(CommandFailure) -> Int {
        guard let text = context.command.value("workers") else {
            return max(1, ProcessInfo.processInfo.activeProcessorCount)
        }
        guard let value = Int(text), (1...64).contains(value) else {
            throw CommandFailure("--workers takes a number from 1 to 64, not '\(text)'", status: ExitStatus.usage)
        }
        return value
    }

    // MARK: One picture

    static func thumbnail(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let asset = try access.asset(context.command.argument("ID") ?? "")
            var size = 512
            if let text = context.command.value("size") {
                guard let value = Int(text), (1...16384).contains(value) else {
                    throw CommandFailure(
                        "--size takes a number of pixels from 1 to 16384, not '\(text)'", status: ExitStatus.usage)
                }
                size = value
            }
            let output = context.command.value("output")
            let format: ImageFormat = output.map { $0.lowercased().hasSuffix(".webp") } == true ? .webp : .jpeg
            if output == nil && FileDescriptor.standardOutput.isTerminal {
                throw CommandFailure(
                    "the picture is binary: write it to a file with -o FILE (.jpg or .webp), or pipe the output",
                    status: ExitStatus.usage)
            }
            let pool = RenderPool(size: 1)
            defer { pool.stop() }
            let manager = ImageManager(library: access.library, pool: pool)
            let result: ImageResult
            do throws(ImageManagerError) {
                result = try manager.image(
                    for: asset.localIdentifier, targetSize: PixelSize(width: size, height: size),
                    contentMode: context.command.flag("fill") ? .aspectFill : .aspectFit,
                    options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact, format: format))
            } catch {
                throw CommandFailure("no picture of \(asset.localIdentifier): \(error)")
            }
            if let output {
                do { try result.data.write(to: URL(fileURLWithPath: output)) } catch {
                    throw CommandFailure("cannot write '\(output)': \(error)")
                }
                context.console.error(
                    "Wrote \(result.pixelWidth) × \(result.pixelHeight) \(result.mimeType) (\(TextFormat.bytes(Int64(result.data.count)))) to \(output).\n")
            } else {
                try? result.data.withUnsafeBytes { try FileDescriptor.standardOutput.writeAll($0) }
            }
            return ExitStatus.success
        }
    }
}
