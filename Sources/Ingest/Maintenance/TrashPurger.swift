import FoundationEssentials
import PhotoCatalog
import PhotodropTelemetry

/// The daemon's emptying of Recently Deleted: at start and then every ``interval``, the assets deleted more than the
/// retention ago (config `trashDays`) are purged, with their originals once each change is committed. A purge that
/// fails (a locked or full library) is logged and tried again at the next round. Runs until its task is cancelled.
struct TrashPurger: Sendable {
    let library: PhotoLibrary
    let retention: Duration
    let interval: Duration
    let logger: Logger

    func run() async {
        while !Task.isCancelled {
            await purgeOnce()
            try? await Task.sleep(for: interval)
        }
    }

    /// One round; returns how many assets were purged.
    @discardableResult
    func purgeOnce(now: Date = Date()) async -> Int {
        let seconds = retention.components.seconds
        let cutoff = now.addingTimeInterval(-Double(seconds))
        do {
            // One node at a time on a shared catalog; the others skip this round.
            guard
                let purged = try await library.runExclusively("trash purge", {
                    try await library.purgeRecentlyDeleted(deletedBefore: cutoff)
                })
            else { return 0 }
            if purged > 0 {
                logger.info(
                    "purged from Recently Deleted",
                    metadata: ["assets": .count(purged), "deleted_more_than_days_ago": .count(Int(seconds / 86_400))])
            }
            return purged
        } catch {
            logger.warning(
                "could not purge Recently Deleted; trying again later",
                metadata: ["error": .string(String(describing: error))])
            return 0
        }
    }
}
