import MediaProbe
import PhotoCatalog

/// A file to store, with what the worker learned.
struct StoreItem: Sendable {
    var job: IngestJob
    var digest: FileDigest
    /// The probe's verdict; a sidecar or adjustments file that pairing took is one the probe rejected.
    var probe: ProbeResult?
    var known: KnownContent?
    /// The inbox folder and stem its asset records (``StoredPartners/pairingKey(of:)``), once worked out.
    var pairingKey: String?

    var isVideo: Bool { probe.map { $0.kind == .video } ?? known?.isVideo ?? false }
    var mime: String? { probe?.mime ?? known?.mime }
}

/// Files stored as one asset: the primary file and the others with their resource types (``PairingDesk``).
struct StoreGroup: Sendable {
    var primary: StoreItem
    var members: [(item: StoreItem, type: AssetResourceType)] = []

    var items: [StoreItem] { [primary] + members.map(\.item) }
}
