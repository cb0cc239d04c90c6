import FoundationEssentials

extension WriterConnection {
    /// Inserts file records in the current transaction; returns their ids in order. Records past their age go first,
    /// at most every ten minutes (one indexed range delete).
    func insertFileRecords(_ records: [FileRecord.Draft]) throws -> [Int64] {
        let now = Date()
        if now.timeIntervalSince(lastFileRecordPrune) >= 600 {
            lastFileRecordPrune = now
            let cutoff = Int64(((now.timeIntervalSince1970 - retention.fileRecordAge) * 1000).rounded())
            try database.run("DELETE FROM file_records WHERE recorded_at < ?", [.integer(cutoff)])
        }
        let milliseconds = Int64((now.timeIntervalSince1970 * 1000).rounded())
        if database.isPostgres {
            // One statement for all of them (each would be a round trip to the server, and another for its id).
            var rows = PostgresBulkRows(table: "file_records", columns: ["kind", "device", "inode", "recorded_at", "payload"])
            for record in records {
                rows.append([
                    .text(record.kind), .integer(Int64(bitPattern: record.device)),
                    .integer(Int64(bitPattern: record.inode)), .integer(milliseconds), .blob(record.payload),
                ])
            }
            return try rows.insertReturningIDs(into: database)
        }
        let insert = try database.cachedStatement(
            "INSERT INTO file_records(kind, device, inode, recorded_at, payload) VALUES (?, ?, ?, ?, ?)")
        var ids: [Int64] = []
        ids.reserveCapacity(records.count)
        for record in records {
            try insert.bind(record.kind, at: 1)
            try insert.bind(Int64(bitPattern: record.device), at: 2)
            try insert.bind(Int64(bitPattern: record.inode), at: 3)
            try insert.bind(milliseconds, at: 4)
            try insert.bind(record.payload, at: 5)
            _ = try insert.step()
            insert.reset()
            ids.append(try database.lastInsertRowID)
        }
        return ids
    }

    /// Appends file records and removes journal entries in one transaction; returns the records' ids in order.
    func recordFiles(_ records: [FileRecord.Draft], removingJournal ids: [Int64]) throws -> [Int64] {
        try checkLibraryInPlace()
        return try database.inTransaction(.immediate) {
            try deleteJournalRows(ids)
            return try insertFileRecords(records)
        }
    }
}
