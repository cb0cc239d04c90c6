import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("File records: kept for a while, found by device and inode", CatalogGate.one)
struct FileRecordTests {
    private func draft(_ kind: String, inode: UInt64, _ text: String) -> FileRecord.Draft {
        FileRecord.Draft(kind: kind, device: 42, inode: inode, payload: Data(text.utf8))
    }

    @Test("records appended alone, with a journal removal, and inside a change block are found by file, kind and order", arguments: CatalogBackend.all)
    func appendAndFind(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let journal = try await library.appendJournalEntries(kind: "claim", payloads: [Data("c".utf8)])
        let first = try await library.appendFileRecords([draft("upload", inode: 7, "u1")])
        #expect(first.count == 1)
        // Ends the claim and records the outcome in one transaction.
        let second = try await library.appendFileRecords(
            [draft("outcome", inode: 7, "o1"), draft("outcome", inode: 8, "other file")],
            removingJournalEntries: journal)
        #expect(try library.journalEntries(kind: "claim").isEmpty)
        let files = try folder.makeFiles(1)
        try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: files[0], options: nil)
            try FileRecordChangeRequest.append([self.draft("outcome", inode: 7, "o2")])
        }
        let upload = try #require(try library.fileRecord(id: first[0]))
        #expect(upload.kind == "upload" && upload.device == 42 && upload.inode == 7 && upload.payload == Data("u1".utf8))
        #expect(abs(upload.recordedAt.timeIntervalSinceNow) < 60)
        let outcomes = try library.fileRecords(kind: "outcome", device: 42, inode: 7, after: first[0])
        #expect(outcomes.map { String(decoding: $0.payload, as: UTF8.self) } == ["o1", "o2"])
        #expect(outcomes[0].id == second[0] && outcomes[1].id > second[1], "ids in commit order")
        #expect(try library.fileRecords(kind: "outcome", device: 42, inode: 7, after: outcomes[0].id).count == 1)
        #expect(try library.fileRecords(kind: "outcome", device: 43, inode: 7).isEmpty, "another device")
        #expect(try library.fileRecords(kind: "upload", device: 42, inode: 8).isEmpty, "another kind")
        #expect(try library.fileRecords(kind: "outcome", limit: 2).map(\.inode) == [7, 8], "newest first")
        #expect(try library.fileRecord(id: 999) == nil)
        // Outside a block the change request is refused.
        #expect(throws: PhotosError.self) { try FileRecordChangeRequest.append([self.draft("x", inode: 1, "")]) }
    }

    @Test("a block that fails writes none of its records", arguments: CatalogBackend.all)
    func atomic(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        struct Refused: Error {}
        await #expect(throws: Refused.self) {
            try await library.performChanges {
                try FileRecordChangeRequest.append([self.draft("outcome", inode: 1, "never")])
                throw Refused()
            }
        }
        #expect(try library.fileRecords(kind: "outcome").isEmpty)
    }

    @Test("records older than the retention are removed when new ones are written", arguments: CatalogBackend.all)
    func pruned(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let retention = HistoryRetention(fileRecordAge: 0.2)
        let first = try await folder.library(retention: retention, on: backend)
        let old = try await first.appendFileRecords([draft("outcome", inode: 1, "old")])
        try await Task.sleep(for: .milliseconds(400))
        // A new writer (another process, a restart) prunes at its first write.
        let library = PhotoLibrary(url: first.url, historyRetention: retention, catalog: first.catalog)
        try await library.appendFileRecords([draft("outcome", inode: 2, "new")])
        #expect(try library.fileRecord(id: old[0]) == nil)
        #expect(try library.fileRecords(kind: "outcome").map(\.inode) == [2])
        // The default keeps 30 days.
        #expect(HistoryRetention.default.fileRecordAge == 30 * 24 * 3600)
    }
}
