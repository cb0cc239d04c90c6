import FoundationEssentials
import PhotoCatalog
import PhotodropSystem
import PhotodropTelemetry

/// What the settle logic compares between two looks at a file: device, inode, size and modification time.
///
/// Two equal identities mean "the same file, with no visible change in between". The inode catches a file
/// replaced by a rename; size and mtime (with nanoseconds) catch writes.
public struct FileIdentity: Sendable, Hashable, CustomStringConvertible {
    public var device: UInt64
    public var inode: UInt64
    public var size: Int64
    var modificationTime: UTCTimestamp

    public init(device: UInt64, inode: UInt64, size: Int64, modificationTime: UTCTimestamp) {
        self.device = device
        self.inode = inode
        self.size = size
        self.modificationTime = modificationTime
    }

    /// The identity in a `stat` result.
    public init(_ info: FileStatus) {
        self.device = info.node.device
        self.inode = info.node.inode
        self.size = info.size
        self.modificationTime = UTCTimestamp(
            seconds: Int64(info.modification.seconds), nanoseconds: Int32(info.modification.nanoseconds))
    }

    public var description: String {
        "inode \(inode) on device \(device), \(size) bytes, modified \(modificationTime)"
    }

    /// The identity as the library records it for a resource: what the file was while its bytes were hashed, so
    /// the library need not `stat` it again.
    var resourceFileStatus: ResourceFileStatus {
        ResourceFileStatus(
            byteCount: size, device: device, inode: inode,
            modificationDate: Date(
                timeIntervalSince1970: Double(modificationTime.seconds) + Double(modificationTime.nanoseconds) / 1e9))
    }
}
