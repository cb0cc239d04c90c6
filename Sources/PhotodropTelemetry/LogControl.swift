import FoundationEssentials
import PhotodropSystem
import Synchronization

/// The log settings a running daemon may change on reload (`log.level`, `log.format`), shared by every copy of its
/// loggers, and whether stderr is journald's stream (then text lines carry a `<N>` priority prefix instead of a
/// timestamp of their own, so that `journalctl -p warning` filters them).
public final class LogControl: Sendable {
    private let levelIndex: Atomic<Int>
    private let formatIndex: Atomic<Int>
    /// stderr is connected to journald (`$JOURNAL_STREAM` names its device and inode).
    public let journal: Bool

    /// Settings starting as `settings`; `journal` defaults to what ``stderrIsJournal()`` finds.
    public init(_ settings: LogSettings, journal: Bool = LogControl.stderrIsJournal()) {
        levelIndex = Atomic(LogLevel.allCases.firstIndex(of: settings.level)!)
        formatIndex = Atomic(LogFormat.allCases.firstIndex(of: settings.format)!)
        self.journal = journal
    }

    /// The level in force.
    public var level: LogLevel {
        get { LogLevel.allCases[levelIndex.load(ordering: .relaxed)] }
        set { levelIndex.store(LogLevel.allCases.firstIndex(of: newValue)!, ordering: .relaxed) }
    }

    /// The format in force.
    public var format: LogFormat { LogFormat.allCases[formatIndex.load(ordering: .relaxed)] }

    /// The settings in force.
    public var settings: LogSettings { LogSettings(format: format, level: level) }

    /// Takes over reloaded settings.
    public func apply(_ settings: LogSettings) {
        level = settings.level
        formatIndex.store(LogFormat.allCases.firstIndex(of: settings.format)!, ordering: .relaxed)
    }

    /// Whether `$JOURNAL_STREAM` (`DEVICE:INODE`, set by systemd for a service whose output goes to the journal)
    /// names this process's stderr; a stderr redirected elsewhere by the service (or a child that inherited the
    /// variable) does not count.
    public static func stderrIsJournal(environment: [String: String] = ProcessInfo.processInfo.environment) -> Bool {
        guard let value = environment["JOURNAL_STREAM"] else { return false }
        let parts = value.split(separator: ":")
        guard parts.count == 2, let device = UInt64(parts[0]), let inode = UInt64(parts[1]) else { return false }
        guard let info = try? FileDescriptor.standardError.status() else { return false }
        return info.node == FileNode(device: device, inode: inode)
    }

    /// syslog's priority of a level, as journald reads it from a `<N>` prefix.
    public static func priority(of level: LogLevel) -> Int {
        switch level {
        case .debug: return 7
        case .info: return 6
        case .warning: return 4
        case .error: return 3
        }
    }
}
