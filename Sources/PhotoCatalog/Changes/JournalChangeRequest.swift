import FoundationEssentials

/// Changes to the library's application journal made inside a `performChanges` block, so that they commit atomically
/// with the block's other changes (e.g. the ingest pipeline drops its claim in the same transaction that creates the
/// asset). The catalog does not interpret payloads.
public enum JournalChangeRequest {
    /// Removes journal entries by id when the block commits; ids that do not exist are ignored.
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block.
    public static func removeEntries(_ ids: [Int64]) throws {
        let context = try ChangeContext.active(for: "JournalChangeRequest.removeEntries(_:)")
        context.operations.append(.removeJournalEntries(ids))
    }
}
