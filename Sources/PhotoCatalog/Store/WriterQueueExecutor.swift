import Dispatch

/// Runs an actor's jobs on a library's writer queue (see ``PhotoLibrary/writerExecutor``).
///
/// An actor whose work is mostly handing change blocks to the library (photodrop's committer) otherwise pays two
/// thread hand-offs per block: its `await performChanges` wakes the writer's thread, and the writer's result wakes a
/// thread of the cooperative pool, which is busy with workers. The writer sat idle during both, and the writer is the
/// pipeline's critical path. On the writer queue both hand-offs are a
/// queue operation on the same thread.
final class WriterQueueExecutor: SerialExecutor {
    private let queue: DispatchQueue

    init(queue: DispatchQueue) { self.queue = queue }

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }
}
