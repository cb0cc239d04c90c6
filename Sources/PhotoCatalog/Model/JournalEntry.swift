import FoundationEssentials

/// One entry of the library's application journal: an opaque payload of a kind, with the time it was appended.
public struct JournalEntry: Sendable, Hashable {
    /// The entry's id, increasing in append order.
    public let id: Int64
    /// The kind given when it was appended.
    public let kind: String
    /// The bytes given when it was appended (or last updated).
    public let payload: Data
    /// When it was appended (millisecond precision).
    public let createdAt: Date
}
