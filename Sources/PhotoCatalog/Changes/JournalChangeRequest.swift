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

    /// Removes journal entries of `kind` when the block commits, and makes the commit depend on them (a fencing check
    /// for work claimed through the journal on a shared catalog): when one of them is gone by then, because another
    /// node took it over, the whole block fails with a ``PhotosError`` whose ``PhotosError/goneJournalEntries`` names
    /// them, and nothing of it is written. On PostgreSQL the entries are locked from the start of the commit, so a
    /// takeover waits for the commit and then finds them gone.
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block.
    public static func consumeEntries(_ ids: [Int64], kind: String) throws {
        let context = try ChangeContext.active(for: "JournalChangeRequest.consumeEntries(_:kind:)")
        context.operations.append(.consumeJournalEntries(ids, kind: kind))
    }
}
