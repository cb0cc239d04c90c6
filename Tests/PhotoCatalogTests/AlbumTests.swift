import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Albums, smart albums and fetches", CatalogGate.one)
struct AlbumTests {
    /// Creates `count` photo assets and returns them in creation order.
    static func makeAssets(_ count: Int, in folder: TemporaryDirectory, library: PhotoLibrary) async throws -> [Asset] {
        let files = try folder.makeFiles(count, prefix: "asset-\(UUID().uuidString.prefix(4))-")
        let report = try await library.performChanges {
            for (index, file) in files.enumerated() {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(with: .photo, fileURL: file, options: nil)
                request.creationDate = Date(timeIntervalSince1970: 1_000_000 + Double(index))
            }
        }
        let identifiers = report.assetCreations.map(\.localIdentifier)
        return try Asset.fetchAssets(withLocalIdentifiers: identifiers, library: library).objects
    }

    static func albums(_ library: PhotoLibrary) throws -> [AssetCollection] {
        try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).objects
    }

    @Test(
        "titles are stored verbatim and found exactly",
        arguments: [
            "Landscapes", "Bob's \"best\" shots", "x'); DROP TABLE albums; --", "100%_done \\ [a-z]*", "🏔️ Alps 🇨🇭",
            "Caf\u{E9}", "Cafe\u{301}", "  padded  ", "line\nbreak\ttab", "nul\u{0}inside", "",
        ], CatalogBackend.all)
    func verbatimTitles(title: String, backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        if backend == .postgres && title.contains("\u{0}") {
            // PostgreSQL's text cannot hold NUL: the change fails whole, saying so, and nothing is stored.
            await #expect(throws: PhotosError.self) {
                try await library.performChanges {
                    _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
                }
            }
            #expect(try Self.albums(library).isEmpty)
            return
        }
        let created = Locked<String?>(nil)
        try await library.performChanges {
            let request = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
            created.value = request.placeholderForCreatedAssetCollection?.localIdentifier
        }
        let found = try AssetCollection.fetchAssetCollections(
            with: .album, subtype: .albumRegular, options: FetchOptions(predicate: .title(.equals(title))),
            library: library)
        #expect(found.count == 1)
        #expect(found.first?.title == title)
        #expect(found.first?.title.unicodeScalars.elementsEqual(title.unicodeScalars) == true)
        #expect(found.first?.localIdentifier == created.value)
        let raw = try library.rawCatalog()
        #expect(
            try raw.firstRow("SELECT title FROM albums") { $0.data(0) } == Data(title.utf8), "bytes stored as given")
    }

    /// Holds what a block made without keeping it alive.
    final class WeakRequests: @unchecked Sendable {
        weak var album: AssetCollectionChangeRequest?
        weak var asset: AssetCreationRequest?
        weak var placeholder: ObjectPlaceholder?
    }

    @Test("a block's requests and placeholders are freed once it is done (a server creates albums for months)", arguments: CatalogBackend.all)
    func requestsAreFreedAfterTheBlock(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let file = try #require(try folder.makeFiles(1, prefix: "freed-").first)
        let made = WeakRequests()
        try await library.performChanges {
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            let asset = try AssetCreationRequest.forAsset()
            asset.addResource(with: .photo, fileURL: file, options: nil)
            album.addAssets([try #require(asset.placeholderForCreatedAsset)])
            made.album = album
            made.asset = asset
            made.placeholder = album.placeholderForCreatedAssetCollection
        }
        #expect(await eventually(timeout: 5) { made.album == nil && made.asset == nil && made.placeholder == nil })
        #expect(made.album == nil, "the album creation request outlived its block")
        #expect(made.placeholder == nil, "the album placeholder outlived its block")
        #expect(made.asset == nil, "the asset creation request outlived its block")
    }

    @Test("NFC and NFD spellings are two different titles; duplicate titles are allowed", arguments: CatalogBackend.all)
    func normalisationAndDuplicates(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let nfc = "Caf\u{E9}"
        let nfd = "Cafe\u{301}"
        try await library.performChanges {
            for title in [nfc, nfd, nfc] {
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
            }
        }
        #expect(try Self.albums(library).count == 3)
        func count(_ title: String) throws -> Int {
            try AssetCollection.fetchAssetCollections(
                with: .album, subtype: .any, options: FetchOptions(predicate: .title(.equals(title))), library: library
            ).count
        }
        #expect(try count(nfc) == 2)
        #expect(try count(nfd) == 1)
        let contains = try AssetCollection.fetchAssetCollections(
            with: .album, subtype: .any, options: FetchOptions(predicate: .title(.contains("%"))), library: library)
        #expect(contains.isEmpty, "'%' is a character, not a wildcard")
    }

    @Test("create, fill, rename, reorder, remove and delete an album; its assets stay", arguments: CatalogBackend.all)
    func albumLifecycle(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let assets = try await Self.makeAssets(6, in: folder, library: library)
        let ids = assets.map(\.localIdentifier)
        try await library.performChanges {
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            album.addAssets(Array(assets[0..<4]))
            album.addAssets([assets[1]])  // already there: stays where it is
        }
        var album = try #require(Self.albums(library).first)
        #expect(album.estimatedAssetCount == 4)
        var current = album
        #expect(try Asset.fetchAssets(in: album).map(\.localIdentifier) == Array(ids[0..<4]))

        try await library.performChanges { [current] in
            let change = try AssetCollectionChangeRequest(for: current)
            change.title = "Trip 2024"
            change.insertAssets([assets[4], assets[5]], at: IndexSet([0, 3]))
        }
        album = try #require(Self.albums(library).first)
        current = album
        #expect(album.title == "Trip 2024")
        #expect(
            try Asset.fetchAssets(in: album).map(\.localIdentifier) == [ids[4], ids[0], ids[1], ids[5], ids[2], ids[3]])

        try await library.performChanges { [current] in
            let change = try AssetCollectionChangeRequest(for: current)
            change.moveAssets(at: IndexSet([0, 1]), to: 2)  // [1,5,4,0,2,3]
            change.removeAssets([assets[3]])  // [1,5,4,0,2]
            change.removeAssets(at: IndexSet([0]))  // [5,4,0,2]
        }
        album = try #require(Self.albums(library).first)
        #expect(try Asset.fetchAssets(in: album).map(\.localIdentifier) == [ids[5], ids[4], ids[0], ids[2]])
        #expect(album.estimatedAssetCount == 4)

        let containing = try AssetCollection.fetchAssetCollectionsContaining(assets[0], with: .album)
        #expect(containing.map(\.title) == ["Trip 2024"])
        #expect(try AssetCollection.fetchAssetCollectionsContaining(assets[1], with: .album).isEmpty)

        try await library.performChanges { [album] in try AssetCollectionChangeRequest.deleteAssetCollections([album]) }
        #expect(try Self.albums(library).isEmpty)
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 6)
    }

    @Test("bad indexes and smart-album edits fail with clear errors and change nothing", arguments: CatalogBackend.all)
    func badEdits(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let assets = try await Self.makeAssets(2, in: folder, library: library)
        try await library.performChanges {
            try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "A").addAssets(assets)
        }
        let album = try #require(Self.albums(library).first)
        await #expect {
            try await library.performChanges { try AssetCollectionChangeRequest(for: album).removeAssets(at: [5]) }
        } throws: { ($0 as? PhotosError)?.code == .invalidParameter }
        let allPhotos = try #require(
            AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumUserLibrary, library: library)
                .firstObject)
        await #expect {
            try await library.performChanges { _ = try AssetCollectionChangeRequest(for: allPhotos) }
        } throws: { ($0 as? PhotosError)?.code == .changeNotSupported }
        #expect(!allPhotos.canPerform(.addContent) && album.canPerform(.rename))
        #expect(try Asset.fetchAssets(in: album).count == 2)
    }

    @Test("smart albums: favourites, videos, animated, hidden, Recently Deleted (restore and purge)", arguments: CatalogBackend.all)
    func smartAlbums(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let photos = try await Self.makeAssets(4, in: folder, library: library)
        let gif = try folder.write(TestFiles.gif, to: "a.gif")
        let movie = try folder.write(TestFiles.distinctBytes(size: 64), to: "m.mp4")
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: gif)
            _ = try AssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)
            try AssetChangeRequest(for: photos[0]).isFavorite = true
            try AssetChangeRequest(for: photos[1]).isHidden = true
            try AssetChangeRequest.deleteAssets([photos[2]])
            try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Mixed").addAssets(photos)
        }
        func smart(_ subtype: AssetCollectionSubtype) throws -> AssetCollection {
            try #require(
                AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: subtype, library: library).firstObject
            )
        }
        func count(_ subtype: AssetCollectionSubtype) throws -> Int { try Asset.fetchAssets(in: smart(subtype)).count }
        #expect(try count(.smartAlbumUserLibrary) == 4)  // 6 minus hidden minus deleted
        #expect(try count(.smartAlbumFavorites) == 1)
        #expect(try count(.smartAlbumVideos) == 1)
        #expect(try count(.smartAlbumAnimated) == 1)
        #expect(try count(.smartAlbumRecentlyAdded) == 4)
        #expect(try count(.smartAlbumLivePhotos) == 0)
        #expect(try count(.smartAlbumRecentlyDeleted) == 1)
        #expect(try smart(.smartAlbumUserLibrary).estimatedAssetCount == 4)
        #expect(
            try Asset.fetchAssets(in: smart(.smartAlbumUserLibrary), options: FetchOptions(includeHiddenAssets: true))
                .count == 5)
        let mixed = try #require(Self.albums(library).first)
        #expect(mixed.estimatedAssetCount == 2, "hidden and deleted members are not counted")
        #expect(try Asset.fetchAssets(in: mixed).count == 2)
        let smartTitles = try AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, library: library)
            .map(\.title)
        #expect(
            smartTitles == [
                "All Photos", "Favorites", "Recently Added", "Videos", "Animated", "Live Photos", "Recently Deleted",
            ])

        // Restore, then purge: the stored file goes away, the album membership too.
        let deleted = try #require(Asset.fetchAssets(in: smart(.smartAlbumRecentlyDeleted)).firstObject)
        #expect(deleted.isDeleted && deleted.deletedDate != nil)
        try await library.performChanges { try AssetChangeRequest.restoreAssets([deleted]) }
        #expect(try Self.albums(library).first?.estimatedAssetCount == 3)
        let file = try #require(deleted.originalURL)
        try await library.performChanges { try AssetChangeRequest.purgeAssets([deleted]) }
        #expect(!FileManager.default.fileExists(atPath: file.path))
        #expect(try Asset.fetchAssets(withLocalIdentifiers: [deleted.localIdentifier], library: library).isEmpty)
        #expect(try Self.albums(library).first?.estimatedAssetCount == 2)
        #expect(try rawCount(library, "SELECT count(*) FROM placement_intents") == 0)
    }

    @Test("emptying Recently Deleted: only what is still deleted, and deleted before the cutoff, goes", arguments: CatalogBackend.all)
    func emptyingRecentlyDeleted(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let photos = try await Self.makeAssets(3, in: folder, library: library)
        try await library.performChanges { try AssetChangeRequest.deleteAssets(photos) }
        let deleted = try library.recentlyDeletedAssets()
        #expect(Set(deleted.map(\.localIdentifier)) == Set(photos.map(\.localIdentifier)))
        #expect(try library.recentlyDeletedAssets(deletedBefore: Date(timeIntervalSinceNow: -60)).isEmpty)
        #expect(try await library.purgeRecentlyDeleted(deletedBefore: Date(timeIntervalSinceNow: -60)) == 0)

        // photos[0] is restored after the trash was read: a purge of the stale list keeps it.
        try await library.performChanges { try AssetChangeRequest.restoreAssets([photos[0]]) }
        let files = deleted.compactMap(\.originalURL)
        try await library.performChanges { try AssetChangeRequest.purgeDeletedAssets(deleted) }
        let left = try Asset.fetchAssets(withLocalIdentifiers: photos.map(\.localIdentifier), library: library)
        #expect(left.map(\.localIdentifier) == [photos[0].localIdentifier])
        #expect(left.firstObject?.isDeleted == false)
        #expect(files.filter { FileManager.default.fileExists(atPath: $0.path) }.count == 1, "only the kept original")
        #expect(try library.recentlyDeletedAssets().isEmpty)
        // A second purge of the same (now gone) assets is a no-op, not an error.
        try await library.performChanges { try AssetChangeRequest.purgeDeletedAssets(deleted) }
        #expect(try library.verify().issues.isEmpty)
    }

    @Test("fetch options: predicates, sort descriptors and limit compile to SQL", arguments: CatalogBackend.all)
    func fetchOptions(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let assets = try await Self.makeAssets(10, in: folder, library: library)
        try await library.performChanges {
            for asset in assets[0..<5] { try AssetChangeRequest(for: asset).isFavorite = true }
        }
        let favouritesNewestFirst = try Asset.fetchAssets(
            with: FetchOptions(
                predicate: .and([.isFavorite(true), .mediaType(.image)]),
                sortDescriptors: [FetchSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: 3),
            library: library)
        #expect(
            favouritesNewestFirst.map(\.localIdentifier) == [assets[4], assets[3], assets[2]].map(\.localIdentifier))
        let range = try Asset.fetchAssets(
            with: FetchOptions(
                predicate: .creationDate(
                    from: Date(timeIntervalSince1970: 1_000_002), to: Date(timeIntervalSince1970: 1_000_005))),
            library: library)
        #expect(range.map(\.localIdentifier) == assets[2..<5].map(\.localIdentifier))
        let notFavourite = try Asset.fetchAssets(
            with: FetchOptions(predicate: .not(.isFavorite(true))), library: library)
        #expect(notFavourite.count == 5)
        let bySHA = try Asset.fetchAssets(with: FetchOptions(predicate: .sha256(assets[7].sha256!)), library: library)
        #expect(bySHA.map(\.localIdentifier) == [assets[7].localIdentifier])
        #expect(throws: PhotosError.self) {
            _ = try Asset.fetchAssets(with: FetchOptions(predicate: .title(.equals("x"))), library: library)
        }
        #expect(throws: PhotosError.self) {
            _ = try AssetCollection.fetchAssetCollections(
                with: .album, subtype: .any, options: FetchOptions(predicate: .isFavorite(true)), library: library)
        }
        // The predicate reaches SQL: the compiled statement filters, it does not fetch everything.
        let query = AssetQuery(source: .all, options: FetchOptions(predicate: .isFavorite(true), fetchLimit: 2))
        let sql = try query.compile()
        #expect(sql.sql.contains("a.is_favorite = ?") && sql.sql.contains("LIMIT ?"))
    }

    @Test("a library that does not exist yet reads as empty and is not created by reading", arguments: CatalogBackend.all)
    func missingLibraryReads(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        #expect(try Asset.fetchAssets(with: nil, library: library).isEmpty)
        #expect(try AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, library: library).isEmpty)
        #expect(try library.journalEntries(kind: "claim").isEmpty)
        #expect(try library.fetchPersistentChanges(since: library.currentChangeToken).isEmpty)
        #expect(!FileManager.default.fileExists(atPath: library.url.path))
    }
}
