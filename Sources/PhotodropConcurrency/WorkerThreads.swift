import FoundationEssentials
import PhotodropSystem
import Synchronization

/// A fixed number of threads of their own that take jobs from a ``BoundedQueue`` until it is finished and drained:
/// the pipeline's workers, whose reads, hashing and probing block (NIO's `NIOThreadPool` is the model).
///
/// Why not tasks on Swift's cooperative pool: that pool has one thread per core, and a worker blocked in `read(2)`
/// holds one of them, so the scan or the watch loop that feeds the workers, and every other task of the process, waited
/// behind the blocking work. And the workers run at a lower priority than the rest of the process (a nice value per
/// thread, ``niceness``), so that the one serial stage, the library writer on its own thread, gets a core the moment
/// it has a block to write (W1 `import --move` on 2 cores: median 1.02 s → 0.89 s over 8 runs when this was
/// measured); raising the nice value of the cooperative pool's threads would slow down whatever task ran there next.
///
/// Each thread builds its own state once (`makeState`), e.g. a ``HashingFileReader`` and a libmagic cookie, which
/// are not `Sendable` and never leave the thread. With the queue's capacity this gives both parallelism and bounded
/// memory.
public enum WorkerThreads {
    /// The longest a thread holds a finished output back to fill a batch.
    public static let maximumHold: Duration = .milliseconds(5)

    /// The nice value of the regular workers' threads (0 is the default, 19 the lowest priority).
    public static let niceness: Int32 = 10

    /// Runs `count` threads named `name` and their number (Linux shows 15 bytes of it) at nice value `niceness`,
    /// each turning jobs into outputs that go to `results`; returns when the jobs queue is finished, every job was
    /// processed and every output sent.
    ///
    /// A thread sends its outputs in batches of up to `batch`, and whatever it holds whenever it finds no job waiting
    /// or has held an output for ``maximumHold``: a pool busy with small files wakes the consumer of `results` once per
    /// batch, not once per job (W1 "import again": 3,700 context switches → 1,500), and neither an idle pool nor one
    /// busy with large files holds a result back for long.
    ///
    /// Jobs the caller already took from the queue (`startingWith`) go to the first thread before any other.
    /// If `makeState` throws on any thread, the others stop after the job in hand and the error is rethrown; jobs
    /// still queued are left in the queue. Cancelling the calling task does the same (without an error).
    public static func run<Job: Sendable, Output: Sendable, State>(
        count: Int, name: String, niceness: Int32 = WorkerThreads.niceness, jobs: BoundedQueue<Job>,
        results: BoundedQueue<Output>, batch: Int = 64, startingWith taken: [Job] = [],
        makeState: @escaping @Sendable (_ worker: Int) throws -> State,
        process: @escaping @Sendable (_ state: inout State, _ job: Job) -> Output
    ) async throws {
        try await run(
            count: count, name: name, niceness: niceness, jobs: jobs, batch: batch, taken: taken, makeState: makeState,
            process: process, deliver: { outputs in try? results.sendBlocking(contentsOf: outputs) })
    }

    private static func run<Job: Sendable, Output: Sendable, State>(
        count: Int, name: String, niceness: Int32, jobs: BoundedQueue<Job>, batch: Int, taken: [Job],
        makeState: @escaping @Sendable (_ worker: Int) throws -> State,
        process: @escaping @Sendable (_ state: inout State, _ job: Job) -> Output,
        deliver: @escaping @Sendable ([Output]) -> Void
    ) async throws {
        precondition(count >= 1, "a worker pool needs at least one thread")
        let stop = StopFlag()
        let run = Run(threads: count)
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                run.whenDone(continuation)
                for worker in 0..<count {
                    SystemThread.start(name: "\(name) \(worker)") {
                        lowerCurrentThreadPriority(to: niceness)
                        var pending: [Output] = []
                        pending.reserveCapacity(batch)
                        var oldestPending = ContinuousClock.now
                        func flush() {
                            guard !pending.isEmpty else { return }
                            deliver(pending)
                            pending.removeAll(keepingCapacity: true)
                        }
                        do {
                            var state = try makeState(worker)
                            var taken = worker == 0 ? taken[...] : []
                            work: while !stop.isRaised {
                                let job: Job
                                if let first = taken.popFirst() {
                                    job = first
                                } else {
                                    switch jobs.tryReceive() {
                                    case .element(let next): job = next
                                    case .finished: break work
                                    case .empty:
                                        // Nothing waiting: hand over what is done before sleeping.
                                        flush()
                                        guard let next = jobs.receiveBlocking(unless: stop) else { break work }
                                        job = next
                                    }
                                }
                                let output = process(&state, job)
                                let now = ContinuousClock.now
                                if pending.isEmpty { oldestPending = now }
                                pending.append(output)
                                if pending.count >= batch || now - oldestPending >= maximumHold { flush() }
                            }
                        } catch {
                            run.fail(error)
                            stop.raise()
                            jobs.wakeBlockedReceivers()
                        }
                        flush()
                        run.threadEnded()
                    }
                }
            }
        } onCancel: {
            stop.raise()
            jobs.wakeBlockedReceivers()
        }
        if let failure = run.failure { throw failure }
    }

    /// Raises the calling thread's nice value to `niceness`; see ``SystemThread/lowerCurrentPriority(to:)``.
    public static func lowerCurrentThreadPriority(to niceness: Int32) {
        SystemThread.lowerCurrentPriority(to: niceness)
    }

    /// The threads of one ``run(count:name:niceness:jobs:results:batch:startingWith:makeState:process:)``: the first
    /// failure, and the waiting caller, resumed when the last thread ends.
    private final class Run: Sendable {
        private struct State {
            var running: Int
            var failure: (any Error)?
            var caller: CheckedContinuation<Void, Never>?
        }

        private let state: Mutex<State>

        init(threads: Int) { state = Mutex(State(running: threads)) }

        var failure: (any Error)? { state.withLock { $0.failure } }

        func whenDone(_ continuation: CheckedContinuation<Void, Never>) {
            state.withLock { $0.caller = continuation }
        }

        func fail(_ error: any Error) {
            state.withLock { state in
                if state.failure == nil { state.failure = error }
            }
        }

        func threadEnded() {
            let caller = state.withLock { state -> CheckedContinuation<Void, Never>? in
                state.running -= 1
                return state.running == 0 ? state.caller.take() : nil
            }
            caller?.resume()
        }
    }
}
