import Glibc
import CLinux

/// What `statx(2)` reports about a file: what `stat(2)` does, plus the birth time where the file system records it
/// (ext4, btrfs, XFS, tmpfs since Linux 5.19 …), and `AT_STATX_DONT_SYNC` for network file systems.
public struct ExtendedFileStatus: Sendable, Equatable {
    /// A file time: seconds since the epoch and nanoseconds.
    public typealias Time = FileTime

    public var mode: UInt32
    public var linkCount: UInt32
    public var owner: UInt32
    public var group: UInt32
    public var node: FileNode
    public var size: Int64
    /// 512-byte blocks allocated (less than the size for a file with holes).
    public var allocatedBlocks: UInt64
    /// When the file was created; nil where the file system does not record it.
    public var birth: Time?
    public var modification: Time
    public var statusChange: Time

    /// Whether it is a regular file.
    public var isRegularFile: Bool { mode & UInt32(S_IFMT) == UInt32(S_IFREG) }

    /// `statx` of `path` (relative to `directory`, or to the working folder), not following a final symbolic link
    /// unless `followLinks`.
    public static func of(
        _ path: String, in directory: Int32 = AT_FDCWD, followLinks: Bool = false
    ) throws(SystemError) -> ExtendedFileStatus {
        try query(directory, path, followLinks ? 0 : AT_SYMLINK_NOFOLLOW, path: path)
    }

    /// `statx` of an open file (`AT_EMPTY_PATH`).
    public static func of(_ descriptor: FileDescriptor, path: String? = nil) throws(SystemError) -> ExtendedFileStatus {
        try query(descriptor.rawValue, "", photodrop_AT_EMPTY_PATH, path: path)
    }

    private static func query(
        _ directory: Int32, _ name: String, _ flags: Int32, path: String?
    ) throws(SystemError) -> ExtendedFileStatus {
        var raw = photodrop_statx_result()
        let mask = photodrop_STATX_BASIC_STATS | photodrop_STATX_BTIME
        let result = retryingOnInterrupt {
            FileNameEncoding.withPlatformString(name) { photodrop_statx(directory, $0, flags, mask, &raw) }
        }
        guard result == 0 else { throw SystemError.current("statx", path: path) }
        let hasBirth = raw.mask & photodrop_STATX_BTIME != 0
        return ExtendedFileStatus(
            mode: raw.mode, linkCount: raw.nlink, owner: raw.uid, group: raw.gid,
            node: FileNode(device: deviceNumber(major: raw.dev_major, minor: raw.dev_minor), inode: raw.ino),
            size: Int64(raw.size), allocatedBlocks: raw.blocks,
            birth: hasBirth ? Time(seconds: raw.birth_sec, nanoseconds: raw.birth_nsec) : nil,
            modification: Time(seconds: raw.modification_sec, nanoseconds: raw.modification_nsec),
            statusChange: Time(seconds: raw.change_sec, nanoseconds: raw.change_nsec))
    }

    /// glibc's `makedev`: the `st_dev` that `stat(2)` reports for a device's major and minor numbers.
    static func deviceNumber(major: UInt32, minor: UInt32) -> UInt64 {
        let major = UInt64(major)
        let minor = UInt64(minor)
        return ((major & 0xffff_f000) << 32) | ((major & 0x0000_0fff) << 8) | ((minor & 0xffff_ff00) << 12)
            | (minor & 0x0000_00ff)
    }
}
