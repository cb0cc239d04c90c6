import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropTelemetry

/// The background half of the v12 migration: assets stored before photodrop kept ``CaptureDetails`` have their
/// originals read again, and get the exposure, lens, flash, artist, copyright, direction and frame rate that the
/// file records; and, where the library has none, the camera, title, caption, keywords and rating the file itself
/// holds (what a user or a sidecar already gave is never replaced).
///
/// Each asset is read once: one whose original is missing or unreadable is taken off the list with empty details.
/// Runs at low priority in small batches, one change per batch, and stops when its task is cancelled.
struct CaptureDetailsBackfill: Sendable {
    let library: PhotoLibrary
    let logger: Logger
    var batchSize = 100

    /// What the re-read of one asset found.
    struct Found: Equatable {
        var details = CaptureDetails()
        var metadata = MediaMetadata()
    }

    /// Re-reads every asset that awaits it; returns how many got any details. On a shared catalog one node at a time
    /// does it.
    @discardableResult
    func run() async -> Int {
        do {
            return try await library.runExclusively("capture details backfill") { await backfill() } ?? 0
        } catch {
            logger.warning(
                "cannot re-read capture details; trying again at the next start",
                metadata: ["error": .string(String(describing: error))])
            return 0
        }
    }

    private func backfill() async -> Int {
        let prober: MediaProber
        do {
            prober = try MediaProber()
        } catch {
            logger.warning(
                "cannot re-read the originals' capture details; they stay unknown for now",
                metadata: ["error": .string(error.description)])
            return 0
        }
        var withDetails = 0
        var seen = 0
        while !Task.isCancelled {
            let assets: [Asset]
            do {
                assets = try library.assetsAwaitingCaptureDetails(limit: batchSize)
            } catch {
                logger.warning(
                    "cannot list the assets awaiting their capture details; trying again at the next start",
                    metadata: ["error": .string(String(describing: error))])
                break
            }
            if assets.isEmpty { break }
            let found = assets.map { (asset: $0, found: read($0, prober: prober)) }
            do {
                try await library.performChanges {
                    for (asset, found) in found {
                        let request = try AssetChangeRequest(for: asset)
                        request.captureDetails = found.details
                        Self.fillMissing(asset, from: found.metadata, into: request)
                    }
                }
            } catch {
                logger.warning(
                    "cannot store re-read capture details; trying again at the next start",
                    metadata: ["error": .string(String(describing: error))])
                break
            }
            seen += assets.count
            withDetails += found.count { !$0.found.details.isEmpty }
            await Task.yield()
        }
        if seen > 0 {
            logger.info(
                "re-read the capture details of assets stored before photodrop kept them",
                metadata: ["assets": .count(seen), "with_details": .count(withDetails)])
        }
        return withDetails
    }

    /// What the asset's primary original records; nothing when it cannot be read.
    func read(_ asset: Asset, prober: MediaProber) -> Found {
        guard let resource = asset.primaryResource, let result = try? prober.probe(path: resource.fileURL.path) else {
            return Found()
        }
        return Found(details: AssetMetadata.captureDetails(result.metadata), metadata: result.metadata)
    }

    /// Sets on `request` the camera, title, caption, keywords and rating the file records where `asset` has none.
    static func fillMissing(_ asset: Asset, from metadata: MediaMetadata, into request: AssetChangeRequest) {
        if asset.cameraMake == nil, let make = metadata.make { request.cameraMake = make }
        if asset.cameraModel == nil, let model = metadata.model { request.cameraModel = model }
        if asset.title == nil, let title = metadata.title { request.title = title }
        if asset.caption == nil, let caption = metadata.caption { request.caption = caption }
        if asset.keywords.isEmpty, !metadata.keywords.isEmpty { request.keywords = metadata.keywords }
        if asset.rating == nil, let rating = metadata.rating { request.rating = rating }
    }
}
