import FoundationEssentials

/// A place in the newest-first order by capture instant (photodrop): the asset to continue after, for keyset
/// pagination. Its text form is opaque to clients and stable for the asset (until its capture date changes).
public struct AssetCursor: Sendable, Hashable {
    /// The asset's creation date in seconds since 1970, or nil for an asset without one (those sort last).
    let creationDate: Double?
    let rowID: Int64

    init(creationDate: Double?, rowID: Int64) {
        self.creationDate = creationDate
        self.rowID = rowID
    }

    /// Reads the text form (``stringValue``); nil when it is not one.
    public init?(string: String) {
        let parts = string.split(separator: "_", omittingEmptySubsequences: false)
        guard parts.count == 2, let rowID = Int64(parts[1]), rowID > 0, parts[0].count <= 32 else { return nil }
        if parts[0] == "n" {
            creationDate = nil
        } else {
            guard let date = Double(parts[0]), date.isFinite else { return nil }
            creationDate = date
        }
        self.rowID = rowID
    }

    /// `<seconds>_<n>`, or `n_<n>` for an asset without a capture date.
    public var stringValue: String {
        (creationDate.map { String($0) } ?? "n") + "_" + String(rowID)
    }
}

extension Asset {
    /// This asset's place in the newest-first order by capture instant, for ``FetchPredicate/capturedBefore(_:)``.
    public var cursor: AssetCursor {
        AssetCursor(creationDate: creationDate?.timeIntervalSince1970, rowID: rowID)
    }
}
