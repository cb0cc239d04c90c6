import Glibc
import CLinux
import Synchronization

/// An open folder, and every file operation photodrop does below it, relative to its descriptor and without ever
/// following a symbolic link.
///
/// A path such as `Inbox/Trip/IMG_1.jpg` is resolved by the kernel again at every call, so a folder swapped for a
/// symbolic link between a check and an action (`renameat2(RENAME_EXCHANGE)` by anyone who may write the inbox)
/// would redirect the action outside the tree. A `Directory` is resolved once, when it is opened; names below it are
/// resolved with `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)` where the kernel has it (Linux 5.6), else
/// component by component with `O_NOFOLLOW | O_DIRECTORY` (see ``resolution``). Either way a link anywhere below the
/// folder is refused with `ELOOP`, and `..` is refused outright.
///
/// The root of a tree (the configured inbox, library or rejected folder) is opened with ``open(atPath:)``, which
/// follows links: its path is the administrator's choice. Names are in ``FileNameEncoding`` form.
public final class Directory: Sendable {
    /// How names below a folder are resolved.
    public enum Resolution: Int, Sendable {
        /// `openat2` when the kernel has it, else ``componentWalk``.
        case automatic = 0
        /// One `openat(O_NOFOLLOW | O_DIRECTORY)` per component (the fallback; tests force it).
        case componentWalk = 1
    }

    /// The open folder (`O_RDONLY | O_DIRECTORY`).
    public let descriptor: FileDescriptor
    /// How the folder was reached, for messages (it may have been renamed since).
    public let path: String

    private init(descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = path
    }

    private static let folderFlags = O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY

    // MARK: - Opening

