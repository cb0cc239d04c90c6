import PhotodropSystem

/// A Unix signal, by number; the command line traps ``interrupt`` and ``terminate``.
public struct UnixSignal: Sendable, Hashable, CustomStringConvertible {
    /// The signal number (`SIGTERM` …).
    public let number: Int32

    public init(_ number: Int32) { self.number = number }

    /// SIGINT (Ctrl-C): stop taking new files, finish those in flight, exit 0.
    public static let interrupt = UnixSignal(Signal.interrupt.rawValue)
    /// SIGTERM (systemd, `kill`): the same.
    public static let terminate = UnixSignal(Signal.terminate.rawValue)
    /// SIGHUP (`systemctl reload`): `watch` and `serve` read config.json again.
    public static let hangup = UnixSignal(Signal.hangUp.rawValue)

    /// `SIGTERM`, `SIGINT`, … (`signal 40` for one without a name here).
    public var description: String {
        Signal(rawValue: number).description
    }
}
