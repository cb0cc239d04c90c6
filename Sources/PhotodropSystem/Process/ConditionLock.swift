import Glibc

/// A mutex with one condition variable (pthread's), for threads that sleep until another changes what they wait
/// for: `lock()` to change it, `wait()` inside to sleep, `signal()` or `broadcast()` to wake sleepers.
public final class ConditionLock: @unchecked Sendable {
    // Allocated once and never moved: pthread objects must stay at one address.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    public init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    public func lock() { pthread_mutex_lock(mutex) }
    public func unlock() { pthread_mutex_unlock(mutex) }

    /// Sleeps until woken (or spuriously: check the condition again); the lock must be held.
    public func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes one sleeper.
    public func signal() { pthread_cond_signal(condition) }
    /// Wakes every sleeper.
    public func broadcast() { pthread_cond_broadcast(condition) }
}
