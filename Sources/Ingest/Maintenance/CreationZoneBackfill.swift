import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropTelemetry

/// The background half of the v6 migration: assets stored before photodrop kept capture time zones have their
/// originals' metadata read again, and get the zone (or "floating") that the file itself records.
///
/// The stored date is kept as it is unless the file gives the same capture date: only then are the offset, the
/// floating mark and the finer source name (`exifCreateDate` where an old library said `exif`) taken from the file,
/// and a local time that the old code stored as if it were UTC is turned into its instant when the file's GPS time now
/// gives the zone. Anything else (the original changed, missing or unreadable) leaves the zone unknown, never guessed;
/// each asset is read once. Runs at low priority in small batches, one change per batch.
struct CreationZoneBackfill: Sendable {
    let library: PhotoLibrary
    let logger: Logger
    var batchSize = 100

    /// What the re-read of one asset decided.
    struct Decision: Equatable {
        var creationDate: Date?
        var source: String?
        var offset: Int?
        var isFloating: Bool
    }

    /// Re-reads every asset that awaits it; returns how many got a zone or the floating mark. On a shared catalog one
    /// node at a time does it: a node that finds another at it leaves it to that one.
    @discardableResult
    func run() async -> Int {
        do {
            return try await library.runExclusively("time zone backfill") { await backfill() } ?? 0
        } catch {
            logger.warning(
                "cannot re-read capture time zones; trying again at the next start",
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
                "cannot re-read capture time zones; they stay unknown for now",
                metadata: ["error": .string(error.description)])
            return 0
        }
        var settled = 0
        var seen = 0
        while !Task.isCancelled {
            let assets: [Asset]
            do {
                assets = try library.assetsAwaitingCreationTimeZone(limit: batchSize)
            } catch {
                logger.warning(
                    "cannot list the assets awaiting their capture time zone; trying again at the next start",
                    metadata: ["error": .string(String(describing: error))])
                break
            }
            if assets.isEmpty { break }
            let decisions = assets.map { (asset: $0, decision: decide($0, prober: prober)) }
            do {
                try await library.performChanges {
                    for (asset, decision) in decisions {
                        let request = try AssetChangeRequest(for: asset)
                        if decision.creationDate != asset.creationDate { request.creationDate = decision.creationDate }
                        if decision.source != asset.creationDateSource { request.creationDateSource = decision.source }
                        request.creationTimeZoneOffset = decision.offset
                        request.isCreationDateFloating = decision.isFloating
                    }
                }
            } catch {
                logger.warning(
                    "cannot store re-read capture time zones; trying again at the next start",
                    metadata: ["error": .string(String(describing: error))])
                break
            }
            seen += assets.count
            settled += decisions.count { $0.decision.offset != nil || $0.decision.isFloating }
            await Task.yield()
        }
        if seen > 0 {
            logger.info(
                "re-read capture time zones of assets stored before time zones were kept",
                metadata: ["assets": .count(seen), "with_zone_or_floating": .count(settled)])
        }
        return settled
    }

    /// The zone for one asset from its original, or "unknown" (the stored date and source unchanged).
    func decide(_ asset: Asset, prober: MediaProber) -> Decision {
        let unknown = Decision(
            creationDate: asset.creationDate, source: asset.creationDateSource, offset: nil, isFloating: false)
        guard let stored = asset.creationDate?.timeIntervalSince1970, let resource = asset.primaryResource,
            let result = try? prober.probe(path: resource.fileURL.path)
        else { return unknown }
        var metadata = result.metadata
        metadata.adoptFileNameDate(resource.originalFilename)
        guard let date = metadata.captureDate?.timeIntervalSince1970, let source = metadata.captureDateSource else {
            return unknown
        }
        let found = Decision(
            creationDate: Date(timeIntervalSince1970: date), source: source.rawValue,
            offset: metadata.captureTimeZoneOffset, isFloating: metadata.captureDateIsFloating)
        if abs(date - stored) < 1 { return found }
        // Stored before as a floating local time, now placed in its zone by the file's GPS time.
        if let offset = metadata.captureTimeZoneOffset, abs(date + Double(offset) - stored) < 1 { return found }
        return unknown
    }
}
