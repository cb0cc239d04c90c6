import Glibc
import Synchronization

/// A configured folder (the inbox, `Rejected/`) as an open ``PhotodropSystem/Directory``: every operation below it
/// goes through that descriptor and never follows a link (see `Directory`). The configured path itself may be a
/// link (the administrator's choice); it is opened again when the folder at that path was replaced (an inbox
/// deleted and made anew), which one `stat` per use detects.
public final class FolderRoot: Sendable {
    /// The configured path (absolute).
    public let path: String
    /// The mode a missing root is made with.
    private let mode: mode_t
    private let opened = Mutex<(directory: Directory, node: FileNode)?>(nil)

    /// The folder at `path`; nothing is opened yet.
    public init(path: String, mode: mode_t = 0o755) {
        self.path = path
        self.mode = mode
    }

    /// The open folder; with `creating`, made (with its parents) when missing.
    public func directory(creating: Bool = false) throws(SystemError) -> Directory {
        var info = stat()
        let found = stat(path, &info) == 0
        if found, let current = opened.withLock({ $0 }), current.node == FileStatus(info).node { return current.directory }
        if !found {
            let code = errno
            guard code == ENOENT, creating else { throw SystemError(code: code, call: "stat", path: path) }
            try FileSystem.makeDirectories(path, mode: mode, parentMode: 0o755)
        }
        let directory = try Directory.open(atPath: path)
        let node = try directory.status().node
        opened.withLock { $0 = (directory, node) }
        return directory
    }

}
