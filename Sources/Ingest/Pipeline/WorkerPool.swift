/// Runs a fixed number of worker tasks that take jobs from a ``BoundedQueue`` until it is finished and drained.
///
/// Each worker builds its own state once (`makeState`), e.g. a ``HashingFileReader`` and a libmagic cookie, which
/// are not `Sendable` and never leave the worker's task. With the queue's capacity this gives the pipeline both
/// parallelism (`workers`, one per core by default) and bounded memory.
public enum WorkerPool {
    /// Runs `workers` tasks; returns when the queue is finished and every job was processed.
    ///
    /// If `makeState` throws for any worker, the other workers are cancelled and the error is rethrown; jobs still
    /// queued are left in the queue.
    public static func run<Job: Sendable, State>(
        workers: Int, jobs: BoundedQueue<Job>,
        makeState: @escaping @Sendable (_ worker: Int) throws -> State,
        process: @escaping @Sendable (_ state: inout State, _ job: Job) async -> Void
    ) async throws {
        precondition(workers >= 1, "a worker pool needs at least one worker")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<workers {
                group.addTask {
                    var state = try makeState(worker)
                    while let job = await jobs.receive() {
                        await process(&state, job)
                    }
                }
            }
            do {
                // Not `waitForAll()`: it waits for every child before throwing, and the others would wait for jobs.
                while try await group.next() != nil {}
            } catch {
                group.cancelAll()
                throw error
            }
        }
    }
}
