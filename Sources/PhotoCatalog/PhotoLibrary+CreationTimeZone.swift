import FoundationEssentials

/// The background re-read that follows the v6 migration (photodrop): libraries made before it stored capture dates
/// without their zone. The catalog cannot read media files, so it only lists the assets still to do; whoever can (the
/// daemon's `CreationZoneBackfill`) re-reads each original and sets ``AssetChangeRequest/creationTimeZoneOffset`` and
/// ``AssetChangeRequest/isCreationDateFloating``, which takes the asset off the list.
extension PhotoLibrary {
    /// Up to `limit` assets (hidden and Recently Deleted ones included) whose capture zone has not been re-read since
    /// the migration, oldest first.
    public func assetsAwaitingCreationTimeZone(limit: Int) throws -> [Asset] {
        let uuids = try read("list the assets whose capture time zone is not known yet") { database in
            try database.rows(
                "SELECT uuid FROM assets WHERE creation_zone_pending = 1 ORDER BY id LIMIT ?",
                [.integer(Int64(max(0, limit)))], row: { $0.string(0) })
        } ?? []
        guard !uuids.isEmpty else { return [] }
        return Array(
            try Asset.fetchAssets(withLocalIdentifiers: uuids.map { LocalIdentifier.asset(uuid: $0) }, library: self))
    }

    /// How many assets still await the re-read (0 on a library made since the migration).
    public func countAssetsAwaitingCreationTimeZone() throws -> Int {
        try read("count the assets whose capture time zone is not known yet") { database in
            Int(try database.int64("SELECT count(*) FROM assets WHERE creation_zone_pending = 1") ?? 0)
        } ?? 0
    }

    /// Up to `limit` assets (hidden and Recently Deleted ones included) stored before photodrop kept
    /// ``CaptureDetails`` (the v12 migration), oldest first. Setting ``AssetChangeRequest/captureDetails`` takes an
    /// asset off the list.
    public func assetsAwaitingCaptureDetails(limit: Int) throws -> [Asset] {
        let uuids = try read("list the assets whose capture details are not known yet") { database in
            try database.rows(
                "SELECT uuid FROM assets WHERE details_pending = 1 ORDER BY id LIMIT ?",
                [.integer(Int64(max(0, limit)))], row: { $0.string(0) })
        } ?? []
        guard !uuids.isEmpty else { return [] }
        return Array(
            try Asset.fetchAssets(withLocalIdentifiers: uuids.map { LocalIdentifier.asset(uuid: $0) }, library: self))
    }

    /// How many assets still await the re-read of their capture details.
    public func countAssetsAwaitingCaptureDetails() throws -> Int {
        try read("count the assets whose capture details are not known yet") { database in
            Int(try database.int64("SELECT count(*) FROM assets WHERE details_pending = 1") ?? 0)
        } ?? 0
    }
}
