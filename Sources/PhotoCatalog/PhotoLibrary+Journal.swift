import FoundationEssentials

extension PhotoLibrary {
    /// Appends entries of `kind` to the library's application journal in one transaction, serialized with change
    /// blocks; returns their ids in order. The entries are durable when this returns.
    public func appendJournalEntries(kind: String, payloads: [Data]) async throws -> [Int64] {
        try await writer.run {
            let connection = try self.openWriter()
            do { return try connection.appendJournal(kind: kind, payloads: payloads) } catch {
                throw connection.mapped(error, action: "append journal entries of kind '\(kind)'")
            }
        }
    }

    /// The journal entries of `kind`, oldest first.
    public func journalEntries(kind: String) throws -> [JournalEntry] {
        try read("read journal entries of kind '\(kind)'") { database in
            try database.rows(
                "SELECT id, kind, payload, created_at FROM journal WHERE kind = ? ORDER BY id", [.text(kind)]
            ) { row in
                JournalEntry(
                    id: row.int64(0), kind: row.string(1), payload: row.data(2),
                    createdAt: Date(timeIntervalSince1970: Double(row.int64(3)) / 1000))
            }
        } ?? []
    }

    /// Removes journal entries by id in one transaction; ids that do not exist are ignored. Inside a change block use
    /// ``JournalChangeRequest/removeEntries(_:)`` instead, which commits with the block.
    public func removeJournalEntries(_ ids: [Int64]) async throws {
        guard !ids.isEmpty else { return }
        try await writer.run {
            let connection = try self.openWriter()
            do { try connection.removeJournal(ids: ids) } catch {
                throw connection.mapped(error, action: "remove journal entries")
            }
        }
    }
}
