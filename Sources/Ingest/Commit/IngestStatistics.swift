import Synchronization
import PhotodropTelemetry

/// Running counts of outcomes, shared by the committer's hook (writer) and the summaries (readers).
public final class IngestStatistics: Sendable {
    /// A snapshot of the counts.
    public struct Counts: Sendable, Hashable {
        /// New photo assets.
        public var photos = 0
        /// New GIF assets.
        public var gifs = 0
        /// New video assets.
        public var videos = 0
        /// Files whose content was already stored.
        public var duplicates = 0
        /// Files stored as a resource of another file's asset.
        public var attached = 0
        /// Rejected files.
        public var rejected = 0
        /// Failed files.
        public var failed = 0
        /// Bytes of all files counted.
        public var bytes: Int64 = 0

        /// New assets.
        public var imported: Int { photos + gifs + videos }
        /// Every outcome.
        public var total: Int { imported + duplicates + attached + rejected + failed }

        /// All zero.
        /// Counts starting at zero.
        public init() {}
    }

    private let counts = Mutex(Counts())

    public init() {}

    /// Counts one outcome.
    public func record(_ outcome: FileOutcome) {
        counts.withLock { counts in
            switch outcome.kind {
            case .photo: counts.photos += 1
            case .gif: counts.gifs += 1
            case .video: counts.videos += 1
            case .duplicate: counts.duplicates += 1
            case .attached: counts.attached += 1
            case .rejected: counts.rejected += 1
            case .failed: counts.failed += 1
            }
            counts.bytes += outcome.bytes
        }
        recordDetails(outcome)
    }

    /// The counts now.
    public var snapshot: Counts { counts.withLock { $0 } }

    /// What the metrics add to the counts: why files were rejected, retries, rescans, and latencies.
    public struct Details: Sendable, Equatable {
        /// Rejected files by reason code (`notMedia`, `unsupportedVideo`, …).
        var rejectedByReason: [String: Int] = [:]
        /// Files put back into the inbox to be tried again after a failure.
        public var retried = 0
        /// Settled files left for a moment to another node sharing the inbox, which prefers them (``InboxShare``).
        var leftToOtherNodes = 0
        /// Files a claim set out to take that were gone at the rename (another node, or a user, took them first).
        var claimsLost = 0
        /// Bytes of the files stored (new assets and resources attached to one; not duplicates).
        var storedBytes: Int64 = 0
        /// Full rescans of the inbox by reason (`startup`, `overflow`, …).
        var rescans: [String: Int] = [:]
        /// From taking a file to its outcome.
        var fileLatency = LatencyHistogram()
        /// One group commit (a `performChanges` block and what goes with it).
        var commitLatency = LatencyHistogram()

        public init() {}
    }

    private let details = Mutex(Details())

    /// The details now.
    var detailSnapshot: Details { details.withLock { $0 } }

    /// Counts a file's latency and, for a rejection, its reason (called with ``record(_:)``).
    private func recordDetails(_ outcome: FileOutcome) {
        details.withLock { details in
            details.fileLatency.observe(outcome.elapsed)
            if outcome.kind.isStored && outcome.kind != .duplicate { details.storedBytes += outcome.bytes }
            if outcome.kind == .rejected { details.rejectedByReason[outcome.reason ?? "unknown", default: 0] += 1 }
        }
    }

    /// Counts a file put back to be retried.
    func recordRetry() { details.withLock { $0.retried += 1 } }

    /// Counts a settled file left to another node sharing the inbox.
    func recordLeftToOtherNode() { details.withLock { $0.leftToOtherNodes += 1 } }

    /// Counts files a claim found gone at the rename.
    func recordClaimsLost(_ count: Int) {
        guard count > 0 else { return }
        details.withLock { $0.claimsLost += count }
    }

    /// Counts a full rescan of the inbox.
    func recordRescan(_ reason: String) { details.withLock { $0.rescans[reason, default: 0] += 1 } }

    /// Counts one group commit's duration.
    func recordCommit(_ duration: Duration) { details.withLock { $0.commitLatency.observe(duration) } }
}
