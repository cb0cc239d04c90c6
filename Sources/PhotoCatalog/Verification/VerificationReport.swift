/// What ``PhotoLibrary/verify(deep:readOnly:)`` found: every inconsistency between the catalog and the files, and how much it
/// looked at.
public struct VerificationReport: Sendable, Hashable {
    /// Every problem found, grouped by kind in the order of ``VerificationIssue/Kind``, then by path.
    public var issues: [VerificationIssue]
    /// Whether the SHA-256 of every original was recomputed (and SQLite ran its full `integrity_check` rather than
    /// `quick_check`).
    public var isDeep: Bool
    /// Assets in the catalog (including hidden ones and those in Recently Deleted).
    public var assetCount: Int
    /// Stored originals the catalog refers to.
    public var originalCount: Int
    /// Files found under `originals/`.
    public var filesOnDisk: Int
    /// Bytes read to recompute hashes (0 unless deep).
    public var hashedBytes: Int64
    /// Files that writers which are still running are placing or removing right now; they are neither orphans nor
    /// missing, and are not problems.
    public var changesInFlight: Int
    /// Something a person should know that is not a problem of the library itself (the damage a deep check found
    /// could not be recorded in the catalog, for example for a user who may only read it).
    public var note: String?

    /// A report.
    public init(
        issues: [VerificationIssue], isDeep: Bool, assetCount: Int, originalCount: Int, filesOnDisk: Int,
        hashedBytes: Int64, changesInFlight: Int, note: String? = nil
    ) {
        self.note = note
        self.issues = issues
        self.isDeep = isDeep
        self.assetCount = assetCount
        self.originalCount = originalCount
        self.filesOnDisk = filesOnDisk
        self.hashedBytes = hashedBytes
        self.changesInFlight = changesInFlight
    }

    /// Whether nothing is wrong.
    public var isClean: Bool { issues.isEmpty }

    /// The issues of one kind.
    public func issues(of kind: VerificationIssue.Kind) -> [VerificationIssue] { issues.filter { $0.kind == kind } }
}
