import FoundationEssentials

/// What one `performChanges` block did, returned when it committed.
public struct ChangeReport: Sendable, Hashable {
    /// The persistent change token of this commit; nil when the block changed no asset or album (e.g. only the
    /// journal), so no history was written.
    public let changeToken: PersistentChangeToken?
    /// When the transaction committed (the time in the change log, millisecond precision); nil when nothing was written.
    public let commitDate: Date?
    /// One outcome per creation request, in the order the requests were made.
    public let assetCreations: [AssetCreationOutcome]
    /// Identifiers of the albums the block created, in order.
    public let createdCollectionIdentifiers: [String]

    /// How many creation requests made new assets.
    public var createdAssetCount: Int { assetCreations.count { !$0.isDuplicate } }
    /// How many creation requests resolved to assets already in the library.
    public var duplicateCount: Int { assetCreations.count { $0.isDuplicate } }
}

/// What became of one creation request.
public struct AssetCreationOutcome: Sendable, Hashable {
    /// The asset's identifier: the new asset's, or for a duplicate the existing one's.
    public let localIdentifier: String
    /// Whether the content was already in the library (or in an earlier request of the same block).
    public let isDuplicate: Bool
    /// Whether the duplicate was in Recently Deleted and has been restored.
    public let restoredFromRecentlyDeleted: Bool
    /// The paths of the files given to `addResource`, in order.
    public let sourcePaths: [String]
    /// The absolute paths of the stored originals this request created (empty for a duplicate, unless it repaired
    /// the stored original).
    public let storedPaths: [String]
    /// For a duplicate whose stored original was missing or damaged: the repair its file made (a photodrop addition).
    public let repairedOriginal: RepairedOriginal?
    /// The secondary resources (a paired video, a RAW, a sidecar …) whose content the library already stored, so that
    /// they were not stored again: their source paths, in order (a photodrop addition).
    public let alreadyStoredSourcePaths: [String]

    /// An outcome.
    public init(
        localIdentifier: String, isDuplicate: Bool, restoredFromRecentlyDeleted: Bool, sourcePaths: [String],
        storedPaths: [String], repairedOriginal: RepairedOriginal? = nil, alreadyStoredSourcePaths: [String] = []
    ) {
        self.alreadyStoredSourcePaths = alreadyStoredSourcePaths
        self.localIdentifier = localIdentifier
        self.isDuplicate = isDuplicate
        self.restoredFromRecentlyDeleted = restoredFromRecentlyDeleted
        self.sourcePaths = sourcePaths
        self.storedPaths = storedPaths
        self.repairedOriginal = repairedOriginal
    }

    /// The files given to `addResource`, in order.
    public var sourceURLs: [URL] { sourcePaths.map { URL(fileURLWithPath: $0, isDirectory: false) } }
    /// The stored originals this request created (empty for a duplicate).
    public var storedURLs: [URL] { storedPaths.map { URL(fileURLWithPath: $0, isDirectory: false) } }
}

/// A stored original that a duplicate's file replaced because it was missing, of the wrong size or known damaged (a
/// photodrop addition: PhotoKit never shows its store). The damaged file, if there was one, is kept, never overwritten.
public struct RepairedOriginal: Sendable, Hashable {
    /// The stored original, now the duplicate's bytes again (absolute).
    public let path: String
    /// What was wrong, for people ("its stored original was missing").
    public let problem: String
    /// Where the damaged file was put (`Library/damaged/…`), or nil when nothing was there.
    public let damagedFileKeptAt: String?
}
