import Glibc

/// Threads of the operating system, for work that blocks (a worker reading files, a loop waiting in `poll`) and so
/// must not run on Swift's cooperative pool.
public enum SystemThread {
    /// Starts a detached thread named `name` (as `top -H` shows it) that runs `body` and ends.
    public static func start(name: String, _ body: @escaping @Sendable () -> Void) {
        let box = Unmanaged.passRetained(Start(name: name, body: body)).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(&thread, nil, { argument in
            let start = Unmanaged<Start>.fromOpaque(argument!).takeRetainedValue()
            setCurrentThreadName(start.name)
            start.body()
            return nil
        }, box)
        guard result == 0 else {
            Unmanaged<Start>.fromOpaque(box).release()
            fatalError("cannot start a thread for \(name): \(SystemError.describe(Errno(rawValue: result)))")
        }
        pthread_detach(thread)
    }

    /// A number that tells the calling thread from the other threads alive (`pthread_self`).
    public static var currentHandle: UInt { UInt(pthread_self()) }

    private final class Start {
        let name: String
        let body: @Sendable () -> Void
        init(name: String, body: @escaping @Sendable () -> Void) {
            self.name = name
            self.body = body
        }
    }

    /// Raises the calling thread's nice value to `niceness` (on Linux the nice value is per thread:
    /// `setpriority(PRIO_PROCESS, 0, …)` changes the calling thread only). Never lowers it: an unprivileged process
    /// could not take it back.
    public static func lowerCurrentPriority(to niceness: Int32) {
        errno = 0
        let now = getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)
        if errno != 0 || now < niceness {
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, niceness)
        }
    }

    /// Blocks the calling thread for `seconds` (`nanosleep`, resumed after a signal).
    public static func sleep(seconds: Double) {
        var request = timespec(tv_sec: Int(seconds.rounded(.down)), tv_nsec: Int((seconds - seconds.rounded(.down)) * 1e9))
        var remaining = timespec()
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }
}
