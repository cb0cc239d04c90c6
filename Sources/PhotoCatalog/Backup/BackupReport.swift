/// What ``LibraryBackup/run()`` did (a photodrop addition).
public struct BackupReport: Sendable {
    /// The backup's folder: `DEST/<name>` when complete, `DEST/<name>.incomplete` otherwise.
    public var path: String
    /// The backup's name (its start time), without the incomplete suffix.
    public var name: String
    /// Whether the backup was verified and renamed to its final name.
    public var isComplete: Bool
    /// The backup whose unchanged files were hard-linked, or nil when there was none.
    public var previousPath: String?
    /// Assets in the snapshot (Recently Deleted included).
    public var assetCount = 0
    /// Originals and derivatives the backup records.
    public var originalCount = 0
    public var derivativeCount = 0
    /// Files hard-linked from the previous backup, and their bytes.
    public var linkedFiles = 0
    public var linkedBytes: Int64 = 0
    /// Files copied from the library, and their bytes.
    public var copiedFiles = 0
    public var copiedBytes: Int64 = 0
    /// The size of the catalog's copy.
    public var databaseBytes: Int64 = 0
    /// Thumbnails and previews that vanished from the library during the backup (a rebuild replaced them, or a purge
    /// removed them); the backup's catalog does not record them, and `photodrop thumbnails` makes them again.
    public var derivativesLeftOut = 0
    /// Why the backup is not complete (empty when it is).
    public var problems: [BackupProblem] = []
    /// The check of the finished backup (nil when the backup stopped before it).
    public var verification: VerificationReport?
    /// How long it took, in seconds.
    public var seconds: Double = 0
}
