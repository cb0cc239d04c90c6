/// One sort key of a fetch (photodrop's `NSSortDescriptor`), compiled to SQL `ORDER BY`.
public struct FetchSortDescriptor: Sendable, Hashable {
    /// What to sort by. Asset keys apply to asset fetches, ``title`` and ``creationDate`` to collections.
    public enum Key: String, Sendable, Hashable, CaseIterable {
        case creationDate
        case addedDate
        case modificationDate
        case pixelWidth
        case pixelHeight
        case duration
        case isFavorite
        case mediaType
        /// Collections only: the album title, compared byte for byte.
        case title
    }

    /// The key.
    public var key: Key
    /// Ascending (oldest, smallest first) or descending. Missing values (no creation date) sort first when ascending.
    public var ascending: Bool

    /// Sorts by `key`, ascending unless told otherwise.
    public init(key: Key, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }
}

extension FetchSortDescriptor {
    /// The direction as SQL, with where missing values go said outright: SQLite puts NULL first when ascending and
    /// last when descending, PostgreSQL the other way round, and fetches must not depend on the backend.
    var direction: String { ascending ? "ASC NULLS FIRST" : "DESC NULLS LAST" }
}
