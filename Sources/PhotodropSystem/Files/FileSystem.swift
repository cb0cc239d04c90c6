import Glibc
/// System calls on paths, for the few places that work with a path rather than below an open ``Directory``: the
/// configured roots, the library's lock and intent files, `verify`. Each retries on `EINTR` and throws
/// ``SystemError`` naming the call and the path.
public enum FileSystem {
    /// `stat(2)`, following links.
    public static func status(atPath path: String) throws(SystemError) -> FileStatus {
        var info = stat()
        try check("stat", path) { stat(path, &info) }
        return FileStatus(info)
    }

    /// ``status(atPath:)`` of a path in ``FileNameEncoding`` form (a name that was not UTF-8 is turned back into its
    /// bytes).
    public static func status(atEncodedPath path: String) throws(SystemError) -> FileStatus {
        var info = stat()
        try check("stat", path) { FileNameEncoding.withPlatformString(path) { stat($0, &info) } }
        return FileStatus(info)
    }

    /// `lstat(2)`, or nil when nothing is there (`ENOENT`, `ENOTDIR`); a final link is reported, not followed.
    public static func linkStatus(atPath path: String) throws(SystemError) -> FileStatus? {
        var info = stat()
        if retryingOnInterrupt({ lstat(path, &info) }) == 0 { return FileStatus(info) }
        let code = errno
        if code == ENOENT || code == ENOTDIR { return nil }
        throw SystemError(code: Errno(rawValue: code), call: "lstat", path: path)
    }

    /// Whether anything (a file, a folder, a link, even a dangling one) is at `path`. An error other than "not
    /// there" (`EACCES` on a folder above) counts as present, so that nobody concludes a file is gone when it
    /// could not be looked at.
    public static func exists(atPath path: String) -> Bool {
        do { return try linkStatus(atPath: path) != nil } catch { return true }
    }

    /// What ``checkAccess(_:_:effectiveIDs:)`` asks for.
    public struct Access: OptionSet, Sendable {
        public let rawValue: Int32
        public init(rawValue: Int32) { self.rawValue = rawValue }
        public static let read = Access(rawValue: R_OK)
        public static let write = Access(rawValue: W_OK)
        public static let execute = Access(rawValue: X_OK)
    }

    /// `access(2)` (or `faccessat(AT_EACCESS)` with `effectiveIDs`): throws unless this process may do `access` to
    /// `path`.
    public static func checkAccess(_ path: String, _ access: Access, effectiveIDs: Bool = false) throws(SystemError) {
        let result = effectiveIDs
            ? faccessat(AT_FDCWD, path, access.rawValue, AT_EACCESS) : Glibc.access(path, access.rawValue)
        guard result == 0 else { throw SystemError.current(effectiveIDs ? "faccessat" : "access", path: path) }
    }

    /// `open(2)` with `O_CLOEXEC`.
    public static func open(_ path: String, _ flags: OpenFlags, mode: UInt32 = 0o644) throws(SystemError)
        -> FileDescriptor
    {
        FileDescriptor(owning: try check("open", path) { Glibc.open(path, flags.rawValue | O_CLOEXEC, mode) })
    }

    /// `rename(2)`: `source` becomes `destination`, replacing what is there.
    public static func rename(_ source: String, to destination: String) throws(SystemError) {
        try check("rename", source) { Glibc.rename(source, destination) }
    }

    /// `mkdir(2)`; an existing folder is fine. Returns whether it was created.
    @discardableResult
    public static func makeDirectory(_ path: String, mode: UInt32 = 0o755) throws(SystemError) -> Bool {
        if mkdir(path, mode) == 0 { return true }
        let code = errno
        if code == EEXIST, let info = try linkStatus(atPath: path), info.isDirectory { return false }
        throw SystemError(code: code == EEXIST ? .notDirectory : Errno(rawValue: code), call: "mkdir", path: path)
    }

    /// `mkdir -p`: creates `path` with `mode` and its missing parents with `parentMode` (`mode` when nil); links in
    /// the existing part are followed (the path is an administrator's). Returns the folders it created, outermost
    /// first.
    @discardableResult
    public static func makeDirectories(
        _ path: String, mode: UInt32 = 0o755, parentMode: UInt32? = nil
    ) throws(SystemError) -> [String] {
        var missing: [String] = []
        var current = path
        while !current.isEmpty, current != "/" {
            var info = stat()
            if stat(current, &info) == 0 {
                guard info.st_mode & S_IFMT == S_IFDIR else {
                    throw SystemError(code: .notDirectory, call: "mkdir", path: current)
                }
                break
            }
            guard errno == ENOENT else { throw SystemError.current("stat", path: current) }
            missing.append(current)
            current = Path.parent(of: current)
        }
        var created: [String] = []
        for directory in missing.reversed()
        where try makeDirectory(directory, mode: directory == path ? mode : parentMode ?? mode) {
            created.append(directory)
        }
        return created
    }

    /// `unlink(2)`; a missing file is fine.
    public static func remove(_ path: String) throws(SystemError) {
        if Glibc.unlink(path) == 0 || errno == ENOENT { return }
        throw SystemError.current("unlink", path: path)
    }

    /// Writes all of `text` to `descriptor` (`write(2)` until done, again after `EINTR`); `path` names it in the
    /// error. A write that makes no progress (a closed pipe, a full disk) throws.
    public static func writeAll(_ text: String, to file: FileDescriptor, path: String?) throws(SystemError) {
        var text = text
        let written = text.withUTF8 { buffer in
            Result { () throws(SystemError) in try file.writeAll(UnsafeRawBufferPointer(buffer), path: path) }
        }
        try written.get()
    }

    /// Opens the folder at `path` and `fsync`s it, making the entries created or renamed in it durable.
    public static func syncDirectory(_ path: String) throws(SystemError) {
        let descriptor = try open(path, [.readOnly, .directory])
        try descriptor.sync(path: path)
    }

    /// Copies `source` into a new file `destination` (created with `O_EXCL`, mode 0644) and `fsync`s it: the one
    /// durable copy. A partly written destination is removed when the copy fails.
    @discardableResult
    public static func copyFile(
        from source: String, to destination: String, buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemError) -> FileCopy.Method {
        let input = try open(source, .readOnly)
        let output = try open(destination, [.writeOnly, .create, .exclusive], mode: 0o644)
        do {
            let method = try FileCopy.copyContents(
                from: input.rawValue, to: output.rawValue, buffer: buffer, source: source, destination: destination)
            try output.sync(path: destination)
            return method
        } catch {
            Glibc.unlink(destination)
            throw error
        }
    }


    /// Runs `body` until it does not fail with `EINTR`; throws the error of any other failure (a negative result).
    @inline(__always) @discardableResult
    static func check<T: FixedWidthInteger>(
        _ call: String, _ path: String?, _ body: () -> T
    ) throws(SystemError) -> T {
        let result = retryingOnInterrupt(body)
        if result < 0 { throw SystemError.current(call, path: path) }
        return result
    }
}
