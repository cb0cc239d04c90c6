import FoundationEssentials

/// A record about a file, kept for a while (``HistoryRetention/fileRecordAge``, 30 days by default) and found by the
/// file's device and inode: what an application noted about a file it handed to the library or took from it (an
/// upload received, the outcome of ingesting a file). The catalog does not interpret kinds or payloads.
public struct FileRecord: Sendable, Hashable {
    /// A record to append: its id and time are given when it is written.
    public struct Draft: Sendable, Hashable {
        public var kind: String
        public var device: UInt64
        public var inode: UInt64
        public var payload: Data

        public init(kind: String, device: UInt64, inode: UInt64, payload: Data) {
            self.kind = kind
            self.device = device
            self.inode = inode
            self.payload = payload
        }
    }

    /// Increasing in commit order (never reused).
    public let id: Int64
    public let kind: String
    public let device: UInt64
    public let inode: UInt64
    /// When it was written (millisecond precision).
    public let recordedAt: Date
    public let payload: Data
}
