import MediaProbe

/// What a worker learned about one file by reading it once: the pipeline's input to the committer.
public enum WorkerFinding: Sendable {
    /// Accepted by the probe; stored as a new asset unless its SHA-256 is already in the library.
    case accepted(ProbeResult, FileDigest)
    /// Its SHA-256 is already stored (the probe was skipped): a duplicate of that asset.
    case known(FileDigest, KnownContent)
    /// Rejected by content (unsupported, corrupt, empty, or truncated after the grace period).
    case rejected(ProbeResult, FileDigest)
    /// Truncated (an upload that may resume) and still within the grace period.
    case truncated(ProbeResult, FileIdentity)
    /// Judged truncated before, its grace period over, and unchanged since: rejected without being read again.
    case stillIncomplete(IncompleteVerdict)
    /// The file changed since it settled, or while it was being read: a writer is still at work.
    case changed
    /// It could not be read or probed.
    case failed(IngestFailure)
}

/// A job and what its worker found.
public struct WorkerOutput: Sendable {
    /// The job.
    public var job: IngestJob
    /// What its worker found.
    public var finding: WorkerFinding

    /// An output.
    public init(job: IngestJob, finding: WorkerFinding) {
        self.job = job
        self.finding = finding
    }
}

/// An asset that already stores a file's content, as a content lookup found it.
public struct KnownContent: Sendable, Hashable {
    /// The asset's identifier.
    public var assetID: String
    /// The stored resource's MIME type (the same bytes, so the same type).
    public var mime: String?
    /// Whether the asset is a video.
    public var isVideo: Bool
    /// Whether the library plays the asset as an animated image (what it makes of a GIF).
    public var isAnimated: Bool
    /// Whether the asset is already in the file's album (or the file has none): nothing is left to do but report.
    public var isComplete: Bool

    /// Known content.
    public init(assetID: String, mime: String?, isVideo: Bool, isAnimated: Bool = false, isComplete: Bool = false) {
        self.assetID = assetID
        self.mime = mime
        self.isVideo = isVideo
        self.isAnimated = isAnimated
        self.isComplete = isComplete
    }
}