    /// Opens the folder at `path` (a tree's root: links in `path` are followed).
    public static func open(atPath path: String) throws(SystemError) -> Directory {
        let fd = FileNameEncoding.withPlatformString(path) { name in
            retryingOnInterrupt { Glibc.open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOCTTY) }
        }
        guard fd >= 0 else { throw SystemError.current("open", path: path) }
        return Directory(descriptor: FileDescriptor(owning: fd), path: path)
    }

    /// Opens the folder `relative` below this one (`a` or `a/b`), never through a link; with `creating`, missing
    /// folders are made with `mode` on the way.
    public func directory(_ relative: String, creating: Bool = false, mode: UInt32 = 0o755) throws(SystemError)
        -> Directory
    {
        if relative.isEmpty || relative == "." {
            let fd = retryingOnInterrupt { fcntl(descriptor.rawValue, F_DUPFD_CLOEXEC, 0) }
            guard fd >= 0 else { throw SystemError.current("fcntl", path: path) }
            return Directory(descriptor: FileDescriptor(owning: fd), path: path)
        }
        let fullPath = Path.join(path, relative)
        if creating {
            var current = self
            for component in try Directory.components(of: relative, path: fullPath) {
                let name = String(component)
                do {
                    current = try current.directory(name)
                } catch where error.code == .noSuchFileOrDirectory {
                    _ = try current.makeDirectory(name, mode: mode)
                    current = try current.directory(name)
                }
            }
            return current
        }
        let fd = try openBeneath(relative, flags: Directory.folderFlags, mode: 0, fullPath: fullPath)
        return Directory(descriptor: FileDescriptor(owning: fd), path: fullPath)
    }

    /// Opens the file `relative` below this folder with `flags` (`O_NOFOLLOW` and `O_CLOEXEC` are added); returns the
    /// descriptor, which the caller closes.
    func openFile(_ relative: String, flags: OpenFlags, mode: UInt32 = 0) throws(SystemError) -> Int32 {
        try openBeneath(relative, flags: flags.rawValue | O_NOFOLLOW | O_CLOEXEC, mode: mode_t(mode), fullPath: nil)
    }

    /// ``openFile(_:flags:mode:)``, owned.
    public func open(_ relative: String, flags: OpenFlags, mode: UInt32 = 0) throws(SystemError) -> FileDescriptor {
        FileDescriptor(owning: try openFile(relative, flags: flags, mode: mode))
    }

    /// The folder that holds `relative` and the last component's name: where single-name operations run.
    public func parent(of relative: String) throws(SystemError) -> (directory: Directory, name: String) {
        guard let slash = relative.utf8.lastIndex(of: UInt8(ascii: "/")) else {
            try Directory.checkName(relative, path: Path.join(path, relative))
            return (self, relative)
        }
        let name = String(relative[relative.utf8.index(after: slash)...])
        try Directory.checkName(name, path: Path.join(path, relative))
        return (try directory(String(relative[..<slash])), name)
    }

    // MARK: - Single names

    /// `fstatat(2)` of the entry `name` in this folder, not following a link; nil when there is none.
    public func status(_ name: String) throws(SystemError) -> FileStatus? {
        var info = stat()
        let result = FileNameEncoding.withPlatformString(name) { fstatat(descriptor.rawValue, $0, &info, AT_SYMLINK_NOFOLLOW) }
        if result == 0 { return FileStatus(info) }
        if errno == ENOENT { return nil }
        throw SystemError.current("fstatat", path: Path.join(path, name))
    }

    /// `fstatat(2)` of `relative` (which may have several components) below this folder in one call, the last
    /// component's link not followed; nil when nothing is there (`ENOENT`, `ENOTDIR`). Cheaper than
    /// ``FileLocation/status()``, which opens each folder on the way; for a folder this process owns.
    public func status(ofPath relative: String) throws(SystemError) -> FileStatus? {
        var info = stat()
        let result = FileNameEncoding.withPlatformString(relative) {
            fstatat(descriptor.rawValue, $0, &info, AT_SYMLINK_NOFOLLOW)
        }
        if result == 0 { return FileStatus(info) }
        if errno == ENOENT || errno == ENOTDIR { return nil }
        throw SystemError.current("fstatat", path: Path.join(path, relative))
    }

    /// Renames the entry `name` to `newName` in `destination` without replacing anything there (`renameat2` with
    /// `RENAME_NOREPLACE`; `linkat` + `unlinkat` for a regular file on a file system without the flag). Returns false
    /// when `newName` exists. Throws `EXDEV` across file systems.
    public func rename(_ name: String, to destination: Directory, as newName: String) throws(SystemError) -> Bool {
        let result = FileNameEncoding.withPlatformString(name) { source in
            FileNameEncoding.withPlatformString(newName) { target in
                photodrop_renameat2(
                    descriptor.rawValue, source, destination.descriptor.rawValue, target, RENAME_NOREPLACE)
            }
        }
        if result == 0 { return true }
        let code = errno
        switch code {
        case EEXIST: return false
        case EINVAL, ENOSYS:
            // No RENAME_NOREPLACE here: a hard link refuses an existing name, then the old name goes.
            let linked = FileNameEncoding.withPlatformString(name) { source in
                FileNameEncoding.withPlatformString(newName) { target in
                    linkat(descriptor.rawValue, source, destination.descriptor.rawValue, target, 0)
                }
            }
            if linked != 0 {
                if errno == EEXIST { return false }
                throw SystemError.current("linkat", path: Path.join(path, name))
            }
            try remove(name)
            return true
        default:
            throw SystemError(code: Errno(rawValue: code), call: "renameat2", path: Path.join(path, name))
        }
    }

    /// Makes `newName` in `destination` a hard link to the entry `name` in this folder (`linkat(2)` without
    /// `AT_SYMLINK_FOLLOW`: a link is linked as itself, never followed). Returns false when `newName` exists. Throws
    /// `EXDEV` across file systems and `EMLINK` when the file has as many links as the file system allows.
    public func link(_ name: String, to destination: Directory, as newName: String) throws(SystemError) -> Bool {
        try Directory.checkName(name, path: Path.join(path, name))
        try Directory.checkName(newName, path: Path.join(destination.path, newName))
        let result = FileNameEncoding.withPlatformString(name) { source in
            FileNameEncoding.withPlatformString(newName) { target in
                linkat(descriptor.rawValue, source, destination.descriptor.rawValue, target, 0)
            }
        }
        if result == 0 { return true }
        if errno == EEXIST { return false }
        throw SystemError.current("linkat", path: Path.join(path, name))
    }

    /// Renames the entry `name` to `newName` in `destination`, replacing what is there (`renameat(2)`).
    public func replace(_ name: String, to destination: Directory, as newName: String) throws(SystemError) {
        let result = FileNameEncoding.withPlatformString(name) { source in
            FileNameEncoding.withPlatformString(newName) { target in
                renameat(descriptor.rawValue, source, destination.descriptor.rawValue, target)
            }
        }
        guard result == 0 else { throw SystemError.current("renameat", path: Path.join(path, name)) }
    }

    /// Replaces the file `name` in this folder with `text` at once: written to a hidden temporary name beside it,
    /// then renamed over it, so that a reader sees the old file or the new one, never half of either. `exactMode`:
    /// the file gets `mode` whatever the umask (a file another user's program must read).
    public func replaceFile(named name: String, with text: String, mode: UInt32, exactMode: Bool = false)
        throws(SystemError)
    {
        let temporary = ".\(name).\(getpid()).tmp"
        let temporaryPath = Path.join(path, temporary)
        try? remove(temporary)
        do throws(SystemError) {
            let file = try open(temporary, flags: [.writeOnly, .create, .exclusive], mode: mode)
            try FileSystem.writeAll(text, to: file, path: temporaryPath)
            if exactMode { try file.setPermissions(mode, path: temporaryPath) }
        } catch {
            try? remove(temporary)
            throw error
        }
        do { try replace(temporary, to: self, as: name) } catch {
            try? remove(temporary)
            throw error
        }
    }

    /// Removes the file (not folder) `name`; a missing one is fine.
    public func remove(_ name: String) throws(SystemError) {
        let result = FileNameEncoding.withPlatformString(name) { unlinkat(descriptor.rawValue, $0, 0) }
        if result != 0 && errno != ENOENT {
            throw SystemError.current("unlinkat", path: Path.join(path, name))
        }
    }

    /// Removes the empty folder `name`; a missing one is fine.
    public func removeDirectory(_ name: String) throws(SystemError) {
        let result = FileNameEncoding.withPlatformString(name) { unlinkat(descriptor.rawValue, $0, AT_REMOVEDIR) }
        if result != 0 && errno != ENOENT {
            throw SystemError.current("unlinkat", path: Path.join(path, name))
        }
    }

    /// `fchownat(2)` of the entry `name` (a link itself, never followed); nil leaves that id as it is.
    public func setOwner(of name: String, owner: UInt32?, group: UInt32?) throws(SystemError) {
        let result = FileNameEncoding.withPlatformString(name) {
            fchownat(descriptor.rawValue, $0, owner ?? UInt32.max, group ?? UInt32.max, AT_SYMLINK_NOFOLLOW)
        }
        guard result == 0 else { throw SystemError.current("fchownat", path: Path.join(path, name)) }
    }

    /// `fchmodat(2)` of the entry `name`.
    public func setPermissions(of name: String, _ permissions: UInt32) throws(SystemError) {
        let result = FileNameEncoding.withPlatformString(name) { fchmodat(descriptor.rawValue, $0, permissions, 0) }
        guard result == 0 else { throw SystemError.current("fchmodat", path: Path.join(path, name)) }
    }

    /// Makes the folder `name` with `mode`; returns false when something of that name exists already.
    @discardableResult
    public func makeDirectory(_ name: String, mode: UInt32 = 0o755) throws(SystemError) -> Bool {
        try Directory.checkName(name, path: Path.join(path, name))
        let result = FileNameEncoding.withPlatformString(name) { mkdirat(descriptor.rawValue, $0, mode) }
        if result == 0 { return true }
        if errno == EEXIST { return false }
        throw SystemError.current("mkdirat", path: Path.join(path, name))
    }

    /// Whether anything is at `relative` below this folder (never through a link): a file, a folder, a link itself.
    public func exists(_ relative: String) -> Bool {
        ((try? FileLocation(directory: self, relativePath: relative).status()) ?? nil) != nil
    }

    /// `syncfs(2)`: flushes the whole file system that holds the folder.
    public func syncFileSystem() throws(SystemError) {
        guard photodrop_syncfs(descriptor.rawValue) == 0 else { throw SystemError.current("syncfs", path: path) }
    }

    /// `fsync(2)` on the folder: entries made or renamed in it survive a power loss.
    public func sync() throws(SystemError) {
        try descriptor.sync(path: path)
    }

    /// `fstat(2)` of the folder itself.
    public func status() throws(SystemError) -> FileStatus {
        try descriptor.status(path: path)
    }

    /// The entries of the folder, read from a descriptor of its own.
    public func entries() throws(SystemError) -> DirectoryStream {
        try DirectoryStream(directory: self)
    }

    // MARK: - Resolution

    /// How names are resolved; ``Resolution/automatic`` unless a test forces the fallback.
    public static var resolution: Resolution {
        get { Resolution(rawValue: forcedResolution.load(ordering: .relaxed)) ?? .automatic }
        set { forcedResolution.store(newValue.rawValue, ordering: .relaxed) }
    }
    private static let forcedResolution = Atomic<Int>(Resolution.automatic.rawValue)

    /// Whether this process may use `openat2`: asked once. `ENOSYS` (a kernel before 5.6) and `EPERM` (a seccomp
    /// filter, as some container runtimes install) mean no.
    public static let kernelHasOpenat2: Bool = {
        let fd = photodrop_openat2(
            AT_FDCWD, "/", UInt64(O_RDONLY | O_DIRECTORY | O_CLOEXEC), 0,
            photodrop_RESOLVE_NO_SYMLINKS | photodrop_RESOLVE_NO_MAGICLINKS)
        if fd >= 0 {
            close(fd)
            return true
        }
        return false
    }()

    /// Whether calls now go through `openat2`.
    public static var usesOpenat2: Bool { resolution == .automatic && kernelHasOpenat2 && !openat2Failed.load(ordering: .relaxed) }
    private static let openat2Failed = Atomic<Bool>(false)

    /// Opens `relative` below this folder. `fullPath` names it in errors (built from ``path`` when nil, only then: a
    /// successful open allocates nothing).
    private func openBeneath(_ relative: String, flags: Int32, mode: mode_t, fullPath: String?) throws(SystemError)
        -> Int32
    {
        func name() -> String { fullPath ?? Path.join(path, relative) }
        guard Directory.isPlainRelativePath(relative) else { throw SystemError(code: EINVAL, call: "resolve", path: name()) }
        if relative.utf8.count >= Directory.longestResolvedPath {
            // Longer than the kernel resolves in one call (PATH_MAX): its first folders are opened first, then the
            // rest below them, by descriptor all the way.
            let utf8 = relative.utf8
            let limit = utf8.index(utf8.startIndex, offsetBy: Directory.longestResolvedPath - 1)
            guard let slash = utf8[..<limit].lastIndex(of: UInt8(ascii: "/")) else {
                throw SystemError(code: ENAMETOOLONG, call: "resolve", path: name())
            }
            let head = String(relative[..<slash])
            let tail = String(relative[utf8.index(after: slash)...])
            let folder = Directory(
                descriptor: FileDescriptor(owning: try openBeneath(head, flags: Directory.folderFlags, mode: 0, fullPath: nil)),
                path: Path.join(path, head))
            return try folder.openBeneath(tail, flags: flags, mode: mode, fullPath: fullPath ?? name())
        }
        if Directory.usesOpenat2 {
            let fd = FileNameEncoding.withPlatformString(relative) { cName in
                retryingOnInterrupt {
                    photodrop_openat2(
                        descriptor.rawValue, cName, UInt64(UInt32(bitPattern: flags)), UInt64(mode),
                        photodrop_RESOLVE_BENEATH | photodrop_RESOLVE_NO_SYMLINKS | photodrop_RESOLVE_NO_MAGICLINKS)
                }
            }
            if fd >= 0 { return fd }
            let code = errno
            if code != ENOSYS { throw SystemError(code: code, call: "openat2", path: name()) }
            // A filter installed after the first probe: fall back for the rest of the process.
            Directory.openat2Failed.store(true, ordering: .relaxed)
        }
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        var parent = descriptor.rawValue
        var opened: [Int32] = []
        defer { for fd in opened { close(fd) } }
        for component in components.dropLast() {
            let fd = FileNameEncoding.withPlatformString(String(component)) { cName in
                retryingOnInterrupt { openat(parent, cName, Directory.folderFlags) }
            }
            guard fd >= 0 else { throw SystemError.current("openat", path: name()) }
            opened.append(fd)
            parent = fd
        }
        let fd = FileNameEncoding.withPlatformString(String(components.last!)) { cName in
            retryingOnInterrupt { openat(parent, cName, flags | O_NOFOLLOW, mode) }
        }
        guard fd >= 0 else { throw SystemError.current("openat", path: name()) }
        return fd
    }

    /// The longest relative path resolved in one call: the kernel refuses paths of `PATH_MAX` (4096) bytes and more.
    static let longestResolvedPath = 4000

    /// Whether `relative` is a path below a folder: not empty, not absolute, no empty, `.` or `..` component.
    /// Checked byte by byte, without allocating.
    static func isPlainRelativePath(_ relative: String) -> Bool {
        var componentLength = 0
        var dots = 0
        for byte in relative.utf8 {
            if byte == UInt8(ascii: "/") {
                if componentLength == 0 || (componentLength == dots && dots <= 2) { return false }
                componentLength = 0
                dots = 0
            } else {
                componentLength += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
        }
        return componentLength > 0 && !(componentLength == dots && dots <= 2)
    }

    /// The components of a relative path; refuses absolute paths, `.`, `..` and empty components (`EINVAL`).
    static func components(of relative: String, path: String) throws(SystemError) -> [Substring] {
        let components = relative.split(separator: "/", omittingEmptySubsequences: false)
        guard !relative.hasPrefix("/"), !components.isEmpty,
            components.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." })
        else { throw SystemError(code: EINVAL, call: "resolve", path: path) }
        return components
    }

    static func checkName(_ name: String, path: String) throws(SystemError) {
        guard !name.isEmpty, name != ".", name != "..", !name.utf8.contains(UInt8(ascii: "/")) else {
            throw SystemError(code: EINVAL, call: "resolve", path: path)
        }
    }

}
