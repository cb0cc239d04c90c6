import Glibc
/// An open file descriptor and the system calls photodrop makes on one, each retried on `EINTR` and failing with a
/// ``SystemError`` that names the call and, when given, the path.
///
/// An owning descriptor (``init(owning:)``) is closed (`close(2)`) when the last reference to it goes away; a
/// borrowed one (``init(borrowing:)``) is left open for its owner.
///
/// `Sendable`: the descriptor number never changes and is only closed in `deinit`, when nobody can use it any more;
/// the kernel serialises concurrent calls on one descriptor.
public final class FileDescriptor: Sendable {
    /// The descriptor number.
    public let rawValue: Int32
    private let owned: Bool

    /// Takes ownership of `rawValue` (≥ 0).
    public init(owning rawValue: Int32) {
        precondition(rawValue >= 0, "FileDescriptor needs an open descriptor")
        self.rawValue = rawValue
        owned = true
    }

    /// Uses `rawValue` without owning it: it is not closed here.
    public init(borrowing rawValue: Int32) {
        self.rawValue = rawValue
        owned = false
    }

    deinit {
        if owned { _ = close(rawValue) }
    }

    /// `fstat(2)`.
    public func status(path: String? = nil) throws(SystemError) -> FileStatus {
        var info = stat()
        guard retryingOnInterrupt({ fstat(rawValue, &info) }) == 0 else {
            throw SystemError.current("fstat", path: path)
        }
        return FileStatus(info)
    }

    /// `fsync(2)`.
    public func sync(path: String? = nil) throws(SystemError) {
        guard retryingOnInterrupt({ fsync(rawValue) }) == 0 else { throw SystemError.current("fsync", path: path) }
    }

    /// `fdatasync(2)`.
    public func syncData(path: String? = nil) throws(SystemError) {
        guard retryingOnInterrupt({ fdatasync(rawValue) }) == 0 else {
            throw SystemError.current("fdatasync", path: path)
        }
    }

