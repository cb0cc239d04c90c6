import Dispatch

/// Places a block's files on a thread of its own while the writer inserts the block's rows.
///
/// The writer is the pipeline's one serial stage, and a block's `rename(2)` calls and folder fsyncs (a fifth of its
/// time on W1) depend on nothing the inserts do, nor the inserts on them: only the `COMMIT` must wait until every
/// file is in place. ``WriterConnection/commit(_:dataVersionAtStart:)`` gives the step the block's work (first the
/// ``IntentLog`` made durable, then the files) and calls ``finish()`` before it commits or undoes anything.
///
/// Confinement: between `init` and ``finish()`` the placements and everything the work touches (the writer's folder
/// cache and copy buffer) belong to the step's thread; the writer touches none of them until ``finish()`` returned.
/// The semaphore orders the two threads' accesses.
final class PlacementStep: @unchecked Sendable {
    /// The placements, with their `done` state as the work left it (read after ``finish()``).
    private(set) var placements: [Placement]
    private var failure: (any Error)?
    private var finished = false
    private let done = DispatchSemaphore(value: 0)

    /// Starts `work` on `queue` with `placements`.
    init(
        _ placements: [Placement], on queue: DispatchQueue,
        work: @escaping (inout [Placement]) throws -> Void
    ) {
        self.placements = placements
        let unchecked = UncheckedWork(work)
        queue.async {
            do { try unchecked.work(&self.placements) } catch { self.failure = error }
            self.done.signal()
        }
    }

    /// Waits for the work; the first call returns its error, if any (later calls return at once).
    func finish() -> (any Error)? {
        guard !finished else { return nil }
        done.wait()
        finished = true
        return failure
    }

    /// The work closure, handed to the step's thread (see the type's confinement note).
    private struct UncheckedWork: @unchecked Sendable {
        let work: (inout [Placement]) throws -> Void
        init(_ work: @escaping (inout [Placement]) throws -> Void) { self.work = work }
    }
}
