import FoundationEssentials

extension PhotoLibrary {
    /// Appends file records in one transaction, serialized with change blocks, and removes the journal entries
    /// `removingJournalEntries` in the same transaction (an application finishing its claim on a file and recording
    /// what became of it). Returns the records' ids in order; they are durable when this returns. Inside a change
    /// block use ``FileRecordChangeRequest/append(_:)``.
    @discardableResult
    public func appendFileRecords(
        _ records: [FileRecord.Draft], removingJournalEntries ids: [Int64] = []
    ) async throws -> [Int64] {
        guard !records.isEmpty || !ids.isEmpty else { return [] }
        return try await writer.run { try self.recordFilesOnWriter(records, removingJournalEntries: ids) }
    }

    /// The transaction of both appends, on the writer's queue.
    private func recordFilesOnWriter(_ records: [FileRecord.Draft], removingJournalEntries ids: [Int64]) throws
        -> [Int64]
    {
        let connection = try openWriter()
        do { return try connection.recordFiles(records, removingJournal: ids) } catch {
            throw connection.mapped(error, action: "record \(records.count) files")
        }
    }

    /// The file record `id`, or nil (never written, or removed by age).
    public func fileRecord(id: Int64) throws -> FileRecord? {
        try read("read file record \(id)") { database in
            try database.rows(
                "SELECT \(Self.fileRecordColumns) FROM file_records WHERE id = ?", [.integer(id)],
                row: Self.fileRecord
            ).first
        } ?? nil
    }

    /// The records of `kind` about the file with `device` and `inode` written after record `after`, oldest first (at
    /// most `limit`).
    public func fileRecords(
        kind: String, device: UInt64, inode: UInt64, after: Int64 = 0, limit: Int = 100
    ) throws -> [FileRecord] {
        try read("read the records of a file") { database in
            try database.rows(
                """
                SELECT \(Self.fileRecordColumns) FROM file_records
                WHERE device = ? AND inode = ? AND id > ? AND kind = ? ORDER BY id LIMIT ?
                """,
                [
                    .integer(Int64(bitPattern: device)), .integer(Int64(bitPattern: inode)), .integer(after),
                    .text(kind), .integer(Int64(limit)),
                ], row: Self.fileRecord)
        } ?? []
    }

    /// The newest records of `kind`, newest first (at most `limit`), written before record `before` when given.
    public func fileRecords(kind: String, before: Int64? = nil, limit: Int = 100) throws -> [FileRecord] {
        try read("read the latest file records") { database in
            try database.rows(
                """
                SELECT \(Self.fileRecordColumns) FROM file_records
                WHERE id < ? AND kind = ? ORDER BY id DESC LIMIT ?
                """,
                [.integer(before ?? Int64.max), .text(kind), .integer(Int64(limit))], row: Self.fileRecord)
        } ?? []
    }

    /// The columns ``fileRecord(_:)`` reads, in its order.
    private static let fileRecordColumns = "id, kind, device, inode, recorded_at, payload"

    private static func fileRecord(_ row: Statement) -> FileRecord {
        FileRecord(
            id: row.int64(0), kind: row.string(1), device: UInt64(bitPattern: row.int64(2)),
            inode: UInt64(bitPattern: row.int64(3)),
            recordedAt: Date(timeIntervalSince1970: Double(row.int64(4)) / 1000), payload: row.data(5))
    }
}

extension PhotoLibrary {
    /// ``appendFileRecords(_:removingJournalEntries:)`` for callers on a thread of their own (a server's connection
    /// thread): waits on the writer queue.
    @discardableResult
    public func appendFileRecordsAndWait(
        _ records: [FileRecord.Draft], removingJournalEntries ids: [Int64] = []
    ) throws -> [Int64] {
        guard !records.isEmpty || !ids.isEmpty else { return [] }
        if writer.isOnWriterQueue {
            throw PhotosError.invalidParameter(
                "appendFileRecordsAndWait was called inside a change block of the same library, which would wait for "
                    + "itself; use FileRecordChangeRequest in the running block.")
        }
        return try writer.queue.sync { try self.recordFilesOnWriter(records, removingJournalEntries: ids) }
    }
}
