/// What a fetch returns and in which order (`PHFetchOptions`): a typed filter, sort descriptors and a limit, all
/// compiled to SQL.
public struct FetchOptions: Sendable, Hashable {
    /// Only objects matching this filter; nil for all.
    public var predicate: FetchPredicate?
    /// The order; empty for the natural one (album order, creation date for smart albums, newest first for Recently
    /// Added and Recently Deleted).
    public var sortDescriptors: [FetchSortDescriptor]
    /// At most this many objects; 0 for no limit.
    public var fetchLimit: Int
    /// Whether hidden assets are included (PhotoKit leaves them out by default).
    public var includeHiddenAssets: Bool
    /// Whether change details for fetch results made with these options are computed incrementally; photodrop
    /// always can, so this only exists for PhotoKit parity.
    public var wantsIncrementalChangeDetails: Bool

    /// Options with everything at PhotoKit's defaults unless given.
    public init(
        predicate: FetchPredicate? = nil, sortDescriptors: [FetchSortDescriptor] = [], fetchLimit: Int = 0,
        includeHiddenAssets: Bool = false, wantsIncrementalChangeDetails: Bool = true
    ) {
        self.predicate = predicate
        self.sortDescriptors = sortDescriptors
        self.fetchLimit = fetchLimit
        self.includeHiddenAssets = includeHiddenAssets
        self.wantsIncrementalChangeDetails = wantsIncrementalChangeDetails
    }
}