    /// `read(2)`: the bytes read into `buffer`, 0 at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, path: String? = nil) throws(SystemError) -> Int {
        try FileSystem.check("read", path) { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// `pread(2)`: the bytes read into `buffer` from `offset`, 0 at the end of the file.
    public func read(
        into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String? = nil
    ) throws(SystemError) -> Int {
        try FileSystem.check("pread", path) { pread(rawValue, buffer.baseAddress, buffer.count, off_t(offset)) }
    }

    /// Reads into `buffer` from `offset` until it is full or the file ends: the bytes read.
    public func readFully(
        into buffer: UnsafeMutableRawBufferPointer, at offset: Int64, path: String? = nil
    ) throws(SystemError) -> Int {
        var done = 0
        while done < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]),
                                 at: offset + Int64(done), path: path)
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// `write(2)`: the bytes written.
    public func write(_ bytes: UnsafeRawBufferPointer, path: String? = nil) throws(SystemError) -> Int {
        try FileSystem.check("write", path) { Glibc.write(rawValue, bytes.baseAddress, bytes.count) }
    }

    /// `pwrite(2)`: the bytes written at `offset`.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64, path: String? = nil) throws(SystemError)
        -> Int
    {
        try FileSystem.check("pwrite", path) { pwrite(rawValue, bytes.baseAddress, bytes.count, off_t(offset)) }
    }

    /// Writes all of `bytes` (at `offset` when given, else at the file position); a write that makes no progress
    /// fails with `EIO`.
    public func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: Int64? = nil, path: String? = nil)
        throws(SystemError)
    {
        var done = 0
        while done < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
            let count: Int
            if let offset { count = try write(rest, at: offset + Int64(done), path: path) } else {
                count = try write(rest, path: path)
            }
            if count <= 0 { throw SystemError(code: .ioError, call: offset == nil ? "write" : "pwrite", path: path) }
            done += count
        }
    }

    /// `ftruncate(2)`.
    public func truncate(to size: Int64, path: String? = nil) throws(SystemError) {
        try FileSystem.check("ftruncate", path) { ftruncate(rawValue, off_t(size)) }
    }

    /// `fchmod(2)`.
    public func setPermissions(_ permissions: UInt32, path: String? = nil) throws(SystemError) {
        try FileSystem.check("fchmod", path) { fchmod(rawValue, permissions) }
    }

    /// `fchown(2)`; nil leaves that id as it is.
    public func setOwner(_ owner: UInt32?, group: UInt32?, path: String? = nil) throws(SystemError) {
        try FileSystem.check("fchown", path) { fchown(rawValue, owner ?? UInt32.max, group ?? UInt32.max) }
    }

    /// `futimens(2)`: the access and modification times (nil leaves one as it is).
    public func setTimes(access: FileTime?, modification: FileTime?, path: String? = nil) throws(SystemError) {
        let omit = Glibc.timespec(tv_sec: 0, tv_nsec: (1 << 30) - 2)  // UTIME_OMIT, a macro Swift does not import
        var times = [access?.timespec ?? omit, modification?.timespec ?? omit]
        try FileSystem.check("futimens", path) { futimens(rawValue, &times) }
    }

    /// What the file's pages will be used for (`posix_fadvise(2)`); advice only, so a failure is ignored.
    public enum Advice: Sendable {
        case sequential, dontNeed, willNeed
    }

    /// `posix_fadvise(2)` over `length` bytes from `offset` (0: to the end).
    public func advise(_ advice: Advice, offset: Int64 = 0, length: Int64 = 0) {
        let value: Int32 =
            switch advice {
            case .sequential: POSIX_FADV_SEQUENTIAL
            case .dontNeed: POSIX_FADV_DONTNEED
            case .willNeed: POSIX_FADV_WILLNEED
            }
        _ = posix_fadvise(rawValue, off_t(offset), off_t(length), value)
    }

    /// An advisory whole-file lock (`flock(2)`).
    public enum LockKind: Sendable {
        case shared, exclusive
    }

    /// Takes `kind` of lock: waits for it when `wait`, else returns false when another open file holds a lock
    /// that conflicts.
    public func lock(_ kind: LockKind, wait: Bool, path: String? = nil) throws(SystemError) -> Bool {
        let operation = (kind == .shared ? LOCK_SH : LOCK_EX) | (wait ? 0 : LOCK_NB)
        if retryingOnInterrupt({ flock(rawValue, operation) }) == 0 { return true }
        let code = Errno.current
        if !wait && code == .wouldBlock { return false }
        throw SystemError(code: code, call: "flock", path: path)
    }

    /// Gives up this descriptor's `flock(2)` lock.
    public func unlock() {
        _ = retryingOnInterrupt { flock(rawValue, LOCK_UN) }
    }

    /// `dup(2)` with close-on-exec, as a bare number whose ownership passes to the caller: for a C library that
    /// closes the descriptor it is given. Nil when no descriptor is left.
    public func duplicateForHandOver() -> Int32? {
        let copy = fcntl(rawValue, F_DUPFD_CLOEXEC, 0)
        return copy >= 0 ? copy : nil
    }

    /// Whether the descriptor is a terminal (`isatty`).
    public var isTerminal: Bool { isatty(rawValue) == 1 }

    /// The terminal's width in columns (`TIOCGWINSZ`), if it is a terminal that knows it.
    public var terminalColumns: Int? {
        var size = winsize()
        guard ioctl(rawValue, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

}

/// A file's device and inode: what says "the same file" across renames, and "not the same file" after a replacement.
public struct FileNode: Sendable, Hashable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64

    public init(device: UInt64, inode: UInt64) {
        self.device = device
        self.inode = inode
    }


    public var description: String { "inode \(inode) on device \(device)" }
}

extension FileDescriptor {
    /// The process's standard output and error (borrowed: never closed here).
    public static let standardOutput = FileDescriptor(borrowing: 1)
    public static let standardError = FileDescriptor(borrowing: 2)
}

extension FileDescriptor {
    /// Reads from the file position to the end, or until more than `limit` bytes were read (then the first chunk
    /// past the limit ends it: the caller sees a result longer than `limit`).
    public func readToEnd(limit: Int, path: String? = nil) throws(SystemError) -> [UInt8] {
        var bytes: [UInt8] = []
        let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: 64 * 1024, alignment: 16)
        defer { chunk.deallocate() }
        while bytes.count <= limit {
            let count = try read(into: chunk, path: path)
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
        }
        return bytes
    }
}
