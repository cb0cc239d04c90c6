import FoundationEssentials

/// Recently Deleted, as Apple Photos keeps it: deleted assets wait there (restorable) until they are purged, by hand
/// or after a number of days. PhotoKit has no call for "empty the trash"; these two are photodrop's, built on
/// `fetchAssets(in:)` and `AssetChangeRequest.purgeAssets(_:)`.
extension PhotoLibrary {
    /// The assets in Recently Deleted, most recently deleted first; with `cutoff`, only those deleted before it.
    public func recentlyDeletedAssets(deletedBefore cutoff: Date? = nil) throws -> [Asset] {
        guard
            let trash = try AssetCollection.fetchAssetCollections(
                with: .smartAlbum, subtype: .smartAlbumRecentlyDeleted, library: self
            ).firstObject
        else { return [] }
        let assets = Array(try Asset.fetchAssets(in: trash))
        guard let cutoff else { return assets }
        return assets.filter { ($0.deletedDate ?? .distantFuture) < cutoff }
    }

    /// Purges the assets deleted before `cutoff` (every asset in Recently Deleted for nil), in changes of at most
    /// `batchSize` assets; their originals are removed once each change is committed. An asset restored while this
    /// runs is kept. Returns how many were purged.
    @discardableResult
    public func purgeRecentlyDeleted(deletedBefore cutoff: Date? = nil, batchSize: Int = 500) async throws -> Int {
        let assets = try recentlyDeletedAssets(deletedBefore: cutoff)
        var purged = 0
        var start = 0
        while start < assets.count {
            let batch = Array(assets[start..<min(start + batchSize, assets.count)])
            try await performChanges { try AssetChangeRequest.purgeDeletedAssets(batch, deletedBefore: cutoff) }
            // Those restored meanwhile are still there.
            let kept = try Asset.fetchAssets(withLocalIdentifiers: batch.map(\.localIdentifier), library: self).count
            purged += batch.count - kept
            start += batchSize
        }
        return purged
    }
}
