import FoundationEssentials

extension PhotoLibrary {
    /// The regular albums each of `assets` belongs to, by asset identifier, in album creation order: one query for
    /// any number of assets (the batch form of ``AssetCollection/fetchAssetCollectionsContaining(_:with:options:)``,
    /// for listings that show every asset's albums).
    ///
    /// Assets in no album map to an empty list. Assets must come from this library.
    public func albumMemberships(of assets: [Asset]) throws -> [String: [AssetCollection]] {
        var result: [String: [AssetCollection]] = [:]
        var identifierByRow: [Int64: String] = [:]
        for asset in assets {
            result[asset.localIdentifier] = []
            identifierByRow[asset.rowID] = asset.localIdentifier
        }
        guard !assets.isEmpty else { return result }
        let rows = "[" + identifierByRow.keys.map(String.init).joined(separator: ",") + "]"
        let pairs =
            try read("read album memberships") { database in
                try database.rows(
                    """
                    SELECT m.asset_id, al.id, al.uuid, al.title, al.creation_date, al.asset_count
                    FROM album_assets m JOIN albums al ON al.id = m.album_id
                    WHERE m.asset_id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))
                    ORDER BY al.id
                    """, [.text(rows)]
                ) { row in
                    (
                        row.int64(0),
                        AssetCollection.Record(
                            rowID: row.int64(1), localIdentifier: LocalIdentifier.collection(uuid: row.string(2)),
                            type: .album, subtype: .albumRegular, title: row.string(3),
                            creationDate: Date(timeIntervalSince1970: row.double(4)), estimatedAssetCount: row.int(5))
                    )
                }
            } ?? []
        for (assetRow, record) in pairs {
            guard let identifier = identifierByRow[assetRow] else { continue }
            result[identifier, default: []].append(AssetCollection(record: record, library: self))
        }
        return result
    }
}
