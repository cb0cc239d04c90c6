import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Concurrent writers", CatalogGate.one)
struct ConcurrencyTests {
    @Test("8 tasks saving 200 files each into one album (find-or-create inside each block) lose nothing", arguments: CatalogBackend.all)
    func eightTasks(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let title = "Shared album"
        let perTask = 200
        let identifiers = try await withThrowingTaskGroup(of: [String].self) { group in
            for task in 0..<8 {
                let files = try folder.makeFiles(perTask, prefix: "t\(task)-", size: 64)
                group.addTask {
                    var created: [String] = []
                    for file in files {
                        let report = try await library.performChanges {
                            // The classic snippet: find the album by title or create it, then save into it.
                            let existing = try AssetCollection.fetchAssetCollections(
                                with: .album, subtype: .albumRegular,
                                options: FetchOptions(predicate: .title(.equals(title))), library: library
                            ).firstObject
                            let album =
                                try existing.map { try AssetCollectionChangeRequest(for: $0) }
                                ?? AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
                            let request = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
                            album.addAssets([request.placeholderForCreatedAsset!])
                        }
                        created += report.assetCreations.map(\.localIdentifier)
                    }
                    return created
                }
            }
            var all: [String] = []
            for try await part in group { all += part }
            return all
        }
        #expect(identifiers.count == 8 * perTask)
        #expect(Set(identifiers).count == 8 * perTask)
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library)
        #expect(albums.count == 1, "blocks are serialized: the album is created exactly once")
        let album = try #require(albums.firstObject)
        #expect(album.estimatedAssetCount == 8 * perTask)
        let members = try Asset.fetchAssets(in: album)
        #expect(Set(members.map(\.localIdentifier)) == Set(identifiers))
        #expect(try rawCount(library, "SELECT count(DISTINCT position) FROM album_assets") == Int64(8 * perTask))
        #expect(TestFiles.originals(library).count == 8 * perTask)
        #expect(
            try library.fetchPersistentChanges(
                since: PersistentChangeToken(string: "\(library.currentChangeToken.libraryID):0")!
            ).count == 8 * perTask)
    }

    /// An actor on the library's writer queue, as photodrop's committer is.
    private actor OnWriterQueue {
        let library: PhotoLibrary
        private let executor: any SerialExecutor
        nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

        init(library: PhotoLibrary) {
            self.library = library
            self.executor = library.writerExecutor
        }

        func isOnWriterQueue() -> Bool { library.writer.isOnWriterQueue }

        func save(_ files: [URL]) async throws -> ChangeReport {
            try await library.performChanges {
                for file in files { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
            }
        }

        func saveAndWait(_ file: URL) throws {
            try library.performChangesAndWait {
                _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
            }
        }
    }

    @Test("an actor on the writer executor runs on the writer queue; its blocks commit; waiting for one is refused", arguments: CatalogBackend.all)
    func actorOnWriterExecutor(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let actor = OnWriterQueue(library: library)
        #expect(await actor.isOnWriterQueue())
        var total = 0
        for round in 0..<20 {
            let files = try (0..<10).map {
                try folder.write(TestFiles.distinctBytes(size: 500 + round * 10 + $0), to: "r\(round)/\($0).jpg")
            }
            let report = try await actor.save(files)
            total += report.createdAssetCount
        }
        #expect(total == 200)
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 200)
        let extra = try folder.write(TestFiles.distinctBytes(size: 9), to: "extra.jpg")
        await #expect {
            try await actor.saveAndWait(extra)
        } throws: { error in
            (error as? PhotosError)?.message.contains("would wait for itself") == true
        }
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 200)
    }

    @Test("reads run while a long block is being written, and see only committed state", arguments: CatalogBackend.all)
    func readsDuringWrite(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let files = try folder.makeFiles(300, size: 64)
        try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Start")
        }
        let inBlock = Locked(false)
        let release = DispatchSemaphore(value: 0)
        async let write: ChangeReport = library.performChanges {
            for file in files { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
            inBlock.value = true
            release.wait()  // hold the writer inside the block
        }
        #expect(await eventually { inBlock.value })
        // A watchdog releases the writer after 20 s, so that a read that waited for the writer fails the test
        // (the writer was let go before the read returned) instead of hanging it.
        let released = Locked(false)
        let watchdog = DispatchWorkItem {
            released.value = true
            release.signal()
        }
        DispatchQueue.global().asyncAfter(deadline: .now() + 20, execute: watchdog)
        // The writer is busy; a fetch on this thread still answers, with the committed state.
        let seen = try Asset.fetchAssets(with: nil, library: library).count
        _ = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library)
        watchdog.cancel()
        #expect(seen == 0)
        #expect(!released.value, "the read waited for the writer")
        release.signal()
        _ = try await write
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 300)
    }
}
