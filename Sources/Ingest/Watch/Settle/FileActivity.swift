/// Why a file in the inbox is worth a look: what inotify reported, or how a scan found it.
public enum FileActivity: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// `IN_CREATE` on a file (a writer opened a new file, or a hard link appeared).
    case created
    /// `IN_CLOSE_WRITE`: a writer closed the file. Not "done": writers append in cycles.
    case closedWrite
    /// `IN_MOVED_TO`: renamed into a watched folder (`mv`, rsync's final rename, Samba's `.part` rename).
    case movedIn
    /// `IN_MODIFY`: data written.
    case modified
    /// `IN_ATTRIB`: mode, owner or times changed (`install`, `wget`, rsync set the mtime after closing).
    case attributesChanged
    /// Found by listing a watched folder (a new folder, or the start-up or overflow rescan). No event history.
    case listed
    /// Found by the periodic rescan of a folder that has no inotify watch (the watch limit was reached).
    case polled

    /// Whether the activity is evidence that the file changed (as opposed to "it exists").
    var isChange: Bool {
        switch self {
        case .created, .closedWrite, .movedIn, .modified, .attributesChanged: return true
        case .listed, .polled: return false
        }
    }

    public var description: String {
        switch self {
        case .created: return "created"
        case .closedWrite: return "closed after writing"
        case .movedIn: return "moved in"
        case .modified: return "modified"
        case .attributesChanged: return "attributes changed"
        case .listed: return "listed"
        case .polled: return "polled"
        }
    }
}
