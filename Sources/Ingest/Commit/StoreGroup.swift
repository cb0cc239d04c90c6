import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem

/// A file to store, with what the worker learned. A class: the committer hands each file through the pairing stage,
/// its groups and the change block, and a reference moves where the value (the job, the probe's findings) would be
/// copied at every step.
public final class StoreItem: Sendable {
    let job: IngestJob
    let digest: FileDigest
    /// The probe's verdict; a sidecar or adjustments file that pairing took is one the probe rejected.
    let probe: ProbeResult?
    let known: KnownContent?
    /// Its part in pairing (``PairingStage/role(name:probe:)``), worked out once: the stage, the stored-partner lookup
    /// and the match all ask. Nil when it never pairs.
    let role: PairingDesk<StoreItem>.Role?

    init(job: IngestJob, digest: FileDigest, probe: ProbeResult?, known: KnownContent?) {
        self.job = job
        self.digest = digest
        self.probe = probe
        self.known = known
        role = probe.flatMap { PairingStage.role(name: job.originalName, probe: $0) }
    }

    var isVideo: Bool { probe.map { $0.kind == .video } ?? known?.isVideo ?? false }
    var mime: String? { probe?.mime ?? known?.mime }

    /// The file's bytes when it has at most `limit` (a sidecar is read whole, so its size is checked first); nil when
    /// it is larger or cannot be read.
    func contents(atMost limit: Int) -> [UInt8]? {
        guard digest.size <= Int64(limit), let data = FileManager.default.contents(atPath: job.source.path) else {
            return nil
        }
        return Array(data)
    }

    /// How the library takes the file as a resource beside an asset's first (the hash, size and status the worker found; a
    /// sidecar's type from its name, since the probe rejected it as media).
    func resourceOptions(move: Bool) -> AssetResourceCreationOptions {
        let isMedia = probe?.isAccepted == true
        return AssetResourceCreationOptions(
            shouldMoveFile: move, originalFilename: job.originalName, mimeType: isMedia ? mime : nil,
            contentSHA256: digest.sha256.hex,
            fileExtension: isMedia ? probe?.fileExtension : Path.pathExtension(of: job.originalName),
            fileStatus: digest.resourceFileStatus)
    }
}

/// Files stored as one asset: the primary file and the others with their resource types (``PairingDesk``).
struct StoreGroup: Sendable {
    var primary: StoreItem
    var members: [(item: StoreItem, type: AssetResourceType)] = []

    var items: [StoreItem] { [primary] + members.map(\.item) }
}
