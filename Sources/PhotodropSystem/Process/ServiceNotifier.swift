import FoundationEssentials
import Glibc
import Synchronization

/// systemd's readiness protocol (`sd_notify(3)`), in the few lines it takes: newline-separated `KEY=value`
/// assignments (`READY=1`, `STATUS=…`, `WATCHDOG=1`, `STOPPING=1`, `RELOADING=1`, `EXTEND_TIMEOUT_USEC=…`) sent as one
/// datagram to the unix socket named by `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace).
///
/// Made from the environment at start-up (``fromEnvironment(unsetting:)``), which it then clears, as `sd_notify`'s
/// `unset_environment` does, so that child processes (the render helper) do not talk to the service manager in the
/// daemon's name. Without `$NOTIFY_SOCKET` (not under systemd) there is no notifier and nothing is sent.
public final class ServiceNotifier: Sendable {
    /// Where the datagrams go.
    public let socketPath: String
    /// `$WATCHDOG_USEC` when it is meant for this process (`$WATCHDOG_PID` unset or ours): the service manager kills
    /// the service when no `WATCHDOG=1` arrives within it. Ping at half of it.
    public let watchdogInterval: Duration?
    private let socket: Int32
    private let address: Mutex<(storage: sockaddr_un, length: socklen_t)>

    /// A notifier sending to `socketPath` (`@name`: abstract namespace), or nil when the path is not one a unix
    /// socket can have.
    public init?(socketPath: String, watchdogInterval: Duration? = nil) {
        var storage = sockaddr_un()
        storage.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(socketPath.utf8)
        let abstract = bytes.first == UInt8(ascii: "@")
        if abstract { bytes[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: storage.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity, abstract || bytes.first == UInt8(ascii: "/") else { return nil }
        withUnsafeMutableBytes(of: &storage.sun_path) { path in
            for (index, byte) in bytes.enumerated() { path[index] = byte }
        }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + bytes.count + (abstract ? 0 : 1))
        let descriptor = Glibc.socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { return nil }
        self.socket = descriptor
        self.socketPath = socketPath
        self.watchdogInterval = watchdogInterval
        self.address = Mutex((storage, length))
    }

    deinit { close(socket) }

    /// The notifier `$NOTIFY_SOCKET` asks for, with the watchdog of `$WATCHDOG_USEC`/`$WATCHDOG_PID`; nil when the
    /// process does not run under a service manager that listens. Clears those variables from the environment.
    public static func fromEnvironment(unsetting: Bool = true) -> ServiceNotifier? {
        let environment = ProcessInfo.processInfo.environment
        defer {
            if unsetting {
                for name in ["NOTIFY_SOCKET", "WATCHDOG_USEC", "WATCHDOG_PID"] { unsetenv(name) }
            }
        }
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        var watchdog: Duration?
        if let text = environment["WATCHDOG_USEC"], let microseconds = Int64(text), microseconds > 0 {
            let pid = environment["WATCHDOG_PID"].flatMap { Int32($0) }
            if pid == nil || pid == getpid() { watchdog = .microseconds(microseconds) }
        }
        return ServiceNotifier(socketPath: path, watchdogInterval: watchdog)
    }

    /// Sends `assignments` (`["READY=1", "STATUS=…"]`) in one datagram. A `STATUS` value loses its newlines (one
    /// assignment per line is the protocol). False when the datagram could not be sent (no listener any more).
    @discardableResult
    public func send(_ assignments: [String]) -> Bool {
        let message = assignments.map { $0.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " ") }
            .joined(separator: "\n")
        let bytes = Array(message.utf8)
        return address.withLock { address in
            withUnsafePointer(to: &address.storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { target in
                    bytes.withUnsafeBytes { body in
                        Glibc.sendto(socket, body.baseAddress, body.count, Int32(MSG_NOSIGNAL), target, address.length)
                            == body.count
                    }
                }
            }
        }
    }

    /// `EXTEND_TIMEOUT_USEC=`: asks the service manager for `duration` more before it gives up on the start-up (or
    /// stop) in progress.
    public static func extendTimeout(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        return "EXTEND_TIMEOUT_USEC=\(seconds * 1_000_000 + attoseconds / 1_000_000_000_000)"
    }
}
