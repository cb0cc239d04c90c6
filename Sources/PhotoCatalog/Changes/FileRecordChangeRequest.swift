import FoundationEssentials

/// File records (``FileRecord``) written inside a `performChanges` block, so that they commit atomically with the
/// block's other changes (the ingest pipeline records a file's outcome in the transaction that stores it).
public enum FileRecordChangeRequest {
    /// Appends `records` when the block commits.
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block.
    public static func append(_ records: [FileRecord.Draft]) throws {
        let context = try ChangeContext.active(for: "FileRecordChangeRequest.append(_:)")
        guard !records.isEmpty else { return }
        context.operations.append(.appendFileRecords(records))
    }
}
