import PhotodropSystem

/// Lowers the scheduling priority (raises the nice value) of the thread that runs a worker job.
///
/// The pipeline has one serial bottleneck, the library writer, on a thread of its own; the workers (one per core)
/// would otherwise keep every core busy with hashing, and each time the writer woke for its next block it waited for
/// the scheduler to preempt a worker. With the workers' threads a few nice levels below, the writer gets a core at
/// once and the workers use what is left (W1 `import --move` on 2 cores: median 1.02 s → 0.89 s over 8 runs each).
///
/// On Linux the nice value is per thread (`setpriority(PRIO_PROCESS, 0, …)` changes the calling thread only). It is
/// only ever raised, never lowered: an unprivileged process cannot take it back. Swift's cooperative threads run
/// other tasks too, which then run at the same lower priority; the writer's thread is not one of them.
public enum WorkerThreadPriority {
    /// The nice value worker threads get (0 is the default, 19 the lowest priority).
    public static let niceness: Int32 = 10

    /// Raises the calling thread's nice value to ``niceness`` unless it is already that high.
    ///
    /// Cheap to call before every job: a thread remembers (in a thread-specific value, no system call) the nice value
    /// it already reached, so only its first call reads and changes the priority.
    public static func lowerCurrentThread(to niceness: Int32 = niceness) {
        let reached = Int32(truncatingIfNeeded: Int(bitPattern: pthread_getspecific(reachedKey)))
        if reached >= niceness { return }
        errno = 0
        let now = current
        if errno != 0 || now < niceness {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        }
        errno = 0
        let after = current
        if errno == 0 && after > 0 {
            _ = pthread_setspecific(reachedKey, UnsafeRawPointer(bitPattern: Int(after)))
        }
    }

    /// The thread-specific slot holding the nice value a thread reached (absent: not known yet).
    private static let reachedKey: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left for the worker priority")
        return key
    }()

    /// The calling thread's nice value (-1 with `errno` set when it cannot be read).
    public static var current: Int32 {
        getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
    }
}
