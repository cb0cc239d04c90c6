/// One file on its way through the pipeline: where to read it, how people know it, and where it goes.
public struct IngestJob: Sendable {
    /// The file to read: the staged copy below `.photodrop/claimed/` (watch) or the source itself (import).
    public var path: String
    /// How logs and reports name the file: relative to the inbox (watch), or the path as found (import).
    public var displayPath: String
    /// The album title (NFC), or nil for "library only".
    public var album: String?
    /// The file's name as it arrived: the asset's original filename, and its name in `Rejected/`.
    public var originalName: String
    /// The claim journal entry (watch only).
    public var claimID: Int64?
    /// The identity the file must still have when it is read (watch: what the settle step saw); nil to accept any.
    public var expectedIdentity: FileIdentity?
    /// The incomplete-file grace period is over: a truncated file is rejected as `corrupt` instead of waiting.
    public var graceExpired: Bool
    /// When the pipeline took the file, for the duration in its log line.
    public var startedAt: ContinuousClock.Instant

    /// A job.
    public init(
        path: String, displayPath: String, album: String?, originalName: String, claimID: Int64? = nil,
        expectedIdentity: FileIdentity? = nil, graceExpired: Bool = false,
        startedAt: ContinuousClock.Instant = .now
    ) {
        self.path = path
        self.displayPath = displayPath
        self.album = album
        self.originalName = originalName
        self.claimID = claimID
        self.expectedIdentity = expectedIdentity
        self.graceExpired = graceExpired
        self.startedAt = startedAt
    }
}
