import FoundationEssentials

extension PhotoLibrary {
    /// The full local identifiers of the objects whose identifier starts with `prefix`, for people who type a short
    /// form of an identifier (`photodrop show 3F2A`).
    ///
    /// Matching ignores case. A complete identifier (`<UUID>/L0/001` for assets, `<UUID>/L0/040` for albums) or a
    /// bare UUID matches itself. Assets include hidden ones and those in Recently Deleted; collections include the
    /// smart albums. One index range scan; nothing is created when there is no library.
    ///
    /// - Parameters:
    ///   - prefix: the start of an identifier; text that cannot start one (other characters than hex digits and
    ///     dashes, or another object type's suffix) matches nothing.
    ///   - objectType: assets or collections.
    ///   - limit: at most this many identifiers are returned, in identifier order; 2 is enough to tell a unique
    ///     prefix from an ambiguous one.
    public func localIdentifiers(withPrefix prefix: String, objectType: PhotoObjectType, limit: Int = 2) throws
        -> [String]
    {
        let suffix = objectType == .asset ? LocalIdentifier.assetSuffix : LocalIdentifier.collectionSuffix
        var smartMatches: [String] = []
        if objectType == .assetCollection {
            let lowered = prefix.lowercased()
            smartMatches = SmartAlbum.allCases.map(\.localIdentifier).filter {
                !lowered.isEmpty && $0.lowercased().hasPrefix(lowered)
            }
        }
        var text = Substring(prefix)
        if text.uppercased().hasSuffix(suffix.uppercased()) { text = text.dropLast(suffix.count) }
        let uuidPrefix = text.uppercased()
        let isUUIDPrefix =
            !uuidPrefix.isEmpty && uuidPrefix.count <= 36
            && uuidPrefix.utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 65 && $0 <= 70) || $0 == 45 }
        var matches: [String] = []
        if isUUIDPrefix, limit > 0 {
            let table = objectType == .asset ? "assets" : "albums"
            matches =
                try read("look up identifiers starting with '\(prefix)'") { database in
                    try database.rows(
                        "SELECT uuid FROM \(table) WHERE uuid >= ? AND uuid < ? ORDER BY uuid LIMIT ?",
                        [.text(uuidPrefix), .text(uuidPrefix + "~"), .integer(Int64(limit))]
                    ) { $0.string(0) + suffix }
                } ?? []
        }
        return Array((matches + smartMatches).prefix(max(0, limit)))
    }
}
