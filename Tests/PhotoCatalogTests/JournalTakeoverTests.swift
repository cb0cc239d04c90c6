import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

/// Taking a dead node's journal entries over, and the fencing check that keeps the dead node from finishing them too.
@Suite("Journal takeover and fencing", CatalogGate.one)
struct JournalTakeoverTests {
    /// A row in `nodes` for `node`, its last heartbeat `age` seconds ago by the server's clock.
    private func registerNode(_ node: String, heartbeatAge age: Int, in library: PhotoLibrary) throws {
        let raw = try library.rawCatalog()
        try raw.run(
            """
            INSERT INTO nodes(id, host, pid, version, inbox, started_at, heartbeat_at)
            VALUES (?, 'elsewhere', 1, 'test', '/inbox', now(), now() - CAST(? AS INTEGER) * interval '1 second')
            """, [.text(node), .integer(Int64(age))])
    }

    private func payloads(_ count: Int) -> [Data] { (0..<count).map { Data("file \($0)".utf8) } }

    @Test("a dead node's entries move under new ids; its commit consuming an old one fails and writes nothing")
    func takeoverFencesTheDeadNode() async throws {
        let folder = try TemporaryDirectory()
        let dead = try await folder.library(on: .postgres)
        try await dead.performChanges { _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") }
        let alive = PhotoLibrary(url: dead.url, catalog: dead.catalog)
        try registerNode("a", heartbeatAge: 300, in: dead)
        let old = try await dead.appendJournalEntries(kind: "claim:a", payloads: payloads(3))

        #expect(try alive.expiredNodes(lease: 120, excluding: "b") == ["a"])
        #expect(try alive.expiredNodes(lease: 600, excluding: "b").isEmpty, "300 s is within a 600 s lease")
        let taken = try await alive.takeOverJournalEntries(
            ofNode: "a", fromKind: "claim:a", toKind: "claim:b", ids: old, lease: 120
        ) { oldID, payload in payload + Data(" from \(oldID)".utf8) }
        #expect(taken.map(\.oldID) == old)
        #expect(Set(taken.map(\.newID)).isDisjoint(with: old), "new ids: new fencing numbers")
        #expect(try dead.journalEntries(kind: "claim:a").isEmpty)
        let mine = try alive.journalEntries(kind: "claim:b")
        #expect(mine.map(\.id) == taken.map(\.newID))
        #expect(String(decoding: mine[0].payload, as: UTF8.self) == "file 0 from \(old[0])")

        // The dead node wakes up and tries to finish its first file: the commit is fenced off, nothing is written and
        // the file it moved goes back.
        let source = try folder.makeFiles(1)[0]
        await #expect {
            try await dead.performChanges {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(
                    with: .photo, fileURL: source, options: AssetResourceCreationOptions(shouldMoveFile: true))
                try JournalChangeRequest.consumeEntries([old[0]], kind: "claim:a")
            }
        } throws: { error in
            (error as? PhotosError)?.goneJournalEntries == [old[0]]
        }
        #expect(try Asset.fetchAssets(with: nil, library: alive).isEmpty)
        #expect(FileManager.default.fileExists(atPath: source.path), "the moved source is back")
        #expect(TestFiles.originals(alive).isEmpty)

        // The node that holds the entries now finishes the file.
        try await alive.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: source, options: AssetResourceCreationOptions(shouldMoveFile: true))
            try JournalChangeRequest.consumeEntries([taken[0].newID], kind: "claim:b")
        }
        #expect(try Asset.fetchAssets(with: nil, library: alive).count == 1)
        #expect(try alive.journalEntries(kind: "claim:b").map(\.id) == taken.dropFirst().map(\.newID))
    }

    @Test("nothing is taken from a node that lives: a fresh heartbeat, or its id's lock held by its daemon")
    func livingNodesKeepTheirEntries() async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: .postgres)
        try await library.performChanges { _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") }
        try registerNode("fresh", heartbeatAge: 2, in: library)
        try registerNode("held", heartbeatAge: 300, in: library)
        let fresh = try await library.appendJournalEntries(kind: "claim:fresh", payloads: payloads(2))
        let held = try await library.appendJournalEntries(kind: "claim:held", payloads: payloads(2))
        // The daemon of "held" is alive (say, cut off from its heartbeat's connection only): its session lock stands.
        let daemon = try library.rawCatalog()
        try daemon.run(
            "SELECT pg_advisory_lock(CAST(? AS INTEGER), hashtext(?))",
            [.integer(Int64(NodeRegistration.lockClass)), .text("held")])

        #expect(try library.expiredNodes(lease: 60, excluding: "me") == ["held"])
        let fromFresh = try await library.takeOverJournalEntries(
            ofNode: "fresh", fromKind: "claim:fresh", toKind: "claim:me", ids: fresh, lease: 60) { $1 }
        #expect(fromFresh.isEmpty)
        let whileHeld = try await library.takeOverJournalEntries(
            ofNode: "held", fromKind: "claim:held", toKind: "claim:me", ids: held, lease: 60) { $1 }
        #expect(whileHeld.isEmpty)
        #expect(try library.journalEntries(kind: "claim:held").map(\.id) == held)

        // Its daemon is gone (its session ended): now the entries are taken, only those asked for.
        try daemon.run(
            "SELECT pg_advisory_unlock(CAST(? AS INTEGER), hashtext(?))",
            [.integer(Int64(NodeRegistration.lockClass)), .text("held")])
        let taken = try await library.takeOverJournalEntries(
            ofNode: "held", fromKind: "claim:held", toKind: "claim:me", ids: [held[1]], lease: 60) { $1 }
        #expect(taken.map(\.oldID) == [held[1]])
        #expect(try library.journalEntries(kind: "claim:held").map(\.id) == [held[0]])
        #expect(try library.journalEntries(kind: "claim:fresh").map(\.id) == fresh)
    }

    @Test("a block consuming an entry that is gone fails whole; one consuming entries still there commits", arguments: CatalogBackend.all)
    func consumingIsAFence(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let ids = try await library.appendJournalEntries(kind: "claim:n", payloads: payloads(3))
        try await library.removeJournalEntries([ids[2]])
        await #expect {
            try await library.performChanges {
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Never")
                try JournalChangeRequest.consumeEntries([ids[0], ids[2]], kind: "claim:n")
            }
        } throws: { error in
            (error as? PhotosError)?.goneJournalEntries == [ids[2]]
        }
        #expect(try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).count == 0)
        #expect(try library.journalEntries(kind: "claim:n").map(\.id) == [ids[0], ids[1]], "nothing consumed")
        // An entry of another kind under the same id is not this claim.
        await #expect(throws: PhotosError.self) {
            try await library.performChanges { try JournalChangeRequest.consumeEntries([ids[0]], kind: "claim:other") }
        }
        try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Made")
            try JournalChangeRequest.consumeEntries([ids[0], ids[1]], kind: "claim:n")
        }
        #expect(try library.journalEntries(kind: "claim:n").isEmpty)
        #expect(try await library.takeOverJournalEntries(
            ofNode: "n", fromKind: "claim:n", toKind: "claim:m", ids: ids, lease: 1) { $1 }.isEmpty)
    }
}
