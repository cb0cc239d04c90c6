import Foundation
import PhotodropSystem
import Testing
import TestFixtures

@testable import PhotoCatalog

/// `AssetChangeRequest.addResource(with:file:options:primaryBecomes:)`: files that arrive after their asset was stored.
@Suite("Adding files to stored assets", CatalogGate.one)
struct ResourceAdditionTests {
    private func store(
        _ file: URL, as type: AssetResourceType, in library: PhotoLibrary, key: String? = nil, awaits: Bool = false
    ) async throws -> Asset {
        let identifier = Locked<String?>(nil)
        try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: type, fileURL: file, options: nil)
            request.pairingKey = key
            request.awaitsPartner = awaits
            identifier.value = request.placeholderForCreatedAsset?.localIdentifier
        }
        let id = try #require(identifier.value)
        return try #require(Asset.fetchAssets(withLocalIdentifiers: [id], library: library).firstObject)
    }

    private func refetch(_ asset: Asset) throws -> Asset {
        try #require(
            Asset.fetchAssets(withLocalIdentifiers: [asset.localIdentifier], library: asset.photoLibrary).firstObject)
    }

    @Test("a Live Photo's movie added to its stored photo: one Live Photo, reported as updated", arguments: CatalogBackend.all)
    func pairedVideoJoinsPhoto(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let photoBytes = TestFiles.distinctBytes(size: 2000)
        let movieBytes = TestFiles.distinctBytes(size: 5000)
        let photo = try await store(folder.write(photoBytes, to: "IMG_0002.HEIC"), as: .photo, in: library, key: "a/img_0002")
        #expect(photo.pairingKey == "a/img_0002")
        let byKey = try Asset.fetchAssets(
            with: FetchOptions(predicate: .pairingKey(in: ["a/img_0002", "x"])), library: library)
        #expect(byKey.map(\.localIdentifier) == [photo.localIdentifier])
        let before = try library.currentChangeToken
        let movie = try folder.write(movieBytes, to: "IMG_0002.MOV")
        let request = Locked<AssetChangeRequest?>(nil)
        try await library.performChanges {
            let change = try AssetChangeRequest(for: photo)
            change.addResource(
                with: .pairedVideo, file: try FileLocation(path: movie.path),
                options: AssetResourceCreationOptions(shouldMoveFile: true), primaryBecomes: nil)
            request.value = change
        }
        #expect(request.value?.alreadyStoredAddedPaths == [])
        #expect(!FileManager.default.fileExists(atPath: movie.path), "moved into the library")
        let live = try refetch(photo)
        #expect(live.playbackStyle == .livePhoto)
        #expect(live.mediaSubtypes.contains(.photoLive))
        #expect(live.resources.map(\.type) == [.photo, .pairedVideo])
        #expect(try Data(contentsOf: live.resources[1].fileURL) == Data(movieBytes))
        #expect(live.resources[1].fileURL.lastPathComponent.hasPrefix(photo.localIdentifier.prefix(36).lowercased() + "-2"))
        let smart = try #require(
            AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumLivePhotos, library: library)
                .firstObject)
        #expect(try Asset.fetchAssets(in: smart).map(\.localIdentifier) == [photo.localIdentifier])
        let changes = try library.fetchPersistentChanges(since: before)
        #expect(changes.count == 1)
        #expect(changes.first?.changeDetails(for: .asset).updatedLocalIdentifiers == [photo.localIdentifier])
        #expect(try library.verify(deep: true).isClean)

        // The same movie again is already stored: nothing is added, the file stays where it is.
        let again = try folder.write(movieBytes, to: "copy.MOV")
        let second = try folder.write(TestFiles.distinctBytes(size: 5100), to: "other.MOV")
        try await library.performChanges {
            let change = try AssetChangeRequest(for: live)
            change.addResource(
                with: .sidecar, file: try FileLocation(path: again.path), options: nil, primaryBecomes: nil)
            request.value = change
        }
        #expect(request.value?.alreadyStoredAddedPaths == [again.path])
        #expect(FileManager.default.fileExists(atPath: again.path))
        #expect(try refetch(live).resources.count == 2)
        // A second paired video is refused and the block stores nothing.
        await #expect(throws: PhotosError.self) {
            try await library.performChanges {
                try AssetChangeRequest(for: live).addResource(
                    with: .pairedVideo, file: try FileLocation(path: second.path), options: nil, primaryBecomes: nil)
            }
        }
        #expect(try refetch(live).resources.count == 2)
        #expect(FileManager.default.fileExists(atPath: second.path))
    }

    @Test(
        "assets awaiting a partner are found through their partial index, also with a limit and the date sort",
        .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/sqlite3"), "the sqlite3 command (apt install sqlite3)"), arguments: CatalogBackend.all)
    func awaitingPartnerUsesItsIndex(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        for index in 0..<3 {
            _ = try await store(
                folder.write(TestFiles.distinctBytes(size: 1000 + index), to: "IMG_\(index).JPG"), as: .photo,
                in: library, key: "a/img_\(index)")
        }
        let movie = try await store(
            folder.write(TestFiles.distinctBytes(size: 3000), to: "IMG_0003.MOV"), as: .video, in: library,
            key: "b/img_0003", awaits: true)
        let anyKey = FetchOptions(predicate: .awaitingPartner(in: nil), fetchLimit: 1, includeHiddenAssets: true)
        #expect(try Asset.fetchAssets(with: anyKey, library: library).map(\.localIdentifier) == [movie.localIdentifier])
        let byKey = FetchOptions(predicate: .awaitingPartner(in: ["b/img_0003", "a/img_1"]), fetchLimit: 5)
        #expect(try Asset.fetchAssets(with: byKey, library: library).map(\.localIdentifier) == [movie.localIdentifier])
        // The plan SQLite picks: the partial index, never a walk of the capture-date index (every asset).
        for options in [anyKey, byKey] where backend == .sqlite {
            let sql = try AssetQuery(source: .all, options: options).compile().sql
            let plan = try ProcessRunner.runBlocking(
                URL(fileURLWithPath: "/usr/bin/sqlite3"),
                ["-readonly", library.url.appendingPathComponent("library.sqlite").path, "EXPLAIN QUERY PLAN \(sql)"])
            #expect(plan.status == 0, "\(plan)")
            #expect(plan.stdout.contains("assets_awaiting_partner"), "\(plan.stdout)")
            #expect(!plan.stdout.contains("SCAN a USING INDEX assets_by_creation_date"), "\(plan.stdout)")
        }
    }

    @Test("a photo that arrives after its movie or RAW becomes the primary file; the old one is demoted", arguments: CatalogBackend.all)
    func newPrimaryDemotesTheOld(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let movie = try await store(
            folder.write(TestFiles.distinctBytes(size: 3000), to: "IMG_0003.MOV"), as: .video, in: library,
            key: "b/img_0003", awaits: true)
        #expect(movie.mediaType == .video && movie.awaitsPartner)
        let awaiting = try Asset.fetchAssets(
            with: FetchOptions(predicate: .awaitingPartner(in: ["b/img_0003"])), library: library)
        #expect(awaiting.map(\.localIdentifier) == [movie.localIdentifier])
        let photo = try folder.write(TestFiles.distinctBytes(size: 2000), to: "IMG_0003.HEIC")
        // Without primaryBecomes a new primary is refused.
        await #expect(throws: PhotosError.self) {
            try await library.performChanges {
                try AssetChangeRequest(for: movie).addResource(
                    with: .photo, file: try FileLocation(path: photo.path), options: nil, primaryBecomes: nil)
            }
        }
        try await library.performChanges {
            let change = try AssetChangeRequest(for: movie)
            change.addResource(
                with: .photo, file: try FileLocation(path: photo.path), options: nil, primaryBecomes: .pairedVideo)
            change.pixelWidth = 4032
        }
        let live = try refetch(movie)
        #expect(!live.awaitsPartner, "its photo came")
        #expect(
            try Asset.fetchAssets(with: FetchOptions(predicate: .awaitingPartner(in: ["b/img_0003"])), library: library)
                .isEmpty)
        #expect(live.mediaType == .image)
        #expect(live.playbackStyle == .livePhoto)
        #expect(live.pixelWidth == 4032)
        #expect(live.resources.map(\.type) == [.photo, .pairedVideo])
        #expect(live.resources[0].originalFilename == "IMG_0003.HEIC")
        #expect(
            try AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumVideos, library: library)
                .firstObject.map { try Asset.fetchAssets(in: $0).count } == 0)

        let raw = try await store(
            folder.write(TestFiles.distinctBytes(size: 4000), to: "IMG_0004.CR2"), as: .photo, in: library)
        let jpeg = try folder.write(TestFiles.distinctBytes(size: 1500), to: "IMG_0004.JPG")
        try await library.performChanges {
            try AssetChangeRequest(for: raw).addResource(
                with: .photo, file: try FileLocation(path: jpeg.path), options: nil, primaryBecomes: .alternatePhoto)
        }
        let pair = try refetch(raw)
        #expect(pair.mediaSubtypes.contains(.photoRAWAndJPEG))
        #expect(pair.resources.map(\.type) == [.photo, .alternatePhoto])
        #expect(pair.resources.map(\.originalFilename) == ["IMG_0004.JPG", "IMG_0004.CR2"])
        #expect(try library.verify(deep: true).isClean)
    }

    @Test("an addition is crash-safe like a creation: a failed block leaves the file where it was", arguments: CatalogBackend.all)
    func failedAdditionLeavesTheFile(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let video = try await store(
            folder.write(TestFiles.distinctBytes(size: 3000), to: "clip.MOV"), as: .video, in: library)
        let sidecar = try folder.write(TestFiles.distinctBytes(size: 300), to: "clip.xmp")
        let wrong = try folder.write(TestFiles.distinctBytes(size: 310), to: "clip.CR2")
        await #expect(throws: PhotosError.self) {
            try await library.performChanges {
                let change = try AssetChangeRequest(for: video)
                let options = AssetResourceCreationOptions(shouldMoveFile: true)
                change.addResource(
                    with: .sidecar, file: try FileLocation(path: sidecar.path), options: options, primaryBecomes: nil)
                // An alternate photo does not go with a video: the whole block fails.
                change.addResource(
                    with: .alternatePhoto, file: try FileLocation(path: wrong.path), options: options,
                    primaryBecomes: nil)
            }
        }
        #expect(FileManager.default.fileExists(atPath: sidecar.path))
        #expect(FileManager.default.fileExists(atPath: wrong.path))
        #expect(try refetch(video).resources.map(\.type) == [.video])
        #expect(TestFiles.originals(library).count == 1)
        #expect(try library.verify().isClean)
    }
}
