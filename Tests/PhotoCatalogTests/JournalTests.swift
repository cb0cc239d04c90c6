import Foundation
import Testing

@testable import PhotoCatalog

@Suite("Application journal", CatalogGate.one)
struct JournalTests {
    @Test("append returns ids in order; entries come back by kind with payloads and times; removal", arguments: CatalogBackend.all)
    func basics(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let payloads = (0..<5).map { Data("claim \($0)".utf8) }
        let before = Date().addingTimeInterval(-0.002)
        let ids = try await library.appendJournalEntries(kind: "claim", payloads: payloads)
        _ = try await library.appendJournalEntries(kind: "other", payloads: [Data([0, 1, 2])])
        #expect(ids.count == 5 && ids == ids.sorted() && Set(ids).count == 5)
        let entries = try library.journalEntries(kind: "claim")
        #expect(entries.map(\.id) == ids)
        #expect(entries.map(\.payload) == payloads)
        #expect(entries.allSatisfy { $0.kind == "claim" && $0.createdAt >= before && $0.createdAt <= Date() })
        #expect(try library.journalEntries(kind: "other").map(\.payload) == [Data([0, 1, 2])])
        try await library.removeJournalEntries([ids[1], ids[3], 999_999])
        #expect(try library.journalEntries(kind: "claim").map(\.id) == [ids[0], ids[2], ids[4]])
    }

    @Test("removal inside a block commits with the block's changes, and not at all when the block fails", arguments: CatalogBackend.all)
    func atomicRemoval(backend: CatalogBackend) async throws {
        struct Boom: Error {}
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let files = try folder.makeFiles(2)
        let ids = try await library.appendJournalEntries(kind: "claim", payloads: [Data("a".utf8), Data("b".utf8)])
        await #expect(throws: Boom.self) {
            try await library.performChanges {
                _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: files[0])
                try JournalChangeRequest.removeEntries([ids[0]])
                throw Boom()
            }
        }
        #expect(try library.journalEntries(kind: "claim").count == 2)
        // A block that fails while it is applied (an album deleted, then added to) keeps the entries too.
        try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Doomed")
        }
        let doomed = try #require(
            AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).firstObject)
        await #expect {
            try await library.performChanges {
                let request = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: files[0])
                try JournalChangeRequest.removeEntries([ids[0]])
                try AssetCollectionChangeRequest.deleteAssetCollections([doomed])
                try AssetCollectionChangeRequest(for: doomed).addAssets([request.placeholderForCreatedAsset!])
            }
        } throws: { ($0 as? PhotosError)?.code == .identifierNotFound }
        #expect(try library.journalEntries(kind: "claim").count == 2)
        #expect(try Asset.fetchAssets(with: nil, library: library).isEmpty)
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: files[1])
            try JournalChangeRequest.removeEntries([ids[0]])
        }
        #expect(try library.journalEntries(kind: "claim").map(\.payload) == [Data("b".utf8)])
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 1)
    }
}
