import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Folders (CollectionList): creation with placeholders, nesting, top-level fetches, deletion, history", CatalogGate.one)
struct CollectionListTests {
    private func titles(_ result: FetchResult<Collection>) -> [String] { result.map { $0.localizedTitle ?? "" } }

    @Test("a folder, an album in it and a subfolder in one block; top level and children fetched as PhotoKit does", arguments: CatalogBackend.all)
    func nesting(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let ids = Locked<[String]>([])
        try await library.performChanges {
            let year = try CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "2023")
            let trips = try CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Trips")
            let paris = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Paris")
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Loose")
            year.addChildCollections([paris.placeholderForCreatedAssetCollection!, trips.placeholderForCreatedCollectionList!])
            ids.value = [
                year.placeholderForCreatedCollectionList!.localIdentifier,
                trips.placeholderForCreatedCollectionList!.localIdentifier,
                paris.placeholderForCreatedAssetCollection!.localIdentifier,
            ]
        }
        let top = try CollectionList.fetchTopLevelUserCollections(library: library)
        #expect(titles(top) == ["2023", "Loose"], "folders first, then albums; smart albums are not user collections")
        guard case .folder(let year) = top[0] else { Issue.record("not a folder: \(top[0])"); return }
        #expect(year.localIdentifier == ids.value[0] && year.localIdentifier.hasSuffix("/L0/050"))
        #expect(year.estimatedChildCollectionCount == 2 && year.collectionListType == .folder)
        let children = try Collection.fetchCollections(in: year)
        #expect(titles(children) == ["Trips", "Paris"])
        #expect(children.map(\.canContainAssets) == [false, true])
        guard case .album(let paris) = children[1] else { return }
        #expect(paris.parentFolderIdentifier == year.localIdentifier)
        #expect(try CollectionList.fetchCollectionListsContaining(.album(paris)).firstObject?.title == "2023")
        #expect(try CollectionList.fetchCollectionListsContaining(top[1]).isEmpty)
        #expect(try CollectionList.fetchCollectionLists(library: library).map(\.title) == ["2023", "Trips"])
        let byID = try CollectionList.fetchCollectionLists(withLocalIdentifiers: [ids.value[1]], library: library)
        #expect(byID.first?.parentFolderIdentifier == year.localIdentifier)
        // Albums are still albums: every album fetch finds Paris.
        #expect(
            try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).map(\.title)
                == ["Paris", "Loose"])
    }

    @Test("no folder inside itself; deleting a folder moves what it held up; renames and moves show in the history", arguments: CatalogBackend.all)
    func cyclesDeletionHistory(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        try await library.performChanges {
            let outer = try CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Outer")
            let inner = try CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "Inner")
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Album")
            outer.addChildCollections([inner.placeholderForCreatedCollectionList!])
            inner.addChildCollections([album.placeholderForCreatedAssetCollection!])
        }
        let lists = try CollectionList.fetchCollectionLists(library: library)
        let outer = try #require(lists.first { $0.title == "Outer" })
        let inner = try #require(lists.first { $0.title == "Inner" })
        await #expect(throws: PhotosError.self) {
            try await library.performChanges {
                try CollectionListChangeRequest(for: inner).addChildCollections([outer])
            }
        }
        await #expect(throws: PhotosError.self) {
            try await library.performChanges { try CollectionListChangeRequest(for: outer).addChildCollections([outer]) }
        }
        let start = try library.currentChangeToken
        try await library.performChanges {
            try CollectionListChangeRequest(for: outer).title = "Outer renamed"
            try CollectionListChangeRequest.deleteCollectionLists([inner])
        }
        let after = try CollectionList.fetchCollectionLists(library: library)
        #expect(after.map(\.title) == ["Outer renamed"])
        let album = try #require(
            try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).firstObject)
        #expect(album.parentFolderIdentifier == outer.localIdentifier, "the album moved up into Outer")
        let change = try #require(try library.fetchPersistentChanges(since: start).first)
        let details = change.changeDetails(for: .collectionList)
        #expect(details.deletedLocalIdentifiers == [inner.localIdentifier])
        #expect(details.updatedLocalIdentifiers.contains(outer.localIdentifier))
        #expect(change.changeDetails(for: .assetCollection).updatedLocalIdentifiers == [album.localIdentifier])
        // Out of the folder: to the top level.
        try await library.performChanges { try CollectionListChangeRequest(for: outer).removeChildCollections([album]) }
        #expect(titles(try CollectionList.fetchTopLevelUserCollections(library: library)) == ["Outer renamed", "Album"])
    }

    @Test("an inbox folder is bound to one album and one folder at a time; a rename keeps the binding", arguments: CatalogBackend.all)
    func inboxBindings(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        try await library.performChanges {
            let trip = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            trip.bindingKey = "Trip"
            let year = try CollectionListChangeRequest.creationRequestForCollectionList(withTitle: "2023")
            year.bindingKey = "2023"
        }
        let trip = try #require(try AssetCollection.fetchAlbum(forBindingKey: "Trip", library: library))
        #expect(trip.bindingKey == "Trip")
        try await library.performChanges { try AssetCollectionChangeRequest(for: trip).title = "Holidays" }
        #expect(try AssetCollection.fetchAlbum(forBindingKey: "Trip", library: library)?.title == "Holidays")
        // Binding the path to another album moves it.
        try await library.performChanges {
            let other = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Other")
            other.bindingKey = "Trip"
        }
        #expect(try AssetCollection.fetchAlbum(forBindingKey: "Trip", library: library)?.title == "Other")
        #expect(try AssetCollection.fetchAlbum(forBindingKey: "Nowhere", library: library) == nil)
        let year = try #require(try CollectionList.fetchCollectionList(forBindingKey: "2023", library: library))
        #expect(year.title == "2023" && year.bindingKey == "2023")
    }

    @Test("find-or-create of a key's album: a writer that made it since the caller looked wins, one album either way", arguments: CatalogBackend.all)
    func findOrCreateJoinsTheBoundAlbum(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        // Another writer of the same catalog (another process, or node): it creates the album first.
        let other = PhotoLibrary(url: library.url, catalog: library.catalog)
        let made = Locked<String?>(nil)
        try await other.performChanges {
            let request = try AssetCollectionChangeRequest.creationRequestForAssetCollection(
                withTitle: "Trip", bindingKey: "Trip")
            made.value = request.placeholderForCreatedAssetCollection?.localIdentifier
        }
        let photo = try folder.write(TestFiles.distinctBytes(size: 500), to: "a.jpg")
        let joined = Locked<ObjectPlaceholder?>(nil)
        let report = try await library.performChanges {
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(
                withTitle: "Trip", bindingKey: "Trip")
            let asset = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: photo)
            album.addAssets([try #require(asset.placeholderForCreatedAsset)])
            joined.value = album.placeholderForCreatedAssetCollection
        }
        // The placeholder resolves at the commit, as a duplicate asset's does.
        #expect(joined.value?.localIdentifier == made.value, "the request resolved to the album the other writer made")
        #expect(report.createdCollectionIdentifiers == [made.value])
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).objects
        #expect(albums.map(\.localIdentifier) == [made.value])
        #expect(try Asset.fetchAssets(in: try #require(albums.first)).count == 1)
        // A plain creation with the key set moves the key, as before.
        try await library.performChanges {
            let request = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Other")
            request.bindingKey = "Trip"
        }
        #expect(try AssetCollection.fetchAlbum(forBindingKey: "Trip", library: library)?.title == "Other")
    }

    @Test("eight writers on one catalog create the same key's album at the same instant: one album holds every asset", arguments: CatalogBackend.all)
    func concurrentFindOrCreate(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let first = try await folder.library(on: backend)
        let files = try folder.makeFiles(8, prefix: "race")
        try await withThrowingTaskGroup(of: Void.self) { group in
            for file in files {
                let writer = PhotoLibrary(url: first.url, catalog: first.catalog)
                group.addTask {
                    try await writer.performChanges {
                        let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(
                            withTitle: "Race", bindingKey: "Race")
                        let asset = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
                        album.addAssets([try #require(asset.placeholderForCreatedAsset)])
                    }
                }
            }
            try await group.waitForAll()
        }
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: first).objects
        #expect(albums.count == 1)
        #expect(albums.first?.bindingKey == "Race")
        #expect(try Asset.fetchAssets(in: try #require(albums.first)).count == 8)
    }
}
