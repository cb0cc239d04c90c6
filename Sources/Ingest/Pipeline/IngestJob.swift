import PhotodropSystem
import Uploads

/// One file on its way through the pipeline, the one value that travels from the settle step to the commit: where to
/// read it, how people know it, and where it goes. The settle step makes it (``init(settledAt:in:identity:graceExpired:incompleteVerdict:)``),
/// the claim fills in what the claim decides (its journal entry, album, same-stem siblings, staged location; what
/// survives a crash is its ``ClaimPayload``), the workers read it and the committer finishes it.
public struct IngestJob: Sendable {
    /// The file to read, named against an open folder: the file in the inbox until it is claimed, then the staged
    /// file below `.photodrop/claimed/` (watch), or the source below its import root (import). Nothing resolves its
    /// path from the top again.
    public var source: FileLocation
    /// The file's path, for messages.
    public var path: String { source.path }
    /// How logs and reports name the file: relative to the inbox (watch), or the path as found (import).
    var displayPath: String
    /// The folder the file was found in, relative to the inbox (watch) or the import root (import), `""` at the top:
    /// files of one folder pair, and a stored asset records it in its pairing key (``StoredPartners``).
    public let folder: String
    /// The file's pairing stem (``StemSiblings/pairingStem(of:)``: `img_0001` for `IMG_0001.JPG`,
    /// `IMG_0001.CR2.xmp` or `IMG_E0001.HEIC`).
    let pairingStem: String
    /// ``folder`` and ``pairingStem``: the key the file's asset records, so that a partner arriving later finds it.
    /// Worked out once here, off the committer's serial path.
    public let pairingKey: String
    /// The album title (NFC), or nil for "library only".
    public var album: String?
    /// The file's name as it arrived: the asset's original filename, and its name in `Rejected/`.
    var originalName: String
    /// The claim journal entry (watch only).
    var claimID: Int64?
    /// The identity the file must still have when it is read (watch: what the settle step saw); nil to accept any.
    var expectedIdentity: FileIdentity?
    /// The incomplete-file grace period is over: a truncated file is rejected as `corrupt` instead of waiting.
    var graceExpired: Bool
    /// When the pipeline took the file, for the duration in its log line.
    public var startedAt: ContinuousClock.Instant
    /// What the probe said when the file was last read and judged incomplete (watch): if the file has not changed
    /// since, its grace period's end rejects it without reading it again.
    var incompleteVerdict: IncompleteVerdict?
    /// The file's size when known before it is opened (watch: from the settle step's look), for choosing a lane.
    var sizeHint: Int64?
    /// Whether the file's folder held another file of the same stem when it was claimed (a Live Photo's other half,
    /// a RAW's JPEG, a sidecar): then it may wait for that partner (``PairingStage``).
    var hasSameStemSibling: Bool
    /// How many files of the folder had the file's pairing stem when it was claimed or listed, the file among them
    /// (0: not known). A group of them is complete once that many have joined it (``PairingDesk``).
    var sameStemCount: Int
    /// The file's device and inode when it was claimed (watch; a rename keeps them): what its outcome record is found
    /// by (``OutcomeRecord``). Nil for imports, which record no outcomes.
    public var node: FileNode?

    /// The size the file is expected to have, if known.
    var expectedSize: Int64? { expectedIdentity?.size ?? sizeHint }

    /// A job.
    public init(
        source: FileLocation, displayPath: String, album: String?, originalName: String, claimID: Int64? = nil,
        expectedIdentity: FileIdentity? = nil, graceExpired: Bool = false,
        incompleteVerdict: IncompleteVerdict? = nil, sizeHint: Int64? = nil, startedAt: ContinuousClock.Instant = .now,
        hasSameStemSibling: Bool = false, sameStemCount: Int = 0, folder: String? = nil, node: FileNode? = nil
    ) {
        self.node = node
        self.hasSameStemSibling = hasSameStemSibling
        self.sameStemCount = sameStemCount
        let folder = folder ?? Path.parent(of: displayPath)
        let stem = StemSiblings.pairingStem(of: originalName)
        self.folder = folder
        self.pairingStem = stem
        self.pairingKey = folder + "/" + stem
        self.source = source
        self.displayPath = displayPath
        self.album = album
        self.originalName = originalName
        self.claimID = claimID
        self.expectedIdentity = expectedIdentity
        self.graceExpired = graceExpired
        self.startedAt = startedAt
        self.incompleteVerdict = incompleteVerdict
        self.sizeHint = sizeHint
    }
}

extension IngestJob {
    /// A file the settle step found finished at `relativePath` in the open `inbox`, with the identity its last look
    /// saw. `graceExpired`: its incomplete-file grace period ended (reject it if it is still truncated);
    /// `incompleteVerdict`: what the probe found when it was last read and judged incomplete, if it has not changed
    /// since (it is then rejected without being read again).
    public init(
        settledAt relativePath: String, in inbox: Directory, identity: FileIdentity, graceExpired: Bool = false,
        incompleteVerdict: IncompleteVerdict? = nil
    ) {
        self.init(
            source: FileLocation(directory: inbox, relativePath: relativePath), displayPath: relativePath,
            album: nil, originalName: Path.lastComponent(of: relativePath), expectedIdentity: identity,
            graceExpired: graceExpired, incompleteVerdict: incompleteVerdict, sizeHint: identity.size)
    }

    /// A job for the file at `path` (its folder opened as named), for callers and tests that hold a path.
    public init(
        path: String, displayPath: String, album: String?, originalName: String, claimID: Int64? = nil,
        expectedIdentity: FileIdentity? = nil, graceExpired: Bool = false
    ) throws(SystemError) {
        self.init(
            source: try FileLocation(path: path), displayPath: displayPath, album: album, originalName: originalName,
            claimID: claimID, expectedIdentity: expectedIdentity, graceExpired: graceExpired)
    }
}
