import PhotodropSystem

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
struct FileLook: Sendable, Hashable {
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

    /// Looks at the file `relativePath` below `root` without following any link and without blocking.
    public static func take(in root: Directory, relativePath: String) -> Outcome {
        let path = Path.join(root.path, relativePath)
        let fd: FileDescriptor
        do throws(SystemError) {
            fd = try root.open(relativePath, flags: [.readOnly, .nonBlocking, .noControllingTerminal])
        } catch {
            switch error.code {
            case Errno.noSuchFileOrDirectory, Errno.notDirectory: return .missing
            // A link (below the root or as the file itself), or a socket (ENXIO): never taken.
            case Errno.tooManySymbolicLinkLevels, Errno.noSuchAddressOrDevice: return .notRegularFile
            case Errno.wouldBlock:
                // A writer holds a lease that our open would break: it is certainly in use.
                guard let found = (try? FileLocation(directory: root, relativePath: relativePath).status()) ?? nil
                else { return .missing }
                guard found.isRegularFile else { return .notRegularFile }
                return .file(FileLook(identity: FileIdentity(found), writers: .open))
            default: return .failed(SystemError(code: error.code, call: "open", path: path))
            }
        }
        let info: FileStatus
        do throws(SystemError) { info = try fd.status(path: path) } catch { return .failed(error) }
        guard info.isRegularFile else { return .notRegularFile }
        let writers: WriterState
        switch LeaseProbe.hasWriters(fd) {
        case false?: writers = .none
        case true?: writers = .open
        case nil: writers = .unknown
        }
        return .file(FileLook(identity: FileIdentity(info), writers: writers))
    }

    /// Looks at the file at `path` (its folders as named) without following a link at the end and without blocking.
    public static func take(atPath path: String) -> Outcome {
        let (folder, name) = Path.split(path)
        guard let directory = try? Directory.open(atPath: folder.isEmpty ? "/" : folder) else { return .missing }
        return take(in: directory, relativePath: name)
    }
}
