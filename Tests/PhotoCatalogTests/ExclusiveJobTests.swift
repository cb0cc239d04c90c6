import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Housekeeping one node at a time (runExclusively)", CatalogGate.one)
struct ExclusiveJobTests {
    @Test("a job another writer of the catalog runs now is skipped; another job, or the same one after, runs", arguments: CatalogBackend.all)
    func oneNodeAtATime(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let first = try await folder.library(on: backend)
        // The first write creates the catalog (PostgreSQL: the schema) before the jobs run.
        try await first.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "made")
        }
        // Another node: its own PhotoLibrary (its own connections) on the same catalog.
        let second = PhotoLibrary(url: first.url, catalog: first.catalog)
        let inside = try await first.runExclusively("trash purge") { () async throws -> (String?, String?) in
            let same = try await second.runExclusively("trash purge") { "ran beside" }
            let other = try await second.runExclusively("time zone backfill") { "ran" }
            return (same, other)
        }
        let (same, other) = try #require(inside)
        if backend == .postgres {
            #expect(same == nil, "the same job on another node is skipped while the first runs it")
        } else {
            #expect(same == "ran beside", "one SQLite daemon per library: nothing to hold")
        }
        #expect(other == "ran")
        #expect(try await second.runExclusively("trash purge") { "ran after" } == "ran after")
    }

    @Test("turns: tryTurn skips while another process holds the turn, takeTurn waits for it; free on SQLite", arguments: CatalogBackend.all)
    func turns(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let first = try await folder.library(on: backend)
        try await first.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "made")
        }
        let second = PhotoLibrary(url: first.url, catalog: first.catalog)
        let held = try #require(try first.tryTurn("derivative sweep"))
        let beside = try second.tryTurn("derivative sweep")
        #expect((beside == nil) == (backend == .postgres), "only a shared catalog has turns to wait for")
        beside?.end()
        #expect(try second.tryTurn("another job") != nil)
        // takeTurn waits until the holder ends its turn.
        let waited = Task.detached { () -> Double in
            let start = Date()
            let turn = try second.takeTurn("derivative sweep")
            turn.end()
            return Date().timeIntervalSince(start)
        }
        try await Task.sleep(for: .milliseconds(500))
        held.end()
        let seconds = try await waited.value
        if backend == .postgres { #expect(seconds >= 0.4, "takeTurn returned after \(seconds) s, before the turn was free") }
        #expect(try second.tryTurn("derivative sweep") != nil)
    }
}
