/// What the probe found wrong with a file that looked like an interrupted upload (truncated), and which file it was:
/// remembered while the file waits out its grace period, so that the same unchanged file is rejected at the end
/// without being read a second time (a 5 GB upload that never resumed is hashed once, not twice).
///
/// A class (immutable, so `Sendable`): every job carries an optional verdict, and a reference keeps the thousands of
/// jobs in the pipeline's queues 80 bytes smaller each than the value would.
public final class IncompleteVerdict: Sendable, Hashable {
    /// The file as it was read: a verdict holds only while device, inode, size and mtime are unchanged.
    public let identity: FileIdentity
    /// The rejection code the file gets if it stays like this (`corrupt`).
    public let code: String
    /// What is wrong, for `reason.json`.
    public let message: String
    /// The MIME type libmagic reported.
    public let mime: String?

    public init(identity: FileIdentity, code: String, message: String, mime: String?) {
        self.identity = identity
        self.code = code
        self.message = message
        self.mime = mime
    }

    public static func == (lhs: IncompleteVerdict, rhs: IncompleteVerdict) -> Bool {
        lhs.identity == rhs.identity && lhs.code == rhs.code && lhs.message == rhs.message && lhs.mime == rhs.mime
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(identity)
        hasher.combine(code)
    }
}
