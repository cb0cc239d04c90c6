import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Keyset pages by capture time (capturedBefore)", CatalogGate.one)
struct KeysetPagingTests {
    @Test("pages of any size walk every asset once, newest first: equal dates by insertion, no date last", arguments: CatalogBackend.all)
    func pages(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let files = try folder.makeFiles(9, prefix: "keyset-")
        // Dates with ties (three at 500, two at 300) and two assets without one.
        let dates: [Double?] = [100, 500, 300, nil, 500, 900, 300, nil, 500]
        let report = try await library.performChanges {
            for (file, date) in zip(files, dates) {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(with: .photo, fileURL: file, options: nil)
                request.creationDate = date.map { Date(timeIntervalSince1970: $0) }
            }
        }
        let created = report.assetCreations.map(\.localIdentifier)
        // Newest first; ties: the later insertion first; no date at the end, later insertion first.
        let expected = [5, 8, 4, 1, 6, 2, 0, 7, 3].map { created[$0] }
        for size in 1...4 {
            var seen: [String] = []
            var cursor: AssetCursor?
            repeat {
                let options = FetchOptions(
                    predicate: cursor.map { .capturedBefore($0) },
                    sortDescriptors: [FetchSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: size)
                let page = try Asset.fetchAssets(with: options, library: library).objects
                seen += page.map(\.localIdentifier)
                cursor = page.count == size ? page.last?.cursor : nil
                // The cursor's text survives the round trip a client makes.
                if let text = cursor?.stringValue { #expect(AssetCursor(string: text) == cursor) }
            } while cursor != nil
            #expect(seen == expected, "pages of \(size)")
        }
        for bad in ["", "x", "1_", "_3", "1.5_0", "nan_3", "1_2_3", String(repeating: "9", count: 40) + "_1"] {
            #expect(AssetCursor(string: bad) == nil, "\(bad)")
        }
    }

    @Test("a page after a dated cursor starts at the cursor in the date index (no scan from the newest asset)", arguments: CatalogBackend.all)
    func pagesUseTheIndex(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        _ = try await AlbumTests.makeAssets(3, in: folder, library: library)
        let newestFirst = FetchOptions(sortDescriptors: [FetchSortDescriptor(key: .creationDate, ascending: false)])
        let walk = try Asset.fetchAssets(with: newestFirst, library: library).objects
        let cursor = try #require(walk.first?.cursor)
        let query = AssetQuery(
            source: .all,
            options: FetchOptions(
                predicate: .and([.isFavorite(false), .capturedBefore(cursor)]),
                sortDescriptors: [FetchSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: 2))
        let sql = try query.compile()
        let database = try library.rawCatalog()
        if backend == .sqlite {
            let plan = try database.rows("EXPLAIN QUERY PLAN " + sql.sql, sql.values) { $0.string(3) }
            #expect(plan.contains { $0.contains("SEARCH") && $0.contains("assets_by_creation_date") && $0.contains("<") }, "\(plan)")
        } else {
            // PostgreSQL's planner scans a three-row table whatever the indexes; the range must still mean the same:
            // the next dated, not favourite assets of the newest-first walk.
            let rows = try database.rows(sql.sql, sql.values) { $0.string(1) }
            let expected = walk.dropFirst().filter { $0.creationDate != nil && !$0.isFavorite }.prefix(2)
            #expect(!expected.isEmpty)
            #expect(rows.map { LocalIdentifier.asset(uuid: $0) } == expected.map(\.localIdentifier))
        }
        // Nested under `or`, the cursor keeps its full meaning (dateless assets included) and is not a range.
        let nested = AssetQuery(
            source: .all,
            options: FetchOptions(
                predicate: .or([.capturedBefore(cursor), .isFavorite(true)]),
                sortDescriptors: [FetchSortDescriptor(key: .creationDate, ascending: false)]))
        #expect(try nested.compile().sql.contains("a.creation_date IS NULL"))
    }
}
