import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Duplicates", CatalogGate.one)
struct DuplicateTests {
    @Test("content already stored resolves to the existing asset; album additions go there; the source stays", arguments: CatalogBackend.all)
    func existingContent(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let bytes = TestFiles.distinctBytes(size: 777)
        let first = try folder.write(bytes, to: "a/first.jpg")
        let again = try folder.write(bytes, to: "b/again.jpg")
        let original = try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: first)
        }
        let existingID = try #require(original.assetCreations.first?.localIdentifier)

        let placeholderID = Locked<String?>(nil)
        let duplicateFlag = Locked<AssetCreationRequest?>(nil)
        let report = try await library.performChanges {
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            let request = try AssetCreationRequest.forAsset()
            request.addResource(
                with: .photo, fileURL: again, options: AssetResourceCreationOptions(shouldMoveFile: true))
            // The placeholder names the existing asset as soon as the resource is added.
            placeholderID.value = request.placeholderForCreatedAsset?.localIdentifier
            album.addAssets([request.placeholderForCreatedAsset!])
            duplicateFlag.value = request
        }
        #expect(placeholderID.value == existingID)
        #expect(duplicateFlag.value?.isDuplicate == true)
        #expect(report.duplicateCount == 1 && report.createdAssetCount == 0)
        #expect(report.assetCreations.first?.localIdentifier == existingID)
        #expect(report.assetCreations.first?.storedURLs == [])
        #expect(FileManager.default.fileExists(atPath: again.path), "a duplicate's source is never moved or removed")
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 1)
        #expect(TestFiles.originals(library).count == 1)
        let album = try #require(
            AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).firstObject)
        #expect(try Asset.fetchAssets(in: album).map(\.localIdentifier) == [existingID])
    }

    @Test("content another writer stores while a block runs (inside its read snapshot) is still one asset", arguments: CatalogBackend.all)
    func storedByAnotherWriterDuringTheBlock(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        // A second PhotoLibrary on the same folder has a writer connection of its own, as another process would.
        let other = PhotoLibrary(url: library.url, catalog: library.catalog)
        let bytes = TestFiles.distinctBytes(size: 4242)
        let mine = try folder.write(bytes, to: "mine/same.jpg")
        let theirs = try folder.write(bytes, to: "theirs/same.jpg")
        try await library.performChanges {}  // the library exists; the block below reads a snapshot of it
        let resolvedDuringBlock = Locked<Bool?>(nil)
        let report = try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(
                with: .photo, fileURL: mine, options: AssetResourceCreationOptions(shouldMoveFile: true))
            resolvedDuringBlock.value = request.isDuplicate
            // The other writer commits the same content before this block commits.
            try other.performChangesAndWait {
                _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: theirs)
            }
        }
        #expect(resolvedDuringBlock.value == false, "the snapshot did not have the content yet")
        #expect(report.duplicateCount == 1 && report.createdAssetCount == 0, "decided again at commit")
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 1)
        #expect(TestFiles.originals(library).count == 1)
        #expect(FileManager.default.fileExists(atPath: mine.path), "the duplicate's source stays")
        let more = try folder.write(TestFiles.distinctBytes(size: 99), to: "after.jpg")
        let after = try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: more)
        }
        #expect(after.createdAssetCount == 1, "the writer is usable after the retried block")
    }

    @Test("two requests with the same content in one block make one asset", arguments: CatalogBackend.all)
    func withinOneBlock(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let bytes = TestFiles.distinctBytes(size: 300)
        let one = try folder.write(bytes, to: "one.jpg")
        let two = try folder.write(bytes, to: "two.jpg")
        let report = try await library.performChanges {
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Both")
            for url in [one, two] {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(
                    with: .photo, fileURL: url, options: AssetResourceCreationOptions(shouldMoveFile: true))
                album.addAssets([request.placeholderForCreatedAsset!])
            }
        }
        #expect(report.assetCreations.map(\.isDuplicate) == [false, true])
        #expect(report.assetCreations[0].localIdentifier == report.assetCreations[1].localIdentifier)
        #expect(!FileManager.default.fileExists(atPath: one.path))
        #expect(FileManager.default.fileExists(atPath: two.path))
        let album = try #require(
            AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).firstObject)
        #expect(album.estimatedAssetCount == 1)
        #expect(try Asset.fetchAssets(in: album).count == 1)
    }

    @Test("a duplicate of an asset in Recently Deleted restores it (documented policy)", arguments: CatalogBackend.all)
    func restoresDeleted(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let bytes = TestFiles.distinctBytes(size: 200)
        let source = try folder.write(bytes, to: "p.jpg")
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: source)
        }
        let asset = try #require(Asset.fetchAssets(with: nil, library: library).firstObject)
        try await library.performChanges { try AssetChangeRequest.deleteAssets([asset]) }
        #expect(try Asset.fetchAssets(with: nil, library: library).isEmpty)
        let report = try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: source)
        }
        #expect(report.assetCreations.first?.isDuplicate == true)
        #expect(report.assetCreations.first?.restoredFromRecentlyDeleted == true)
        let restored = try Asset.fetchAssets(with: nil, library: library)
        #expect(restored.map(\.localIdentifier) == [asset.localIdentifier])
        #expect(restored.first?.isDeleted == false)
    }

    @Test(
        "one block of many new files, a stored file's copy, a deleted one's copy and the same content twice: each resolved right, in order",
        arguments: CatalogBackend.all)
    func mixedBlock(backend: CatalogBackend) async throws {
        // On PostgreSQL the new assets' rows go by COPY, their ids reserved in one round trip, while the creations
        // that resolve to stored assets run statements of their own: the report keeps the requests' order.
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let storedBytes = TestFiles.distinctBytes(size: 311)
        let deletedBytes = TestFiles.distinctBytes(size: 312)
        try await library.performChanges {
            for (bytes, name) in [(storedBytes, "stored"), (deletedBytes, "deleted")] {
                let url = try folder.write(bytes, to: "first/\(name).jpg")
                _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: url)
            }
        }
        let before = try Asset.fetchAssets(with: nil, library: library).map { $0 }
        let deleted = try #require(before.first { $0.originalFilename == "deleted.jpg" })
        let stored = try #require(before.first { $0.originalFilename == "stored.jpg" })
        try await library.performChanges { try AssetChangeRequest.deleteAssets([deleted]) }

        let fresh = try folder.makeFiles(300, prefix: "new", size: 180)
        let twice = TestFiles.distinctBytes(size: 313)
        var sources: [URL] = []
        for (index, url) in fresh.enumerated() {
            sources.append(url)
            if index == 40 { sources.append(try folder.write(storedBytes, to: "second/stored-copy.jpg")) }
            if index == 120 { sources.append(try folder.write(deletedBytes, to: "second/deleted-copy.jpg")) }
            if index == 200 { sources.append(try folder.write(twice, to: "second/twice-1.jpg")) }
            if index == 250 { sources.append(try folder.write(twice, to: "second/twice-2.jpg")) }
        }
        let dropped = sources
        let report = try await library.performChanges {
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Mixed")
            for (index, url) in dropped.enumerated() {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(
                    with: .photo, fileURL: url, options: AssetResourceCreationOptions(shouldMoveFile: true))
                request.rating = index % 6
                request.title = "tab\tnewline\nbackslash\\ #\(index)"
                album.addAssets([request.placeholderForCreatedAsset!])
            }
        }
        #expect(report.assetCreations.count == sources.count)
        for (url, outcome) in zip(sources, report.assetCreations) {
            switch url.lastPathComponent {
            case "stored-copy.jpg":
                #expect(outcome.isDuplicate && outcome.localIdentifier == stored.localIdentifier)
            case "deleted-copy.jpg":
                #expect(outcome.isDuplicate && outcome.restoredFromRecentlyDeleted)
                #expect(outcome.localIdentifier == deleted.localIdentifier)
            case "twice-2.jpg":
                let first = try #require(zip(sources, report.assetCreations).first { $0.0.lastPathComponent == "twice-1.jpg" })
                #expect(outcome.isDuplicate && outcome.localIdentifier == first.1.localIdentifier)
            default:
                #expect(!outcome.isDuplicate, "\(url.lastPathComponent)")
            }
        }
        // 300 new files, the twice-dropped content once, and the two from before (one restored).
        let assets = try Asset.fetchAssets(with: nil, library: library).map { $0 }
        #expect(assets.count == 303)
        #expect(Set(assets.map(\.localIdentifier)).count == 303)
        for (index, url) in sources.enumerated() where url.lastPathComponent.hasPrefix("new") {
            let identifier = report.assetCreations[index].localIdentifier
            let asset = try #require(assets.first { $0.localIdentifier == identifier })
            #expect(asset.originalFilename == url.lastPathComponent)
            #expect(asset.rating == index % 6 && asset.title == "tab\tnewline\nbackslash\\ #\(index)")
        }
        let album = try #require(
            AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).firstObject)
        #expect(try Asset.fetchAssets(in: album).count == 303)
        #expect(album.estimatedAssetCount == 303)
    }

    @Test("the database refuses a second stored original with the same SHA-256", arguments: CatalogBackend.all)
    func uniqueConstraint(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let source = try folder.write(TestFiles.distinctBytes(size: 100), to: "x.jpg")
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: source)
        }
        let database = try library.rawCatalog()
        #expect(throws: DatabaseError.self) {
            try database.run(
                """
                INSERT INTO resources(asset_id, type, sha256, byte_count, original_filename, path)
                SELECT asset_id, type, sha256, byte_count, original_filename, path || '.2' FROM resources
                """)
        }
    }
}
