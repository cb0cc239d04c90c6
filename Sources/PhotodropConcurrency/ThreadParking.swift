import Dispatch
import Synchronization

/// One value handed to a thread that blocks until it arrives: how a ``BoundedQueue`` wakes a thread of a
/// ``WorkerThreads`` pool, where a task would be resumed through its continuation. Resumed exactly once.
final class ThreadParking<Value: Sendable>: Sendable {
    private let value = Mutex<Value?>(nil)
    private let arrived = DispatchSemaphore(value: 0)

    /// Hands over `result` and wakes the waiting thread.
    public func resume(returning result: Value) {
        value.withLock { $0 = result }
        arrived.signal()
    }

    /// Blocks the calling thread until ``resume(returning:)``, and returns what it handed over.
    public func wait() -> Value {
        arrived.wait()
        return value.withLock { $0.take()! }
    }
}
