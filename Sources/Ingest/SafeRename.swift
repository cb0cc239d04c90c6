import PhotodropSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Moving files without ever replacing one: the primitive under quarantine (and, later, claiming and placing
/// originals).
///
/// `rename(2)` silently replaces an existing destination; these helpers do not. Same file system:
/// `renameat2(RENAME_NOREPLACE)` (atomic), else `link` + `unlink` where a file system lacks the flag. Across file
/// systems (`EXDEV`): copy into a hidden temp file beside the destination, `fsync`, rename it into place without
/// replacing, then remove the source — so a crash leaves either the source alone or both copies, never neither.
public enum SafeRename {
    /// Whether a move happened.
    public enum Outcome: Sendable, Hashable {
        case moved
        /// Nothing was changed because the destination exists.
        case destinationExists
    }

    private typealias RenameAt2 =
        @convention(c) (
            Int32, UnsafePointer<CChar>, Int32, UnsafePointer<CChar>, UInt32
        ) -> Int32

    /// glibc (2.28+) has `renameat2`, but its prototype needs `_GNU_SOURCE`, which Swift's Glibc module does not
    /// define; it is looked up once by name instead. `RENAME_NOREPLACE` is 1 (`<linux/fs.h>`).
    private static let renameAt2: RenameAt2? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "renameat2") else { return nil }
        return unsafeBitCast(symbol, to: RenameAt2.self)
    }()
    private static let renameNoReplace: UInt32 = 1

    /// Renames `source` to `destination` unless `destination` exists. Throws `EXDEV` across file systems (see
    /// ``moveWithoutReplacing(from:to:)``) and any other error of the calls.
    public static func renameWithoutReplacing(from source: String, to destination: String) throws(SystemError)
        -> Outcome
    {
        if let renameAt2 {
            if renameAt2(AT_FDCWD, source, AT_FDCWD, destination, renameNoReplace) == 0 { return .moved }
            let code = errno
            switch code {
            case EEXIST: return .destinationExists
            case EINVAL, ENOSYS: break  // the file system (or kernel) lacks RENAME_NOREPLACE: link + unlink
            default: throw SystemError(code: code, call: "renameat2", path: source)
            }
        }
        if link(source, destination) != 0 {
            let code = errno
            if code == EEXIST { return .destinationExists }
            throw SystemError(code: code, call: "link", path: source)
        }
        guard unlink(source) == 0 else { throw SystemError.current("unlink", path: source) }
        return .moved
    }

    /// Moves `source` to `destination` unless it exists, copying when they are on different file systems.
    public static func moveWithoutReplacing(from source: String, to destination: String) throws(SystemError)
        -> Outcome
    {
        do {
            return try renameWithoutReplacing(from: source, to: destination)
        } catch  where error.code == EXDEV {
            return try copyWithoutReplacing(from: source, to: destination, removingSource: true)
        }
    }

    /// Copies `source` to `destination` (data, permission bits and modification time) unless `destination`
    /// exists, through a synced temp file; with `removingSource` the source is unlinked once the copy is in place.
    public static func copyWithoutReplacing(from source: String, to destination: String, removingSource: Bool)
        throws(SystemError) -> Outcome
    {
        let input = retryingOnInterrupt { open(source, O_RDONLY | O_CLOEXEC | O_NOFOLLOW) }
        guard input >= 0 else { throw SystemError.current("open", path: source) }
        defer { close(input) }
        var info = stat()
        guard fstat(input, &info) == 0 else { throw SystemError.current("fstat", path: source) }

        let directory = PathResolution.directory(of: destination)
        let temporary = PathResolution.join(
            directory,
            ".\(PathResolution.lastComponent(of: destination)).photodrop-copy-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        )
        let output = retryingOnInterrupt {
            open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode_t(info.st_mode & 0o777))
        }
        guard output >= 0 else { throw SystemError.current("open", path: temporary) }
        var keepTemporary = false
        defer { if !keepTemporary { unlink(temporary) } }
        do {
            defer { close(output) }
            try copyData(from: input, to: output, source: source, destination: temporary)
            var times = [info.st_atim, info.st_mtim]
            _ = futimens(output, &times)
            guard fsync(output) == 0 else { throw SystemError.current("fsync", path: temporary) }
        }
        let outcome = try renameWithoutReplacing(from: temporary, to: destination)
        guard outcome == .moved else { return .destinationExists }
        keepTemporary = true  // it is the destination now
        syncDirectory(directory)
        if removingSource {
            guard unlink(source) == 0 else { throw SystemError.current("unlink", path: source) }
        }
        return .moved
    }

    /// `fsync` on a folder, so that a rename or a new entry in it survives a power loss. Best effort.
    public static func syncDirectory(_ path: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return }
        _ = fsync(fd)
        close(fd)
    }

    private static func copyData(from input: Int32, to output: Int32, source: String, destination: String)
        throws(SystemError)
    {
        let size = 1 << 20
        let buffer = UnsafeMutableRawPointer.allocate(byteCount: size, alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            let count = retryingOnInterrupt { read(input, buffer, size) }
            if count < 0 { throw SystemError.current("read", path: source) }
            if count == 0 { return }
            var written = 0
            while written < count {
                let result = retryingOnInterrupt { write(output, buffer + written, count - written) }
                if result < 0 { throw SystemError.current("write", path: destination) }
                written += result
            }
        }
    }
}
