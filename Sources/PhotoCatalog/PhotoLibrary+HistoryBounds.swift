import FoundationEssentials

extension PhotoLibrary {
    /// The token just before the oldest change the history still holds: ``fetchPersistentChanges(since:limit:)``
    /// with it returns the whole retained history (older changes may have been pruned, see ``HistoryRetention``).
    ///
    /// For a library that does not exist yet it is the same token as ``currentChangeToken``, which comes before every
    /// change the library will have.
    public var earliestChangeToken: PersistentChangeToken {
        get throws {
            try read("read the change history's bounds") { database in
                let (libraryID, prunedThrough) = try PhotoLibrary.historyBounds(database)
                return PersistentChangeToken(libraryID: libraryID, value: prunedThrough)
            } ?? PersistentChangeToken(libraryID: "", value: 0)
        }
    }
}
