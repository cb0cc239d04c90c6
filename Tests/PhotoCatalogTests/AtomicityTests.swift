import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Atomicity and misuse", CatalogGate.one)
struct AtomicityTests {
    struct Boom: Error {}

    @Test("a block that throws after a resource was added leaves no rows, no files, and the moved source in place", arguments: CatalogBackend.all)
    func throwMidBlock(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let sources = try folder.makeFiles(3)
        try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Before")
        }
        let tokenBefore = try library.currentChangeToken
        await #expect(throws: Boom.self) {
            try await library.performChanges {
                let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Never")
                for source in sources {
                    let request = try AssetCreationRequest.forAsset()
                    request.addResource(
                        with: .photo, fileURL: source, options: AssetResourceCreationOptions(shouldMoveFile: true))
                    album.addAssets([request.placeholderForCreatedAsset!])
                }
                throw Boom()
            }
        }
        #expect(try Asset.fetchAssets(with: nil, library: library).isEmpty)
        #expect(
            try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).map(\.title) == [
                "Before"
            ])
        #expect(TestFiles.originals(library).isEmpty)
        #expect(sources.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
        #expect(try library.currentChangeToken == tokenBefore)
        #expect(try rawCount(library, "SELECT count(*) FROM placement_intents") == 0)
    }

    @Test("when applying fails after files were placed, the files are undone: moved sources return, copies vanish", arguments: CatalogBackend.all)
    func failureAfterPlacement(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let moved = try folder.makeFiles(4, prefix: "moved")
        let copied = try folder.makeFiles(2, prefix: "copied")
        let inodes = moved.map(TestFiles.inode)
        try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Doomed")
        }
        let doomed = try #require(
            AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).firstObject)
        // The album is deleted first, then assets are added to it: applying fails after every file was placed.
        await #expect {
            try await library.performChanges {
                var placeholders: [ObjectPlaceholder] = []
                for source in moved {
                    let request = try AssetCreationRequest.forAsset()
                    request.addResource(
                        with: .photo, fileURL: source, options: AssetResourceCreationOptions(shouldMoveFile: true))
                    placeholders.append(request.placeholderForCreatedAsset!)
                }
                for source in copied { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: source) }
                try AssetCollectionChangeRequest.deleteAssetCollections([doomed])
                try AssetCollectionChangeRequest(for: doomed).addAssets(placeholders)
            }
        } throws: { error in
            (error as? PhotosError)?.code == .identifierNotFound
        }
        #expect(moved.map(TestFiles.inode) == inodes, "renamed files are back at their sources, same inodes")
        #expect(copied.allSatisfy { FileManager.default.fileExists(atPath: $0.path) })
        #expect(TestFiles.originals(library).isEmpty)
        #expect(try rawCount(library, "SELECT count(*) FROM assets") == 0)
        #expect(try rawCount(library, "SELECT count(*) FROM placement_intents") == 0)
        #expect(try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).count == 1)
    }

    @Test("when placing a file fails while the rows are inserted, nothing commits and the placed files go back", arguments: CatalogBackend.all)
    func failureWhilePlacing(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let moved = try folder.makeFiles(6, prefix: "moved")
        let inodes = moved.map(TestFiles.inode)
        let vanishing = moved[3]
        await #expect {
            try await library.performChanges {
                for source in moved {
                    let request = try AssetCreationRequest.forAsset()
                    request.addResource(
                        with: .photo, fileURL: source, options: AssetResourceCreationOptions(shouldMoveFile: true))
                }
                // Gone after it was added: its rename fails while the writer inserts the block's rows.
                try FileManager.default.removeItem(at: vanishing)
            }
        } throws: { error in
            guard let error = error as? PhotosError else { return false }
            return error.message.contains(vanishing.lastPathComponent) || error.message.contains("originals")
        }
        let kept = moved.indices.filter { $0 != 3 }
        #expect(kept.map { TestFiles.inode(moved[$0]) } == kept.map { inodes[$0] }, "the others are back, same inodes")
        #expect(TestFiles.originals(library).isEmpty)
        #expect(try rawCount(library, "SELECT count(*) FROM assets") == 0)
        #expect(try rawCount(library, "SELECT count(*) FROM placement_intents") == 0)
        // The library works on: the same files commit in the next block.
        let report = try await library.performChanges {
            for index in kept {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(
                    with: .photo, fileURL: moved[index], options: AssetResourceCreationOptions(shouldMoveFile: true))
            }
        }
        #expect(report.createdAssetCount == kept.count)
        #expect(TestFiles.originals(library).count == kept.count)
    }

    @Test(
        "a request found invalid while the block's rows are made (the 150th of 200) fails the whole block; the next block works",
        arguments: CatalogBackend.all)
    func invalidRequestMidBlock(backend: CatalogBackend) async throws {
        // On PostgreSQL the first 149 rows are gathered for the COPY when the 150th turns out invalid: nothing is
        // sent, the transaction is rolled back, and the connection takes the next block.
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let sources = try folder.makeFiles(200, size: 150)
        await #expect {
            try await library.performChanges {
                let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Never")
                for (index, source) in sources.enumerated() {
                    let request = try AssetCreationRequest.forAsset()
                    request.addResource(
                        with: .photo, fileURL: source, options: AssetResourceCreationOptions(shouldMoveFile: true))
                    request.title = String(repeating: "long title ", count: 30)
                    if index == 149 { request.rating = 9 }
                    album.addAssets([request.placeholderForCreatedAsset!])
                }
            }
        } throws: { error in
            (error as? PhotosError)?.code == .invalidParameter && "\(error)".contains("rating")
        }
        #expect(try Asset.fetchAssets(with: nil, library: library).isEmpty)
        #expect(try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).count == 0)
        #expect(TestFiles.originals(library).isEmpty)
        #expect(sources.allSatisfy { FileManager.default.fileExists(atPath: $0.path) }, "every moved source is back")
        let report = try await library.performChanges {
            for source in sources.prefix(120) {
                _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: source)
            }
        }
        #expect(report.createdAssetCount == 120)
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 120)
    }

    @Test("change requests outside performChanges throw a clear error")
    func outsideBlock() throws {
        let folder = try TemporaryDirectory()
        let file = try folder.write(Data("x".utf8), to: "x.jpg")
        #expect {
            _ = try AssetCreationRequest.forAsset()
        } throws: { error in
            guard let error = error as? PhotosError else { return false }
            return error.code == .invalidParameter && error.message.contains("inside a PhotoLibrary.performChanges")
        }
        #expect(throws: PhotosError.self) {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
        }
        #expect(throws: PhotosError.self) {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x")
        }
        #expect(throws: PhotosError.self) { try JournalChangeRequest.removeEntries([1]) }
    }

    @Test("a request made in a block and used after it changes nothing; a request on another thread is refused", arguments: CatalogBackend.all)
    func escapedRequests(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let kept = Locked<AssetCollectionChangeRequest?>(nil)
        let fromOtherThread = Locked<Bool?>(nil)
        try await library.performChanges {
            kept.value = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Original")
            let done = DispatchSemaphore(value: 0)
            Thread.detachNewThread {
                fromOtherThread.value = (try? AssetCreationRequest.forAsset()) != nil
                done.signal()
            }
            done.wait()
        }
        #expect(fromOtherThread.value == false)
        kept.value?.title = "Changed later"
        try await library.performChanges {}
        let titles = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).map(
            \.title)
        #expect(titles == ["Original"])
    }

    @Test(
        "performChangesAndWait inside a block reports the deadlock instead of hanging; blocks may nest across libraries"
    , arguments: CatalogBackend.all)
    func nestedWait(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let other = try await folder.library("Other", on: backend)
        let nested = Locked<String?>(nil)
        try library.performChangesAndWait {
            do {
                try library.performChangesAndWait {}
            } catch let error as PhotosError {
                nested.value = "\(error.code)"
            }
            try other.performChangesAndWait {
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Elsewhere")
            }
        }
        #expect(nested.value == "invalidParameter")
        #expect(try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: other).count == 1)
    }

    @Test("the completion-handler form reports success and failure", arguments: CatalogBackend.all)
    func completionHandler(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let results: [(Bool, String?)] = await withCheckedContinuation { continuation in
            let collected = Locked<[(Bool, String?)]>([])
            library.performChanges({
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "ok")
            }) { success, error in
                collected.withLock { $0.append((success, error.map { "\($0)" })) }
                library.performChanges({ throw Boom() }) { success, error in
                    collected.withLock { $0.append((success, error.map { "\($0)" })) }
                    continuation.resume(returning: collected.value)
                }
            }
        }
        #expect(results.count == 2)
        #expect(results[0].0 == true && results[0].1 == nil)
        #expect(results[1].0 == false && results[1].1 != nil)
    }
}
