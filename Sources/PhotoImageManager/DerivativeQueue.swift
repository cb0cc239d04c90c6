import Dispatch
import FoundationEssentials
import PhotodropSystem
import PhotoCatalog
import Rendering
import Synchronization
import PhotodropTelemetry
import PhotodropConcurrency

/// Makes the thumbnail and preview of newly stored assets in the background, after their commit, for `watch`
/// (config `derivatives: ingest`). Never delays ingestion: threads of its own at the lowest priority, render helpers
/// at nice 10, and bounded lists of assets to do: when more arrive than it holds, it forgets them and later sweeps the
/// catalog for every asset without derivatives instead (which it also does once at start, so that a library from
/// before derivatives, or a crash, is caught up).
///
/// Two lanes, each a thread with a helper of its own: small decodes (a phone's photo, by the asset's format and pixel
/// size) and large ones (a 200-megapixel HEIC, which may wait for the process's `DecodeBudget`). A photo dropped
/// behind a batch of huge files gets its thumbnail while they are still being decoded.
public final class DerivativeQueue: Sendable {
    /// Assets held at most before the queue falls back to a sweep (about 50 bytes each); large decodes held at most
    /// (a few hundred bytes each).
    public static let capacity = 4096
    /// Assets made per writer transaction.
    static let batchSize = 8

    private struct State {
        var pending: [String] = []
        var large: [DerivativeSource] = []
        /// Assets in the large lane's list, so that a sweep does not list them twice.
        var queuedLarge: Set<String> = []
        var sweepNeeded = true
        /// Where an unfinished sweep goes on (it pauses while the large lane's list is full).
        var sweepCursor: Int64 = 0
        var stopped = false
        var made = 0
        var failed = 0
    }

    private let library: PhotoLibrary
    private let maker: DerivativeMaker
    private let logger: Logger
    private let state = Mutex(State())
    private let wakeSmall = DispatchSemaphore(value: 0)
    private let wakeLarge = DispatchSemaphore(value: 0)

    public init(library: PhotoLibrary, logger: Logger, budget: DecodeBudget = .shared) {
        self.library = library
        self.logger = logger
        maker = DerivativeMaker(
            library: library, pool: RenderPool(size: 2, budget: budget),
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

    /// Tells the queue about an asset whose pictures may be missing or out of date: a new asset, or a stored one
    /// that a file was added to (it may have replaced its primary: a RAW's JPEG, an edit).
    public func note(asset: String) {
        state.withLock { state in
            if state.pending.count < Self.capacity {
                state.pending.append(asset)
            } else {
                state.sweepNeeded = true
            }
        }
        wakeSmall.signal()
    }

    /// Runs until ``stop()``: on threads of their own, since rendering blocks.
    /// Cancelling the calling task stops it like ``stop()``.
    public func run() async {
        await withTaskCancellationHandler {
            async let small: Void = onThread(named: "derivatives") { self.smallLane() }
            async let large: Void = onThread(named: "derivatives-large") { self.largeLane() }
            _ = await (small, large)
        } onCancel: {
            stop()
        }
        maker.pool.stop()
    }

    private func onThread(named name: String, _ body: @escaping @Sendable () -> Void) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            SystemThread.start(name: name) {
                WorkerThreads.lowerCurrentThreadPriority(to: 19)
                body()
                continuation.resume()
            }
        }
    }

    /// Stops after the files being made.
    public func stop() {
        state.withLock { $0.stopped = true }
        wakeSmall.signal()
        wakeLarge.signal()
    }

    /// The small lane's thread: takes the noted assets (and sweeps), makes the small ones, hands the large ones on.
    private func smallLane() {
        while true {
            let (batch, sweep, stopped) = state.withLock { state -> ([String], Bool, Bool) in
                let batch = Array(state.pending.prefix(Self.batchSize))
                state.pending.removeFirst(batch.count)
                let sweep = batch.isEmpty && state.sweepNeeded && state.large.count < Self.capacity / 2
                if sweep { state.sweepNeeded = false }
                return (batch, sweep, state.stopped)
            }
            if stopped { return }
            if sweep {
                self.sweep()
            } else if !batch.isEmpty {
                do {
                    makeSmall(handingOnLarge: try library.derivativeSources(missingFor: batch))
                } catch {
                    logger.warning("cannot list assets for thumbnails", metadata: ["error": .string("\(error)")])
                }
            } else {
                wakeSmall.wait()
            }
        }
    }

    /// The large lane's thread: one large decode after the other, each admitted by the budget.
    private func largeLane() {
        while true {
            let (next, stopped, drained) = state.withLock { state -> (DerivativeSource?, Bool, Bool) in
                guard !state.stopped, !state.large.isEmpty else { return (nil, state.stopped, false) }
                let source = state.large.removeFirst()
                state.queuedLarge.remove(source.assetLocalIdentifier)
                return (source, false, state.sweepNeeded && state.large.count < Self.capacity / 2)
            }
            if stopped { return }
            if drained { wakeSmall.signal() }  // a paused sweep may go on
            guard let next else {
                wakeLarge.wait()
                continue
            }
            make([next])
        }
    }

    /// Every asset of the library without derivatives, a page at a time, until done, stopped, or the large lane's
    /// list is full (then it goes on from there later).
    private func sweep() {
        // One node of a shared catalog sweeps at a time (the others would make the same pictures twice); a node that
        // finds another at it leaves the sweep to that one.
        let turn: PhotoLibrary.Turn
        do {
            guard let taken = try library.tryTurn("derivative sweep") else {
                logger.info("another node is making the missing thumbnails; this one leaves them to it")
                state.withLock { $0.sweepCursor = 0 }
                return
            }
            turn = taken
        } catch {
            logger.warning("cannot list assets for thumbnails", metadata: ["error": .string("\(error)")])
            return
        }
        defer { turn.end() }
        var cursor = state.withLock { $0.sweepCursor }
        while !state.withLock({ $0.stopped }) {
            let page: PhotoLibrary.DerivativeSourcePage
            do { page = try library.derivativeSources(.missing, after: cursor, limit: Self.batchSize) } catch {
                logger.warning("cannot list assets for thumbnails", metadata: ["error": .string("\(error)")])
                return
            }
            makeSmall(handingOnLarge: page.sources)
            guard let next = page.nextCursor else {
                state.withLock { $0.sweepCursor = 0 }
                return
            }
            cursor = next
            let full = state.withLock { state -> Bool in
                guard state.large.count >= Self.capacity else { return false }
                state.sweepCursor = cursor
                state.sweepNeeded = true
                return true
            }
            if full { return }
            // New assets first: a sweep of a large library must not hold back today's drops.
            if state.withLock({ !$0.pending.isEmpty }) {
                state.withLock {
                    $0.sweepCursor = cursor
                    $0.sweepNeeded = true
                }
                return
            }
        }
    }

    /// Makes the small ones of `sources` now; queues the large ones for the other lane.
    private func makeSmall(handingOnLarge sources: [DerivativeSource]) {
        var small: [DerivativeSource] = []
        var handed = false
        for source in sources {
            if maker.isSmall(source) {
                small.append(source)
                continue
            }
            state.withLock { state in
                guard state.queuedLarge.insert(source.assetLocalIdentifier).inserted else { return }
                state.large.append(source)
            }
            handed = true
        }
        if handed { wakeLarge.signal() }
        make(small)
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
