/// A claimed file the committer put back into the inbox instead of finishing it; the watch loop tracks it again.
public struct Deferral: Sendable {
    /// Why it went back.
    public enum Reason: Sendable {
        /// It probed as truncated: wait for the incomplete-file grace period (``SettleTracker/markIncomplete``); the
        /// verdict is kept so that the unchanged file is not read again when the period ends.
        case incomplete(IncompleteVerdict)
        /// It changed after it settled: settle again.
        case changed
        /// An I/O or database error: try again after a back-off.
        case failed(IngestFailure)
    }

    /// Where it is now, relative to the inbox.
    public var path: String
    /// Why it went back.
    public var reason: Reason

    /// A deferral.
    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }
}
