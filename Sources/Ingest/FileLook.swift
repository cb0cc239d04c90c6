import PhotodropSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One look at a file for the settle logic: its identity, and whether some process still has it open for writing.
///
/// ``take(atPath:)`` is the only I/O the settle logic needs; ``SettleTracker`` itself stays pure.
///
/// Open writers are detected with a read lease (`fcntl(F_SETLEASE, F_RDLCK)`), which the kernel refuses with
/// `EAGAIN` while any process has the file open for writing. That costs about five system calls per look,
/// instead of walking `/proc/*/fd` (thousands of `readlink` calls). The lease needs the file's owner or
/// `CAP_LEASE` and a local file system; where it is refused for those reasons ``WriterState/unknown`` is reported and
/// only the quiet period protects the file. The lease is held for microseconds; to make sure a writer opening the
/// file in that window cannot kill photodrop with the lease-break `SIGIO`, the first look sets `SIGIO` to ignored
/// when it still has its default (terminating) disposition.
public struct FileLook: Sendable, Hashable {
    /// Whether another process may still be writing.
    public enum WriterState: Sendable, Hashable {
        /// No process has the file open for writing (the kernel granted a read lease).
        case none
        /// Some process has it open for writing (or holds a conflicting lease).
        case open
        /// Could not tell (not the owner without `CAP_LEASE`, or a file system without leases, such as NFS).
        case unknown
    }

    /// What a look found.
    public enum Outcome: Sendable, Hashable {
        /// A regular file.
        case file(FileLook)
        /// Nothing there any more (`ENOENT`, `ENOTDIR`).
        case missing
        /// A symbolic link, folder, FIFO, socket or device: never taken.
        case notRegularFile
        /// Another error, e.g. `EACCES`.
        case failed(SystemError)
    }

    public var identity: FileIdentity
    public var writers: WriterState

    public init(identity: FileIdentity, writers: WriterState) {
        self.identity = identity
        self.writers = writers
    }

    /// Looks at the file at `path` without following a symbolic link and without blocking.
    public static func take(atPath path: String) -> Outcome {
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY) }
        if fd < 0 {
            let code = errno
            switch code {
            case ENOENT, ENOTDIR: return .missing
            case ELOOP: return .notRegularFile
            case EWOULDBLOCK:
                // A writer holds a lease that our open would break: it is certainly in use.
                var info = stat()
                guard lstat(path, &info) == 0 else { return .missing }
                guard info.st_mode & S_IFMT == S_IFREG else { return .notRegularFile }
                return .file(FileLook(identity: FileIdentity(info), writers: .open))
            default: return .failed(SystemError(code: code, call: "open", path: path))
            }
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failed(SystemError.current("fstat", path: path)) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .notRegularFile }
        let writers: WriterState
        switch LeaseProbe.hasWriters(fd) {
        case false?: writers = .none
        case true?: writers = .open
        case nil: writers = .unknown
        }
        return .file(FileLook(identity: FileIdentity(info), writers: writers))
    }
}
