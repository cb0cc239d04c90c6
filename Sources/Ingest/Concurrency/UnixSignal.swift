import PhotodropSystem

/// A Unix signal the daemon reacts to.
public enum UnixSignal: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// SIGINT (Ctrl-C): stop taking new files, finish those in flight, exit 0.
    case interrupt
    /// SIGTERM (systemd, `kill`): the same.
    case terminate
    /// SIGHUP.
    case hangup
    /// SIGUSR1.
    case user1
    /// SIGUSR2.
    case user2

    /// The signal number.
    public var number: Int32 {
        switch self {
        case .interrupt: return SIGINT
        case .terminate: return SIGTERM
        case .hangup: return SIGHUP
        case .user1: return SIGUSR1
        case .user2: return SIGUSR2
        }
    }

    public var description: String {
        switch self {
        case .interrupt: return "SIGINT"
        case .terminate: return "SIGTERM"
        case .hangup: return "SIGHUP"
        case .user1: return "SIGUSR1"
        case .user2: return "SIGUSR2"
        }
    }
}
