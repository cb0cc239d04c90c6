/// What the probe found wrong with a file that looked like an interrupted upload (truncated), and which file it was:
/// remembered while the file waits out its grace period, so that the same unchanged file is rejected at the end
/// without being read a second time (a 5 GB upload that never resumed is hashed once, not twice).
public struct IncompleteVerdict: Sendable, Hashable {
    /// The file as it was read: a verdict holds only while device, inode, size and mtime are unchanged.
    public var identity: FileIdentity
    /// The rejection code the file gets if it stays like this (`corrupt`).
    public var code: String
    /// What is wrong, for `reason.json`.
    public var message: String
    /// The MIME type libmagic reported.
    public var mime: String?

    public init(identity: FileIdentity, code: String, message: String, mime: String?) {
        self.identity = identity
        self.code = code
        self.message = message
        self.mime = mime
    }
}
