import Synchronization

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
    }

    /// The counts now.
    public var snapshot: Counts { counts.withLock { $0 } }
}
