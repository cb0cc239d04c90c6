import Foundation
import Testing

@testable import PhotoCatalog

@Suite("Persistent change history", CatalogGate.one)
struct HistoryTests {
    @Test("changes since a token: inserted, updated, deleted identifiers per object type, commit time in ms", arguments: CatalogBackend.all)
    func inProcess(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let start = try library.currentChangeToken
        #expect(start.value == 0)
        let file = try folder.write(TestFiles.distinctBytes(size: 80), to: "h.jpg")
        let before = Date()
        let created = try await library.performChanges {
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "H")
            let asset = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
            album.addAssets([asset.placeholderForCreatedAsset!])
        }
        let assetID = try #require(created.assetCreations.first?.localIdentifier)
        let albumID = try #require(created.createdCollectionIdentifiers.first)
        let asset = try #require(Asset.fetchAssets(withLocalIdentifiers: [assetID], library: library).firstObject)
        let album = try #require(
            AssetCollection.fetchAssetCollections(withLocalIdentifiers: [albumID], library: library).firstObject)
        let middle = try library.currentChangeToken
        try await library.performChanges { try AssetChangeRequest(for: asset).isFavorite = true }
        try await library.performChanges {
            try AssetCollectionChangeRequest(for: album).removeAssets([asset])
            try AssetChangeRequest.deleteAssets([asset])
        }
        try await library.performChanges { try AssetCollectionChangeRequest.deleteAssetCollections([album]) }

        let all = try library.fetchPersistentChanges(since: start)
        #expect(all.count == 4)
        #expect(all.map(\.changeToken.value) == [1, 2, 3, 4])
        #expect(all.first?.changeToken == created.changeToken)
        #expect(all.first?.date == created.commitDate)
        let commitTime = try #require(all.first?.date.timeIntervalSince1970)
        #expect(
            commitTime >= before.timeIntervalSince1970 - 0.001 && commitTime <= Date().timeIntervalSince1970 + 0.001)
        #expect((commitTime * 1000).rounded() == commitTime * 1000, "millisecond precision")
        #expect(all[0].changeDetails(for: .asset).insertedLocalIdentifiers == [assetID])
        #expect(all[0].changeDetails(for: .assetCollection).insertedLocalIdentifiers == [albumID])
        #expect(all[1].changeDetails(for: .asset).updatedLocalIdentifiers == [assetID])
        #expect(all[2].changeDetails(for: .asset).deletedLocalIdentifiers == [assetID])
        #expect(all[2].changeDetails(for: .assetCollection).updatedLocalIdentifiers == [albumID])
        #expect(all[3].changeDetails(for: .assetCollection).deletedLocalIdentifiers == [albumID])
        #expect(try library.fetchPersistentChanges(since: middle).count == 3)
        #expect(try library.fetchPersistentChanges(since: middle, limit: 1).map(\.changeToken.value) == [2])
        #expect(try library.fetchPersistentChanges(since: library.currentChangeToken).isEmpty)
        let text = try library.currentChangeToken.stringValue
        #expect(PersistentChangeToken(string: text) == (try library.currentChangeToken))
    }

    @Test("unknown tokens (another library, the future) and expired tokens are clear errors", arguments: CatalogBackend.all)
    func badTokens(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(
            retention: HistoryRetention(maximumAge: 3600, minimumTransactions: 1, maximumTransactions: 3), on: backend)
        let other = try await folder.library("Other", on: backend)
        let first = try library.currentChangeToken
        for index in 0..<6 {
            try await library.performChanges {
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "A\(index)")
            }
        }
        try await other.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "B")
        }
        let foreign = try other.currentChangeToken
        #expect {
            _ = try library.fetchPersistentChanges(since: foreign)
        } throws: { ($0 as? PhotosError)?.code == .persistentChangeDetailsUnavailable }
        let current = try library.currentChangeToken
        let future = try #require(PersistentChangeToken(string: "\(current.libraryID):\(current.value + 5)"))
        #expect {
            _ = try library.fetchPersistentChanges(since: future)
        } throws: { ($0 as? PhotosError)?.code == .persistentChangeDetailsUnavailable }
        // Only the newest 3 transactions are kept: the first token has expired.
        #expect {
            _ = try library.fetchPersistentChanges(since: first)
        } throws: { error in
            guard let error = error as? PhotosError else { return false }
            return error.code == .persistentChangeTokenExpired && error.message.contains("re-read the library")
        }
        let kept = try library.fetchPersistentChanges(
            since: #require(PersistentChangeToken(string: "\(current.libraryID):3")))
        #expect(kept.map(\.changeToken.value) == [4, 5, 6])
        #expect(try rawCount(library, "SELECT count(*) FROM change_transactions") == 3)
    }

    @Test("age-based pruning keeps the minimum number of transactions", arguments: CatalogBackend.all)
    func agePruning(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = folder.library(retention: HistoryRetention(maximumAge: 0, minimumTransactions: 2))
        for index in 0..<5 {
            try await library.performChanges {
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "\(index)")
            }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
        #expect(try rawCount(library, "SELECT count(*) FROM change_transactions") == 2)
        #expect(try rawCount(library, "SELECT min(token) FROM change_log") == 4)
    }

    @Test("another process reads the changes since a token (catalog-history as a child process)", arguments: CatalogBackend.all)
    func secondProcess(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let files = try folder.makeFiles(3)
        try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Seen elsewhere")
        }
        let since = try library.currentChangeToken
        let report = try await library.performChanges {
            for file in files { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        }
        let output = try Helper.run(["changes", "--library", library.url.path, "--since", since.stringValue] + library.catalog.helperArguments)
        #expect(output.status == 0, "\(output.stderr)")
        let objects = output.objects
        #expect(objects.count == 2)
        let change = try #require(objects.first)
        #expect(change["token"] as? String == report.changeToken?.stringValue)
        let milliseconds = try #require(change["date"] as? Int64 ?? (change["date"] as? NSNumber)?.int64Value)
        #expect(milliseconds == Int64((try #require(report.commitDate).timeIntervalSince1970 * 1000).rounded()))
        let inserted = try #require((change["assets"] as? [String: Any])?["inserted"] as? [String])
        #expect(Set(inserted) == Set(report.assetCreations.map(\.localIdentifier)))
        #expect(objects.last?["end"] as? String == (try library.currentChangeToken.stringValue))

        let expired = try Helper.run(["changes", "--library", library.url.path, "--since", "ffff:0"] + library.catalog.helperArguments)
        #expect(expired.status == 1)
        #expect(expired.stderr.contains("persistentChangeDetailsUnavailable"))
    }

    @Test("a reader in another process holding a read transaction neither blocks the writer nor sees half a change", arguments: CatalogBackend.all)
    func foreignReaderDoesNotBlock(backend: CatalogBackend) async throws {
        guard let helper = Helper.executable else { throw Helper.HelperMissing() }
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let first = try folder.makeFiles(2, prefix: "first")
        try await library.performChanges {
            for file in first { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        }
        let process = Process()
        process.executableURL = helper
        process.arguments = ["hold-read", "--library", library.url.path] + library.catalog.helperArguments
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        let reader = output.fileHandleForReading
        func line() -> String {
            var bytes = Data()
            while true {
                let byte = reader.readData(ofLength: 1)
                if byte.isEmpty || byte == Data("\n".utf8) { break }
                bytes += byte
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        #expect(line() == "count 2")
        // The reader's transaction is open: the writer commits anyway. Were it blocked (no WAL), the commit would
        // fail with SQLITE_BUSY after the 5 s busy timeout instead of succeeding.
        let more = try folder.makeFiles(5, prefix: "more")
        let report = try await library.performChanges {
            for file in more { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        }
        #expect(report.createdAssetCount == 5)
        input.fileHandleForWriting.write(Data("go\n".utf8))
        #expect(line() == "count 2", "the reader's snapshot does not change under it")
        #expect(line() == "after 7")
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
    }
}
