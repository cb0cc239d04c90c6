import Glibc

/// A mutex with one condition variable (pthread's), for threads that sleep until another changes what they wait
/// for: `withLock` to change it, `wait()` inside to sleep, `broadcast()` to wake every sleeper.
public final class ConditionLock: @unchecked Sendable {
    // Allocated once and never moved: pthread objects must stay at one address.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Runs `body` holding the lock.
    public func withLock<T>(_ body: () throws -> T) rethrows -> T {
        lock()
        defer { unlock() }
        return try body()
    }

    /// Sleeps until woken (or spuriously: check the condition again); the lock must be held.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Sleeps until woken or `seconds` pass; the lock must be held. Whether it was woken before the time ran out.
    @discardableResult
    public func wait(seconds: Double) -> Bool {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let nanos = Int(now.tv_nsec) + Int((seconds - seconds.rounded(.down)) * 1e9)
        var deadline = timespec(
            tv_sec: now.tv_sec + Int(seconds.rounded(.down)) + nanos / 1_000_000_000, tv_nsec: nanos % 1_000_000_000)
        return pthread_cond_timedwait(condition, mutex, &deadline) == 0
    }

    public func signal() { pthread_cond_signal(condition) }
    public func broadcast() { pthread_cond_broadcast(condition) }
}
