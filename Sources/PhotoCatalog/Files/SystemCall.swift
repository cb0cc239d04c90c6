import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A failed system call: which one, on which path, and errno.
struct SystemCallError: Error, Sendable, Hashable, CustomStringConvertible {
    let operation: String
    let path: String
    let errno: Int32

    var description: String { "\(operation) '\(path)': \(String(cString: strerror(errno))) (errno \(errno))" }

    /// The library's error for this failure while doing `action`.
    func photosError(action: String) -> PhotosError {
        PhotosError.io(operation, path: path, errno: errno, action: action)
    }
}

/// `stat(2)`, outside `SystemCall` whose own `stat` would shadow it.
private func statFile(_ path: String, _ info: UnsafeMutablePointer<stat>) -> Int32 { stat(path, info) }

/// Thin wrappers over the system calls the originals store needs; each retries on `EINTR` and throws
/// ``SystemCallError`` naming the call and the path.
enum SystemCall {
    /// Runs `call` until it does not fail with `EINTR`.
    @inline(__always)
    static func retrying<T: SignedInteger>(_ operation: String, _ path: String, _ call: () -> T) throws -> T {
        while true {
            let result = call()
            if result >= 0 { return result }
            let code = Glibc.errno
            if code == EINTR { continue }
            throw SystemCallError(operation: operation, path: path, errno: code)
        }
    }

    /// `stat(2)`.
    static func stat(_ path: String) throws -> Glibc.stat {
        var info = Glibc.stat()
        _ = try retrying("stat", path) { statFile(path, &info) }
        return info
    }

    /// `fstat(2)`.
    static func fstat(_ descriptor: Int32, path: String) throws -> Glibc.stat {
        var info = Glibc.stat()
        _ = try retrying("fstat", path) { Glibc.fstat(descriptor, &info) }
        return info
    }

    /// Whether something exists at `path` (`lstat(2)`, not following a final symlink).
    static func exists(_ path: String) -> Bool {
        var info = Glibc.stat()
        return lstat(path, &info) == 0
    }

    /// `open(2)` with `O_CLOEXEC`.
    static func open(_ path: String, _ flags: Int32, mode: mode_t = 0o644) throws -> Int32 {
        try retrying("open", path) { Glibc.open(path, flags | O_CLOEXEC, mode) }
    }

    /// `close(2)`; errors are ignored because the descriptor is gone either way.
    static func close(_ descriptor: Int32) { _ = Glibc.close(descriptor) }

    /// `fsync(2)` on an open descriptor.
    static func fsync(_ descriptor: Int32, path: String) throws {
        _ = try retrying("fsync", path) { Glibc.fsync(descriptor) }
    }

    /// Opens a directory and `fsync`s it, making the entries created or renamed in it durable.
    static func fsyncDirectory(_ path: String) throws {
        let descriptor = try open(path, O_RDONLY | O_DIRECTORY)
        defer { close(descriptor) }
        try fsync(descriptor, path: path)
    }

    /// `mkdir(2)`; an existing directory is fine. Returns whether it was created.
    @discardableResult
    static func makeDirectory(_ path: String, mode: mode_t = 0o755) throws -> Bool {
        if Glibc.mkdir(path, mode) == 0 { return true }
        let code = Glibc.errno
        if code == EEXIST { return false }
        throw SystemCallError(operation: "mkdir", path: path, errno: code)
    }

    /// Creates `path` and its missing parents (`mkdir -p`). Returns the directories it created, outermost first.
    @discardableResult
    static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws -> [String] {
        var missing: [String] = []
        var current = path
        while !current.isEmpty, current != "/", !exists(current) {
            missing.append(current)
            current = (current as NSString).deletingLastPathComponent
        }
        var created: [String] = []
        for directory in missing.reversed() where try makeDirectory(directory, mode: mode) {
            created.append(directory)
        }
        return created
    }

    /// `unlink(2)`; a missing file is fine.
    static func unlink(_ path: String) throws {
        if Glibc.unlink(path) == 0 { return }
        let code = Glibc.errno
        if code == ENOENT { return }
        throw SystemCallError(operation: "unlink", path: path, errno: code)
    }

    private typealias RenameAt2 =
        @convention(c) (Int32, UnsafePointer<CChar>?, Int32, UnsafePointer<CChar>?, UInt32)
        -> Int32
    private typealias CopyFileRange =
        @convention(c) (
            Int32, UnsafeMutablePointer<Int64>?, Int32, UnsafeMutablePointer<Int64>?, Int, UInt32
        ) -> Int

    // glibc declares renameat2 and copy_file_range only under _GNU_SOURCE, which the Swift importer does not define;
    // look them up once instead (RTLD_DEFAULT is the null handle on glibc).
    private static let renameAt2: RenameAt2? = dlsym(nil, "renameat2").map { unsafeBitCast($0, to: RenameAt2.self) }
    private static let copyFileRange: CopyFileRange? = dlsym(nil, "copy_file_range").map {
        unsafeBitCast($0, to: CopyFileRange.self)
    }
    private static let renameNoReplace: UInt32 = 1  // RENAME_NOREPLACE

