import FoundationEssentials

extension PhotoLibrary {
    /// Counts by kind, albums, favourites, Recently Deleted, stored bytes, the latest change and journal entries by
    /// kind, all from one snapshot; a handful of aggregate queries, no per-asset work.
    ///
    /// - Returns: nil when there is no library at ``url`` yet (nothing is created).
    public func statistics() throws -> LibraryStatistics? {
        try read("read the library's statistics") { database in
            let image = AssetMediaType.image.rawValue
            let video = AssetMediaType.video.rawValue
            let animated = AssetPlaybackStyle.imageAnimated.rawValue
            let live = AssetMediaSubtypes.photoLive.rawValue
            let counts =
                try database.firstRow(
                    """
                    SELECT
                        count(*) FILTER (WHERE deleted_date IS NULL AND media_type = \(image)
                                         AND playback_style != \(animated)),
                        count(*) FILTER (WHERE deleted_date IS NULL AND playback_style = \(animated)),
                        count(*) FILTER (WHERE deleted_date IS NULL AND media_type = \(video)),
                        count(*) FILTER (WHERE deleted_date IS NULL AND (media_subtypes & \(live)) != 0),
                        count(*) FILTER (WHERE deleted_date IS NULL AND is_favorite = 1),
                        count(*) FILTER (WHERE deleted_date IS NULL AND is_hidden = 1),
                        count(*) FILTER (WHERE deleted_date IS NOT NULL)
                    FROM assets
                    """
                ) { row in (0..<7).map { row.int(Int32($0)) } } ?? Array(repeating: 0, count: 7)
            let albums = try database.int64("SELECT count(*) FROM albums") ?? 0
            let originals = try database.firstRow("SELECT count(*), coalesce(sum(byte_count), 0) FROM resources") {
                ($0.int(0), $0.int64(1))
            }
            let (libraryID, _) = try PhotoLibrary.historyBounds(database)
            let latest = try PhotoLibrary.latestToken(database)
            let latestDate = try database.int64(
                "SELECT committed_at FROM change_transactions ORDER BY token DESC LIMIT 1"
            ).map { Date(timeIntervalSince1970: Double($0) / 1000) }
            var journal: [String: Int] = [:]
            for (kind, count) in try database.rows(
                "SELECT kind, count(*) FROM journal GROUP BY kind", row: { ($0.string(0), $0.int(1)) })
            {
                journal[kind] = count
            }
            return LibraryStatistics(
                photoCount: counts[0], gifCount: counts[1], videoCount: counts[2], livePhotoCount: counts[3],
                favoriteCount: counts[4], hiddenCount: counts[5], recentlyDeletedCount: counts[6],
                albumCount: Int(albums), originalCount: originals?.0 ?? 0, originalBytes: originals?.1 ?? 0,
                latestChangeToken: PersistentChangeToken(libraryID: libraryID, value: latest),
                latestChangeDate: latestDate, journalEntryCounts: journal)
        }
    }
}
