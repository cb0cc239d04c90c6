/// What the inbox watcher reports. Paths are relative to the inbox, `/`-separated, never starting with `/`.
public enum InboxEvent: Sendable, Hashable {
    /// A file is worth a look (feed it to ``SettleTracker/observe(_:path:at:)``).
    case file(String, FileActivity)
    /// A file left (`IN_DELETE`, `IN_MOVED_FROM`): forget pending work for it. Harmless for unknown paths, such as
    /// photodrop's own renames of claimed files out of the inbox.
    case removed(String)
    /// A folder left (deleted or moved away): forget everything below it. `""` means the inbox itself is gone; the
    /// watcher polls until it is back and then sends ``rescanNeeded(_:)``.
    case directoryRemoved(String)
    /// Events may have been missed: scan the whole inbox (``InboxScanner``) and treat what it finds as listed.
    case rescanNeeded(RescanReason)
}

/// Why the watcher asks for a full rescan.
public enum RescanReason: Sendable, Hashable, CustomStringConvertible {
    /// The watches are in place; files that arrived while photodrop was not running are only found by a scan.
    case startup
    /// The kernel's event queue overflowed (`IN_Q_OVERFLOW`); the watches were rebuilt.
    case overflow
    /// The inbox folder was removed or moved away and is back; the watches were rebuilt.
    case inboxRecreated
    /// A folder that could not be watched (no permission) had its permissions changed and now has a watch.
    case folderReadable

    /// A stable name (metrics' `reason` label).
    public var code: String {
        switch self {
        case .startup: return "startup"
        case .overflow: return "overflow"
        case .inboxRecreated: return "inboxRecreated"
        case .folderReadable: return "folderReadable"
        }
    }

    public var description: String {
        switch self {
        case .startup: return "startup"
        case .overflow: return "inotify queue overflow"
        case .inboxRecreated: return "inbox recreated"
        case .folderReadable: return "a folder that could not be read has new permissions"
        }
    }
}
