import CLinux
import Glibc

/// What kind of file system a path is on, as `statfs(2)` tells it: whether inotify sees every change there.
///
/// inotify reports what this kernel does to a file. On a file system other machines write to as well (NFS, SMB/CIFS,
/// CephFS, a FUSE mount, a cluster file system), a file another machine writes makes no event here: such a folder
/// must be polled.
public struct FileSystemKind: Sendable, Hashable, CustomStringConvertible {
    /// `statfs`'s `f_type`.
    public let magic: UInt

    public init(magic: UInt) { self.magic = magic }

    /// The kind of the file system holding `path`.
    public static func of(_ path: String) throws(SystemError) -> FileSystemKind {
        var type: UInt = 0
        let result = path.withCString { text in retryingOnInterrupt { photodrop_statfs_type(text, &type) } }
        guard result == 0 else { throw SystemError(code: Errno(rawValue: errno), call: "statfs", path: path) }
        return FileSystemKind(magic: type & 0xFFFF_FFFF)
    }

    /// File systems whose files other machines change: NFS, SMB/CIFS (both dialects), CephFS, FUSE (sshfs, rclone,
    /// GlusterFS's client), 9p, AFS, Coda, Lustre, GPFS, GFS2, OCFS2.
    static let remote: [UInt: String] = [
        0x6969: "nfs", 0x517B: "smb", 0xFF53_4D42: "cifs", 0xFE53_4D42: "smb2", 0x00C3_6400: "ceph",
        0x6573_5546: "fuse", 0x0102_1997: "9p", 0x5346_414F: "afs", 0x7375_7245: "coda", 0x0BD0_0BD0: "lustre",
        0x4750_4653: "gpfs", 0x0116_1970: "gfs2", 0x7461_636F: "ocfs2",
    ]

    /// Whether other machines may write there unseen by inotify.
    public var isRemote: Bool { Self.remote[magic] != nil }

    /// The file system's name when it is one of the remote kinds, else its magic number in hex.
    public var description: String { Self.remote[magic] ?? "0x" + NumberText.hex(UInt64(magic), width: 1) }
}
