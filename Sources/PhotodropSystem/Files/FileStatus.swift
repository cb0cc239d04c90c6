import Glibc

/// A point in time as a file system records it: seconds and nanoseconds since 1970 (UTC).
public struct FileTime: Sendable, Hashable, Comparable {
    public var seconds: Int64
    public var nanoseconds: UInt32

    public init(seconds: Int64, nanoseconds: UInt32) {
        self.seconds = seconds
        self.nanoseconds = nanoseconds
    }

    init(_ time: timespec) {
        self.init(seconds: Int64(time.tv_sec), nanoseconds: UInt32(truncatingIfNeeded: time.tv_nsec))
    }

    var timespec: Glibc.timespec { Glibc.timespec(tv_sec: Int(seconds), tv_nsec: Int(nanoseconds)) }

    /// Seconds since 1970, with the fraction.
    public var secondsSince1970: Double { Double(seconds) + Double(nanoseconds) / 1e9 }

    public static func < (lhs: FileTime, rhs: FileTime) -> Bool {
        (lhs.seconds, lhs.nanoseconds) < (rhs.seconds, rhs.nanoseconds)
    }
}

/// What `stat(2)` says of a file, in Swift's terms.
public struct FileStatus: Sendable, Hashable {
    /// What kind of thing is at the name.
    public enum Kind: Sendable, Hashable {
        case regular, directory, symbolicLink, other
    }

    /// `st_mode`: the kind's bits and the permission bits.
    public var mode: UInt32
    public var size: Int64
    public var node: FileNode
    public var linkCount: UInt64
    public var owner: UInt32
    public var group: UInt32
    /// `st_blocks`: 512-byte units actually allocated.
    public var allocatedBlocks: Int64
    public var access: FileTime
    public var modification: FileTime
    public var statusChange: FileTime

    public init(
        mode: UInt32, size: Int64 = 0, node: FileNode, linkCount: UInt64 = 1, owner: UInt32 = 0, group: UInt32 = 0,
        allocatedBlocks: Int64 = 0, access: FileTime = FileTime(seconds: 0, nanoseconds: 0),
        modification: FileTime = FileTime(seconds: 0, nanoseconds: 0),
        statusChange: FileTime = FileTime(seconds: 0, nanoseconds: 0)
    ) {
        self.mode = mode
        self.size = size
        self.node = node
        self.linkCount = linkCount
        self.owner = owner
        self.group = group
        self.allocatedBlocks = allocatedBlocks
        self.access = access
        self.modification = modification
        self.statusChange = statusChange
    }

    public init(_ raw: stat) {
        mode = raw.st_mode
        size = Int64(raw.st_size)
        node = FileNode(device: UInt64(raw.st_dev), inode: UInt64(raw.st_ino))
        linkCount = UInt64(raw.st_nlink)
        owner = raw.st_uid
        group = raw.st_gid
        allocatedBlocks = Int64(raw.st_blocks)
        access = FileTime(raw.st_atim)
        modification = FileTime(raw.st_mtim)
        statusChange = FileTime(raw.st_ctim)
    }

    public var kind: Kind {
        switch mode & S_IFMT {
        case S_IFREG: .regular
        case S_IFDIR: .directory
        case S_IFLNK: .symbolicLink
        default: .other
        }
    }

    public var isRegularFile: Bool { kind == .regular }
    public var isDirectory: Bool { kind == .directory }
    public var isSymbolicLink: Bool { kind == .symbolicLink }
    /// The permission bits (`0o7777`: set-id, sticky, rwx for owner, group, others).
    public var permissions: UInt32 { mode & 0o7777 }
}
