import Foundation
import PhotodropSystem
import Synchronization
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("backup: catalog snapshots and incremental backups", CatalogGate.one)
struct BackupTests {
    private func populated(_ folder: TemporaryDirectory, count: Int) async throws -> PhotoLibrary {
        let library = folder.library()
        let files = try folder.makeFiles(count, prefix: "seed", size: 3000)
        try await library.performChanges {
            for file in files { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        }
        return library
    }

    @Test("a snapshot is one self-contained rollback-journal file that records exactly the library's files")
    func snapshot() async throws {
        let folder = try TemporaryDirectory()
        let library = try await populated(folder, count: 3)
        let livePath = library.databasePath
        let liveBefore = try Data(contentsOf: URL(fileURLWithPath: livePath))
        let target = folder.appending("copy.sqlite").path

        let snapshot = try library.writeCatalogSnapshot(to: target)

        #expect(snapshot.databasePath == target && snapshot.assetCount == 3)
        #expect(snapshot.databaseBytes == (try FileSystem.status(atPath: target).size))
        for leftover in [".partial", "-wal", "-shm", "-journal", ".partial-journal"] {
            #expect(!FileSystem.exists(atPath: target + leftover), "\(leftover) left beside the copy")
        }
        let copy = try Database(path: target, mode: .readOnly)
        #expect(try copy.firstRow("PRAGMA journal_mode") { $0.string(0) } == "delete")
        #expect(try copy.rows("PRAGMA integrity_check") { $0.string(0) } == ["ok"])
        #expect(try copy.int64("SELECT count(*) FROM assets") == 3)
        #expect(!FileSystem.exists(atPath: target + "-wal"), "reading the copy makes no -wal")

        let assets = try Asset.fetchAssets(with: nil, library: library)
        let expected = Set(
            assets.compactMap(\.primaryResource).map { "\($0.relativePath)|\($0.byteCount)|\($0.sha256)" })
        let recorded = Set(snapshot.originals.map { "\($0.path)|\($0.byteCount)|\($0.sha256)" })
        #expect(recorded == expected && recorded.count == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: livePath)) == liveBefore, "the library's file is untouched")
        #expect(throws: (any Error).self) { try library.writeCatalogSnapshot(to: folder.appending("no/such/x").path) }
    }

    @Test("a snapshot taken while a writer commits is consistent: its rows and its file list agree")
    func snapshotWhileWriting() async throws {
        let folder = try TemporaryDirectory()
        let library = try await populated(folder, count: 5)
        let stop = Atomic<Bool>(false)
        let sources = try folder.makeFiles(400, prefix: "more", size: 1000)
        let writer = Task.detached {
            var added = 0
            for chunk in stride(from: 0, to: sources.count, by: 4) where !stop.load(ordering: .relaxed) {
                let batch = Array(sources[chunk..<min(chunk + 4, sources.count)])
                try await library.performChanges {
                    for file in batch { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
                }
                added += batch.count
            }
            return added
        }
        var counts: [Int] = []
        for round in 0..<5 {
            try await Task.sleep(for: .milliseconds(30))
            let snapshot = try library.writeCatalogSnapshot(to: folder.appending("copy\(round).sqlite").path)
            #expect(snapshot.originals.count == snapshot.assetCount)
            #expect(Set(snapshot.originals.map(\.path)).count == snapshot.assetCount)
            for file in snapshot.originals {
                #expect(FileSystem.exists(atPath: library.url.path + "/" + file.path), "\(file.path)")
            }
            let copy = try Database(path: snapshot.databasePath, mode: .readOnly)
            #expect(try copy.int64("SELECT count(*) FROM placement_intents") == 0)
            counts.append(snapshot.assetCount)
        }
        stop.store(true, ordering: .relaxed)
        let added = try await writer.value
        #expect(counts == counts.sorted() && counts.first! >= 5 && counts.last! <= 5 + added)
        #expect(Set(counts).count > 1, "the writer committed between snapshots: \(counts)")
    }

    @Test("a backup copies, the next links what did not change; a missing original leaves it incomplete")
    func incremental() async throws {
        let folder = try TemporaryDirectory()
        let library = try await populated(folder, count: 3)
        let destination = folder.appending("Backups").path
        let first = try LibraryBackup(library: library, destination: destination).run()
        #expect(first.isComplete, "\(first.problems) \(first.verification?.issues ?? [])")
        #expect(first.copiedFiles == 3 && first.linkedFiles == 0 && first.copiedBytes == 9000)
        #expect(first.previousPath == nil && BackupFolder.parse(first.name)?.isComplete == true)
        #expect(first.path == destination + "/" + first.name)

        let more = try folder.makeFiles(2, prefix: "later", size: 500)
        try await library.performChanges {
            for file in more { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        }
        let second = try LibraryBackup(library: library, destination: destination).run()
        #expect(second.isComplete && second.previousPath == first.path)
        #expect(second.linkedFiles == 3 && second.linkedBytes == 9000 && second.copiedFiles == 2)
        #expect(second.name != first.name)
        let snapshot = LibraryBackup.recordedFiles(second.path)
        #expect(snapshot.count == 5)
        for path in LibraryBackup.recordedFiles(first.path).keys {
            let old = try FileSystem.status(atPath: first.path + "/" + path)
            let new = try FileSystem.status(atPath: second.path + "/" + path)
            #expect(old.node == new.node && new.linkCount == 2, "\(path) is one file in both backups")
        }

        // A new original missing from the library (one the previous backup has is linked from it, never read):
        // reported, the backup stays incomplete and is never linked from.
        let late = try folder.makeFiles(1, prefix: "latest", size: 700)
        let added = try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: late[0])
        }
        let identifier = try #require(added.assetCreations.first?.localIdentifier)
        let victim = try #require(
            try Asset.fetchAssets(withLocalIdentifiers: [identifier], library: library).firstObject?.primaryResource)
        let victimPath = library.url.path + "/" + victim.relativePath
        let saved = try Data(contentsOf: URL(fileURLWithPath: victimPath))
        try FileSystem.remove(victimPath)
        let broken = try LibraryBackup(library: library, destination: destination).run()
        #expect(!broken.isComplete && broken.path.hasSuffix(BackupFolder.incompleteSuffix))
        #expect(broken.problems.map(\.kind) == [.missingInLibrary], "\(broken.problems)")
        #expect(broken.problems.first?.message.contains(victimPath) == true)
        #expect(broken.linkedFiles == 5, "everything else was still linked from the complete backup")
        #expect(try BackupFolder.newestComplete(in: destination)?.name == second.name)
        try saved.write(to: URL(fileURLWithPath: victimPath))
        let repaired = try LibraryBackup(library: library, destination: destination).run()
        #expect(repaired.isComplete && repaired.previousPath == second.path)
        #expect(repaired.linkedFiles == 5 && repaired.copiedFiles == 1)
        #expect(try BackupFolder.backups(in: destination).map(\.isComplete) == [true, true, false, true])

        // Inside the library: refused before anything is written.
        #expect(throws: PhotosError.self) {
            try LibraryBackup(library: library, destination: library.url.path + "/backups").run()
        }
        #expect(!FileSystem.exists(atPath: library.url.path + "/backups"))
    }

    @Test("thumbnails are backed up and linked like originals; one gone from the library is left out, not a failure")
    func derivatives() async throws {
        let folder = try TemporaryDirectory()
        let library = try await populated(folder, count: 2)
        let assets = Array(try Asset.fetchAssets(with: nil, library: library))
        var contents: [DerivativeContent] = []
        for (index, asset) in assets.enumerated() {
            let source = try #require(try library.derivativeSource(ofAsset: asset.localIdentifier))
            let picture = DerivativeContent.Picture(
                data: Data("thumbnail \(index) \(UUID())".utf8), mimeType: "image/webp", pixelWidth: 512,
                pixelHeight: 384)
            contents.append(
                DerivativeContent(
                    assetLocalIdentifier: asset.localIdentifier, kind: .thumbnail, sourceSHA256: source.sha256,
                    result: .success(picture)))
        }
        try await library.storeDerivatives(contents)
        let destination = folder.appending("Backups").path
        let first = try LibraryBackup(library: library, destination: destination).run()
        #expect(first.isComplete && first.derivativeCount == 2 && first.copiedFiles == 4)
        let second = try LibraryBackup(library: library, destination: destination).run()
        #expect(second.isComplete && second.linkedFiles == 4 && second.copiedFiles == 0)

        // A thumbnail replaced by a rebuild vanishes from the library while the snapshot still records it; here it
        // is removed outright, which the backup cannot tell apart.
        let gone = try #require(try library.derivatives(ofAsset: assets[1].localIdentifier).first?.file)
        let more = try folder.makeFiles(1, prefix: "third", size: 400)
        let added = try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: more[0])
        }
        let thirdID = try #require(added.assetCreations.first?.localIdentifier)
        let thirdSource = try #require(try library.derivativeSource(ofAsset: thirdID))
        try await library.storeDerivatives([
            DerivativeContent(
                assetLocalIdentifier: thirdSource.assetLocalIdentifier, kind: .thumbnail,
                sourceSHA256: thirdSource.sha256,
                result: .success(
                    DerivativeContent.Picture(
                        data: Data("third".utf8), mimeType: "image/webp", pixelWidth: 8, pixelHeight: 8)))
        ])
        let third = try #require(
            try library.derivatives(ofAsset: thirdSource.assetLocalIdentifier).first?.file)
        try FileSystem.remove(third.fileURL.path)
        let partial = try LibraryBackup(library: library, destination: destination).run()
        #expect(partial.isComplete, "\(partial.problems) \(partial.verification?.issues ?? [])")
        #expect(partial.derivativesLeftOut == 1 && partial.derivativeCount == 2)
        let recorded = LibraryBackup.recordedFiles(partial.path)
        #expect(recorded[third.relativePath] == nil && recorded[gone.relativePath] != nil)
        #expect(!FileSystem.exists(atPath: partial.path + "/" + third.relativePath))
        #expect(try PhotoLibrary(url: URL(fileURLWithPath: partial.path)).verify(deep: true, readOnly: true).isClean)
    }

    @Test("backup names: UTC time, a sequence for the same second, the incomplete suffix; other names ignored")
    func names() throws {
        let date = Date(timeIntervalSince1970: 1_796_229_000)  // 2026-12-02T16:30:00Z
        #expect(BackupFolder.name(for: date) == "2026-12-02T16-30-00Z")
        #expect(BackupFolder.name(for: date, sequence: 3) == "2026-12-02T16-30-00Z-3")
        let parsed = try #require(BackupFolder.parse("2026-12-02T16-30-00Z-3.incomplete"))
        #expect(parsed.date == date && parsed.sequence == 3 && !parsed.isComplete)
        #expect(BackupFolder.parse("2026-12-02T16-30-00Z")?.isComplete == true)
        for other in [
            "latest", "2026-12-02", "2026-12-02T16-30-00Z-1", "2026-12-02T16-30-00Zx", "x2026-12-02T16-30-00Z",
        ] {
            #expect(BackupFolder.parse(other) == nil, "\(other)")
        }
    }
}
