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
    /// `O_NOATIME`, which glibc declares only under `_GNU_SOURCE` (from CLinux).
    static let noAccessTime: Int32 = O_NOATIME

    /// Whether `O_NOATIME` is still worth trying.
    private static let noAccessTimeAllowed = Atomic<Bool>(true)

    /// The flags every source file is opened with: read only, never a symbolic link, never a controlling terminal,
    /// never blocking on a FIFO.
    public static let baseFlags = O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK

    /// A read-only descriptor for `path`, or -1 with `errno` set (as `open(2)`). A symbolic link is refused (`ELOOP`)
    /// unless `followingLinks`, for a path a person named.
    public static func openForReading(_ path: String, followingLinks: Bool = false) -> Int32 {
        let flags = followingLinks ? baseFlags & ~O_NOFOLLOW : baseFlags
        if noAccessTimeAllowed.load(ordering: .relaxed) {
            let fd = openRetryingOnInterrupt(path, flags | noAccessTime)
            if fd >= 0 || errno != EPERM { return fd }
            noAccessTimeAllowed.store(false, ordering: .relaxed)
        }
        return openRetryingOnInterrupt(path, flags)
    }

    /// A read-only descriptor for the file at `location`, opened below its folder without following any link; the
    /// caller closes it.
    public static func openForReading(_ location: FileLocation) throws(SystemError) -> Int32 {
        let flags = baseFlags & ~O_CLOEXEC & ~O_NOFOLLOW  // both added by the folder
        if noAccessTimeAllowed.load(ordering: .relaxed) {
            do {
                return try location.open(flags: flags | noAccessTime)
            } catch where error.code == EPERM {
                noAccessTimeAllowed.store(false, ordering: .relaxed)
            }
        }
        return try location.open(flags: flags)
    }

    private static func openRetryingOnInterrupt(_ path: String, _ flags: Int32) -> Int32 {
        retryingOnInterrupt { open(path, flags) }
    }

    /// Whether the next ``openForReading(_:)`` tries `O_NOATIME` (for tests).
    public static var triesNoAccessTime: Bool { noAccessTimeAllowed.load(ordering: .relaxed) }
}
