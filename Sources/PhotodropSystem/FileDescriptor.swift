/// An open file descriptor that is closed (`close(2)`) when the last reference to it goes away.
///
/// `Sendable`: the descriptor number never changes and is only closed in `deinit`, when nobody can use it any more;
/// the kernel serialises concurrent calls on one descriptor.
public final class FileDescriptor: Sendable {
    /// The descriptor number.
    public let rawValue: Int32

    /// Takes ownership of `rawValue` (≥ 0).
    public init(owning rawValue: Int32) {
        precondition(rawValue >= 0, "FileDescriptor needs an open descriptor")
        self.rawValue = rawValue
    }

    deinit {
        _ = close(rawValue)
    }

    /// `fstat(2)`.
    public func status(path: String? = nil) throws(SystemError) -> stat {
        var info = stat()
        guard retryingOnInterrupt({ fstat(rawValue, &info) }) == 0 else {
            throw SystemError.current("fstat", path: path)
        }
        return info
    }

    /// `fsync(2)`.
    public func sync(path: String? = nil) throws(SystemError) {
        guard retryingOnInterrupt({ fsync(rawValue) }) == 0 else { throw SystemError.current("fsync", path: path) }
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

    /// The node of a `stat` result.
    public init(_ info: stat) {
        self.init(device: UInt64(info.st_dev), inode: UInt64(info.st_ino))
    }

    public var description: String { "inode \(inode) on device \(device)" }
}
