import Glibc

/// A POSIX signal by its name.
public struct Signal: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32
    public init(rawValue: Int32) { self.rawValue = rawValue }

    public static let hangUp = Signal(rawValue: SIGHUP)
    public static let interrupt = Signal(rawValue: SIGINT)
    public static let kill = Signal(rawValue: SIGKILL)
    public static let terminate = Signal(rawValue: SIGTERM)
    public static let user1 = Signal(rawValue: SIGUSR1)
    public static let user2 = Signal(rawValue: SIGUSR2)
    public static let brokenPipe = Signal(rawValue: SIGPIPE)
    public static let io = Signal(rawValue: SIGIO)
    public static let segmentationFault = Signal(rawValue: SIGSEGV)

    public var description: String {
        switch self {
        case .hangUp: "SIGHUP"
        case .interrupt: "SIGINT"
        case .kill: "SIGKILL"
        case .terminate: "SIGTERM"
        case .user1: "SIGUSR1"
        case .user2: "SIGUSR2"
        case .brokenPipe: "SIGPIPE"
        case .io: "SIGIO"
        case .segmentationFault: "SIGSEGV"
        default: "signal \(rawValue)"
        }
    }

    /// Sends the signal to process `processID` (`kill(2)`).
    public func send(to processID: Int32) throws(SystemError) {
        guard Glibc.kill(processID, rawValue) == 0 else { throw SystemError.current("kill") }
    }

    /// Sends the signal to the calling thread (`raise(3)`).
    public func raise() { _ = Glibc.raise(rawValue) }

    /// Makes the process ignore the signal (`SIG_IGN`).
    public func ignore() { _ = Glibc.signal(rawValue, SIG_IGN) }
}