    /// Renames `source` to `destination`, refusing to replace an existing destination (`renameat2` with
    /// `RENAME_NOREPLACE`; plain `rename(2)` where the filesystem does not support the flag). Throws with errno
    /// `EXDEV` when the two are on different filesystems.
    static func renameNoReplace(_ source: String, _ destination: String) throws {
        while true {
            let result: Int32
            if let renameAt2 {
                result = renameAt2(AT_FDCWD, source, AT_FDCWD, destination, renameNoReplace)
            } else {
                result = Glibc.rename(source, destination)
            }
            if result == 0 { return }
            let code = Glibc.errno
            if code == EINTR { continue }
            if code == EINVAL || code == ENOSYS, renameAt2 != nil {
                // The filesystem does not know RENAME_NOREPLACE: destinations are fresh UUIDs, so rename is safe.
                _ = try retrying("rename", source) { Glibc.rename(source, destination) }
                return
            }
            throw SystemCallError(operation: "rename", path: "\(source) -> \(destination)", errno: code)
        }
    }

    /// `rename(2)`, replacing the destination.
    static func rename(_ source: String, _ destination: String) throws {
        _ = try retrying("rename", "\(source) -> \(destination)") { Glibc.rename(source, destination) }
    }

    private typealias SyncFS = @convention(c) (Int32) -> Int32
    private static let syncFS: SyncFS? = dlsym(nil, "syncfs").map { unsafeBitCast($0, to: SyncFS.self) }

    /// Makes everything written to the file system that holds `path` durable (`syncfs(2)`): one flush for a batch of
    /// new files instead of an `fsync` each. Falls back to `fsync` of each of `files` where `syncfs` is missing.
    static func syncFileSystem(containing path: String, files: [String]) throws {
        if let syncFS {
            let descriptor = try open(path, O_RDONLY | O_DIRECTORY)
            defer { close(descriptor) }
            _ = try retrying("syncfs", path) { syncFS(descriptor) }
            return
        }
        for file in files {
            let descriptor = try open(file, O_RDONLY)
            defer { close(descriptor) }
            try fsync(descriptor, path: file)
        }
    }

    /// How a copy was made.
    enum CopyMethod: String, Sendable {
        case reflink, copyFileRange, readWrite
    }

    /// Copies `source` into a new file `destination` (created with `O_EXCL`), then `fsync`s it unless `sync` is
    /// false (the caller then makes a whole batch durable at once, with ``syncFileSystem(containing:)``).
    ///
    /// Tries a reflink (`FICLONE`, instant on btrfs/XFS), then `copy_file_range(2)` (in-kernel), then `read`/`write`.
    /// A partly written destination is removed when the copy fails.
    @discardableResult
    static func copyFile(
        from source: String, to destination: String, buffer: UnsafeMutableRawBufferPointer, sync: Bool = true
    ) throws -> CopyMethod {
        let input = try open(source, O_RDONLY)
        defer { close(input) }
        let size = try fstat(input, path: source).st_size
        let output = try open(destination, O_WRONLY | O_CREAT | O_EXCL, mode: 0o644)
        var finished = false
        defer {
            close(output)
            if !finished { _ = Glibc.unlink(destination) }
        }
        let method = try copyContents(
            input, output, size: Int64(size), source: source, destination: destination,
            buffer: buffer)
        if sync { try fsync(output, path: destination) }
        finished = true
        return method
    }

    private static func copyContents(
        _ input: Int32, _ output: Int32, size: Int64, source: String, destination: String,
        buffer: UnsafeMutableRawBufferPointer
    ) throws -> CopyMethod {
        let ficlone: UInt = 0x4004_9409  // _IOW(0x94, 9, int)
        if size > 0, ioctl(output, ficlone, input) == 0 { return .reflink }
        var copied: Int64 = 0
        var method = CopyMethod.readWrite
        if let copyFileRange, size > 0 {
            while copied < size {
                let count = copyFileRange(input, nil, output, nil, Int(min(size - copied, 1 << 30)), 0)
                if count > 0 {
                    copied += Int64(count)
                    method = .copyFileRange
                    continue
                }
                if count == 0 { break }  // the source shrank; read/write below finds its real end
                let code = Glibc.errno
                if code == EINTR { continue }
                if copied == 0, [EXDEV, ENOSYS, EOPNOTSUPP, EINVAL, EBADF, EPERM].contains(code) { break }
                throw SystemCallError(operation: "copy_file_range", path: "\(source) -> \(destination)", errno: code)
            }
        }
        // read/write for the rest (everything, when copy_file_range was not possible).
        while true {
            let count = try retrying("read", source) { Glibc.read(input, buffer.baseAddress, buffer.count) }
            if count == 0 { break }
            var written = 0
            while written < count {
                written += try retrying("write", destination) {
                    Glibc.write(output, buffer.baseAddress! + written, count - written)
                }
            }
        }
        return method
    }
}
