import CLinux
import Glibc

/// A program this process started (`posix_spawn`) and reaps.
///
/// Not for concurrent use: one owner starts it, signals it and waits for it.
public final class ChildProcess {
    /// How a child ended.
    public struct Termination: Sendable, Equatable {
        /// The signal that ended it, if one did.
        public var signal: Int32?
        /// Its exit status, when it exited.
        public var status: Int32?
        /// Its peak resident memory in bytes (`wait4`'s `ru_maxrss`).
        public var peakResidentBytes: Int
    }

    /// The child's process ID.
    public let id: Int32
    private var ended: Termination?

    private init(id: Int32) { self.id = id }

    /// Starts `executable` with `arguments` (the first is its name) and `environment`, its standard input and output
    /// on `/dev/null`, its standard error shared with this process, `handOver` (if any) as its descriptor 3, and no
    /// other descriptor of this process.
    public static func spawn(
        _ executable: String, arguments: [String], environment: [String: String], handOver: FileDescriptor? = nil
    ) throws(SystemError) -> ChildProcess {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        var moved: FileDescriptor?
        if let handOver {
            // dup2 clears close-on-exec on the copy; a descriptor that already is 3 is moved away first.
            var source = handOver.rawValue
            if source == 3 {
                let copy = fcntl(source, F_DUPFD_CLOEXEC, 4)
                guard copy >= 0 else { throw SystemError.current("fcntl(F_DUPFD_CLOEXEC)") }
                moved = FileDescriptor(owning: copy)
                source = copy
            }
            posix_spawn_file_actions_adddup2(&actions, source, 3)
        }
        try closeInheritedDescriptors(from: handOver == nil ? 3 : 4, in: &actions)
        defer { _ = moved }
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in envp { free(pointer) } }
        var pid: Int32 = 0
        let result = posix_spawn(&pid, executable, &actions, nil, &argv, &envp)
        guard result == 0 else { throw SystemError(code: result, call: "posix_spawn", path: executable) }
        return ChildProcess(id: pid)
    }

    /// Adds to a spawn's file actions: the child closes every descriptor from `lowest` up before it runs.
    ///
    /// `posix_spawn` passes on every descriptor not marked close-on-exec. photodrop's own opens are; a library's may
    /// not be (a library file, an original being read, a file in the inbox), and would otherwise stay open in the child
    /// for as long as it runs — in the render helper, which decodes untrusted pictures, and as a writer that keeps an
    /// inbox file "open for writing", so that `watch` never takes it.
    public static func closeInheritedDescriptors(
        from lowest: Int32, in actions: inout posix_spawn_file_actions_t
    ) throws(SystemError) {
        let result = photodrop_spawn_close_from(&actions, lowest)
        guard result == 0 else { throw SystemError(code: result, call: "posix_spawn_file_actions_addclosefrom_np") }
    }

    /// Sends `signal` unless the child was reaped already.
    public func send(_ signal: Signal) {
        guard ended == nil else { return }
        try? signal.send(to: id)
    }

    /// Waits up to `graceSeconds` for the child to end, kills it then, and reaps it: how it ended (nil when it
    /// could not be reaped, e.g. another part of the process reaped it).
    @discardableResult
    public func waitForExit(graceSeconds: Double) -> Termination? {
        if let ended { return ended }
        var status: Int32 = 0
        var usage = rusage()
        var waited: Int32 = -1
        let rounds = max(1, Int(graceSeconds * 100))
        for _ in 0..<rounds {
            waited = wait4(id, &status, WNOHANG, &usage)
            if waited != 0 { break }
            SystemThread.sleep(seconds: 0.01)
        }
        if waited == 0 {
            _ = kill(id, SIGKILL)
            repeat { waited = wait4(id, &status, 0, &usage) } while waited < 0 && errno == EINTR
        }
        guard waited == id else { return nil }
        let signal = status & 0x7f
        let termination = Termination(
            signal: signal != 0 ? signal : nil, status: signal != 0 ? nil : (status >> 8) & 0xff,
            peakResidentBytes: Int(usage.ru_maxrss) * 1024)
        ended = termination
        return termination
    }
}
