import Foundation
import PhotoCatalog
import PhotoImageManager
import Rendering
import Synchronization

/// Makes the thumbnail and preview of newly stored assets in the background, after their commit, for `watch`
/// (config `derivatives: ingest`). Never delays ingestion: one thread of its own at the lowest priority, one render
/// helper at nice 10, and a bounded list of assets to do: when more arrive than it holds, it forgets them and later
/// sweeps the catalog for every asset without derivatives instead (which it also does once at start, so that a library
/// from before derivatives, or a crash, is caught up).
public final class DerivativeQueue: Sendable {
    /// Assets held at most before the queue falls back to a sweep (about 50 bytes each).
    public static let capacity = 4096
    /// Assets made per writer transaction.
    static let batchSize = 8

    private struct State {
        var pending: [String] = []
        var sweepNeeded = true
        var stopped = false
        var made = 0
        var failed = 0
    }

    private let library: PhotoLibrary
    private let maker: DerivativeMaker
    private let logger: Logger
    private let state = Mutex(State())
    private let wake = DispatchSemaphore(value: 0)

    public init(library: PhotoLibrary, logger: Logger, helpers: Int = 1) {
        self.library = library
        self.logger = logger
        maker = DerivativeMaker(
            library: library, pool: RenderPool(size: helpers),
            onWarnings: { source, warnings in
                logger.debug(
                    "the decoder warned about a file",
                    metadata: [
                        "asset": .string(source.assetLocalIdentifier), "file": .string(source.originalFilename),
                        "warnings": .string(warnings.joined(separator: "; ")),
                    ])
            })
    }

    /// How many assets got derivatives, and how many failed, since the start.
    public var counts: (made: Int, failed: Int) { state.withLock { ($0.made, $0.failed) } }

    /// Tells the queue about a file's final outcome: a new asset gets derivatives; a file added to a stored asset may
    /// have replaced its primary (a RAW's JPEG, an edit), so that asset is looked at again.
    public func note(_ outcome: FileOutcome) {
        guard let asset = outcome.assetID else { return }
        switch outcome.kind {
        case .photo, .gif, .video, .attached: break
        case .duplicate, .rejected, .failed: return
        }
        state.withLock { state in
            if state.pending.count < Self.capacity {
                state.pending.append(asset)
            } else {
                state.sweepNeeded = true
            }
        }
        wake.signal()
    }

    /// Runs until ``stop()``: on a thread of its own, since rendering blocks.
    /// Cancelling the calling task stops it like ``stop()``.
    public func run() async {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                let thread = Thread {
                    WorkerThreads.lowerCurrentThreadPriority(to: 19)
                    self.loop()
                    continuation.resume()
                }
                thread.name = "derivatives"
                thread.qualityOfService = .background
                thread.start()
            }
        } onCancel: {
            stop()
        }
        maker.pool.stop()
    }

    /// Stops after the file being made.
    public func stop() {
        state.withLock { $0.stopped = true }
        wake.signal()
    }

    private func loop() {
        while true {
            let (batch, sweep, stopped) = state.withLock { state -> ([String], Bool, Bool) in
                let batch = Array(state.pending.prefix(Self.batchSize))
                state.pending.removeFirst(batch.count)
                let sweep = batch.isEmpty && state.sweepNeeded
                if sweep { state.sweepNeeded = false }
                return (batch, sweep, state.stopped)
            }
            if stopped { return }
            if sweep {
                self.sweep()
            } else if !batch.isEmpty {
                do {
                    make(try library.derivativeSources(missingFor: batch))
                } catch {
                    logger.warning("cannot list assets for thumbnails", metadata: ["error": .string("\(error)")])
                }
            } else {
                wake.wait()
            }
        }
    }

    /// Every asset of the library without derivatives, a page at a time, until done or stopped.
    private func sweep() {
        var cursor: Int64 = 0
        while !state.withLock({ $0.stopped }) {
            let page: PhotoLibrary.DerivativeSourcePage
            do { page = try library.derivativeSources(.missing, after: cursor, limit: Self.batchSize) } catch {
                logger.warning("cannot list assets for thumbnails", metadata: ["error": .string("\(error)")])
                return
            }
            make(page.sources)
            guard let next = page.nextCursor else { return }
            cursor = next
        }
    }

    private func make(_ sources: [DerivativeSource]) {
        guard !sources.isEmpty else { return }
        let outcomes: [DerivativeMaker.Outcome]
        do { outcomes = try maker.makeAndWait(sources) } catch {
            logger.warning("cannot store thumbnails", metadata: ["error": .string("\(error)")])
            return
        }
        for (source, outcome) in zip(sources, outcomes) {
            switch outcome {
            case .made:
                state.withLock { $0.made += 1 }
            case .failed(let message):
                state.withLock { $0.failed += 1 }
                logger.warning(
                    "no thumbnail: the original could not be decoded; it stays stored as it is",
                    metadata: ["asset": .string(source.assetLocalIdentifier), "error": .string(message)])
            case .skipped:
                break
            case .helperUnavailable(let message):
                logger.error(
                    "cannot make thumbnails: the render helper is not available",
                    metadata: ["asset": .string(source.assetLocalIdentifier), "error": .string(message)])
            }
        }
    }
}
