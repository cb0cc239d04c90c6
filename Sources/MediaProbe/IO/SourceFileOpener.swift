import PhotodropSystem
import Synchronization

/// Opens dropped, imported and probed files for reading without touching their access time.
///
/// Reading a file that was just created, renamed into place or hard-linked makes ext4 (with the default `relatime`)
/// write a new access time into its inode: a dirty inode per file, a measurable share of a first import's time,
/// and a change to the source tree that `import` (copy) promises to leave alone. `O_NOATIME` avoids that, but Linux
/// allows it only to the file's owner (or a process with `CAP_FOWNER`); for anyone else `open` fails with `EPERM`.
/// The first such refusal turns the flag off for the rest of the process (a Samba share or an rsync target whose
/// files belong to another user would otherwise pay two `open` calls per file).
public enum SourceFileOpener {
    /// Whether `O_NOATIME` is still worth trying.
    private static let noAccessTimeAllowed = Atomic<Bool>(true)

    /// The flags every source file is opened with: read only, never a symbolic link, never a controlling terminal,
    /// never blocking on a FIFO.
    public static let baseFlags: OpenFlags = [.readOnly, .closeOnExec, .noFollow, .noControllingTerminal, .nonBlocking]

    /// A read-only descriptor for `path`. A symbolic link is refused (`ELOOP`) unless `followingLinks`, for a path a
    /// person named.
    public static func openForReading(_ path: String, followingLinks: Bool = false) throws(SystemError)
        -> FileDescriptor
    {
        let flags = followingLinks ? baseFlags.subtracting(.noFollow) : baseFlags
        if noAccessTimeAllowed.load(ordering: .relaxed) {
            do {
                return try FileSystem.open(path, flags.union(.noAccessTime))
            } catch where error.code == Errno.notPermitted {
                noAccessTimeAllowed.store(false, ordering: .relaxed)
            }
        }
        return try FileSystem.open(path, flags)
    }

    /// A read-only descriptor for the file at `location`, opened below its folder without following any link.
    public static func openForReading(_ location: FileLocation) throws(SystemError) -> FileDescriptor {
        let flags = baseFlags.subtracting([.closeOnExec, .noFollow])  // both added by the folder
        if noAccessTimeAllowed.load(ordering: .relaxed) {
            do {
                return try location.open(flags: flags.union(.noAccessTime))
            } catch where error.code == Errno.notPermitted {
                noAccessTimeAllowed.store(false, ordering: .relaxed)
            }
        }
        return try location.open(flags: flags)
    }

    /// Whether the next ``openForReading(_:)`` tries `O_NOATIME` (for tests).
    public static var triesNoAccessTime: Bool { noAccessTimeAllowed.load(ordering: .relaxed) }
}
