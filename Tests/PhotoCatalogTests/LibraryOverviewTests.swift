import Foundation
import Testing

@testable import PhotoCatalog

@Suite("Statistics, identifier prefixes, memberships and history bounds", CatalogGate.one)
struct LibraryOverviewTests {
    @Test("statistics count kinds, favourites, hidden, Recently Deleted, albums, bytes, journal and the last change", arguments: CatalogBackend.all)
    func statistics(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        #expect(try library.statistics() == nil, "no library yet")
        #expect(!FileManager.default.fileExists(atPath: library.url.path), "statistics create nothing")

        let photos = try folder.makeFiles(3, prefix: "p", size: 100)
        let gif = try folder.write(TestFiles.gif, to: "a.gif")
        let video = try folder.makeFiles(1, prefix: "v", ext: "mov", size: 500)[0]
        let report = try await library.performChanges {
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "S")
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Empty")
            for file in photos {
                let request = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
                album.addAssets([request.placeholderForCreatedAsset!])
            }
            let animated = try AssetCreationRequest.forAsset()
            animated.addResource(
                with: .photo, fileURL: gif, options: AssetResourceCreationOptions(mimeType: "image/gif"))
            _ = try AssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: video)
        }
        let ids = report.assetCreations.map(\.localIdentifier)
        let assets = try Asset.fetchAssets(withLocalIdentifiers: ids, library: library)
        try await library.performChanges {
            try AssetChangeRequest(for: assets[0]).isFavorite = true
            try AssetChangeRequest(for: assets[1]).isHidden = true
            try AssetChangeRequest.deleteAssets([assets[2]])
        }
        let ids2 = try await library.appendJournalEntries(kind: "claim", payloads: [Data("a".utf8), Data("b".utf8)])
        #expect(ids2.count == 2)

        let stats = try #require(try library.statistics())
        #expect(stats.photoCount == 2, "one of three photos is in Recently Deleted")
        #expect(stats.gifCount == 1 && stats.videoCount == 1 && stats.assetCount == 4)
        #expect(stats.favoriteCount == 1 && stats.hiddenCount == 1 && stats.recentlyDeletedCount == 1)
        #expect(stats.albumCount == 2)
        #expect(stats.originalCount == 5 && stats.originalBytes == 3 * 100 + Int64(TestFiles.gif.count) + 500)
        #expect(stats.latestChangeToken == (try library.currentChangeToken))
        let last = try #require(stats.latestChangeDate)
        #expect(abs(last.timeIntervalSinceNow) < 60)
        #expect(stats.journalEntryCounts == ["claim": 2])
    }

    @Test("identifier prefixes: any case, full identifiers, bare UUIDs, smart albums; nothing for garbage", arguments: CatalogBackend.all)
    func prefixes(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        #expect(try library.localIdentifiers(withPrefix: "AB", objectType: .asset).isEmpty)
        let files = try folder.makeFiles(40, size: 64)
        let report = try await library.performChanges {
            for file in files { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "P")
        }
        let ids = report.assetCreations.map(\.localIdentifier)
        let album = try #require(report.createdCollectionIdentifiers.first)
        let some = ids[7]
        let uuid = String(some.prefix(36))
        #expect(try library.localIdentifiers(withPrefix: some, objectType: .asset) == [some])
        #expect(try library.localIdentifiers(withPrefix: uuid, objectType: .asset) == [some])
        #expect(try library.localIdentifiers(withPrefix: uuid.lowercased(), objectType: .asset) == [some])
        #expect(try library.localIdentifiers(withPrefix: String(uuid.prefix(13)), objectType: .asset) == [some])
        // A one-character prefix matches many (40 random UUIDs over 16 first digits).
        let first = String(some.prefix(1))
        let expected = ids.filter { $0.hasPrefix(first) }.sorted()
        #expect(try library.localIdentifiers(withPrefix: first, objectType: .asset, limit: 100) == expected)
        #expect(try library.localIdentifiers(withPrefix: first, objectType: .asset, limit: 1) == [expected[0]])
        // Asset identifiers are not album identifiers and the other way round; garbage matches nothing.
        #expect(try library.localIdentifiers(withPrefix: some, objectType: .assetCollection).isEmpty)
        #expect(try library.localIdentifiers(withPrefix: album, objectType: .asset).isEmpty)
        #expect(try library.localIdentifiers(withPrefix: album, objectType: .assetCollection) == [album])
        #expect(try library.localIdentifiers(withPrefix: "xyz", objectType: .asset).isEmpty)
        #expect(try library.localIdentifiers(withPrefix: "", objectType: .asset).isEmpty)
        #expect(try library.localIdentifiers(withPrefix: "' OR 1=1 --", objectType: .asset).isEmpty)
        #expect(
            try library.localIdentifiers(withPrefix: "smartalbum-fav", objectType: .assetCollection) == [
                "SmartAlbum-Favorites/L0/040"
            ])
        // Deleted assets are found too.
        let deleted = try Asset.fetchAssets(withLocalIdentifiers: [some], library: library)
        try await library.performChanges { try AssetChangeRequest.deleteAssets(deleted) }
        #expect(try library.localIdentifiers(withPrefix: uuid, objectType: .asset) == [some])
    }

    @Test("album memberships of many assets in one call", arguments: CatalogBackend.all)
    func memberships(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let files = try folder.makeFiles(3, size: 64)
        let report = try await library.performChanges {
            let a = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "A")
            let b = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "B")
            let requests = try files.map { try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: $0) }
            a.addAssets([requests[0].placeholderForCreatedAsset!, requests[1].placeholderForCreatedAsset!])
            b.addAssets([requests[0].placeholderForCreatedAsset!])
        }
        let assets = Array(
            try Asset.fetchAssets(
                withLocalIdentifiers: report.assetCreations.map(\.localIdentifier), library: library))
        let memberships = try library.albumMemberships(of: assets)
        #expect(memberships[assets[0].localIdentifier]?.map(\.title) == ["A", "B"])
        #expect(memberships[assets[1].localIdentifier]?.map(\.title) == ["A"])
        #expect(memberships[assets[2].localIdentifier]?.isEmpty == true)
        #expect(try library.albumMemberships(of: []).isEmpty)
        let single = try AssetCollection.fetchAssetCollectionsContaining(assets[0], with: .album)
        #expect(memberships[assets[0].localIdentifier] == Array(single))
    }

    @Test("the earliest change token reads the whole kept history, also after pruning", arguments: CatalogBackend.all)
    func earliestToken(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = folder.library(
            retention: HistoryRetention(maximumAge: 3600, minimumTransactions: 1, maximumTransactions: 3))
        #expect(try library.earliestChangeToken.value == 0)
        for index in 0..<6 {
            try await library.performChanges {
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "T\(index)")
            }
        }
        let earliest = try library.earliestChangeToken
        #expect(earliest.value > 0, "older changes were pruned")
        let kept = try library.fetchPersistentChanges(since: earliest)
        #expect(kept.count == 6 - Int(earliest.value))
        #expect(kept.last?.changeToken == (try library.currentChangeToken))
    }
}
