import Foundation
import PhotodropSystem
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("verify: the catalog against the files", CatalogGate.one)
struct VerifyTests {
    /// A library with `count` assets (one in an album) and their stored originals.
    private func populated(_ folder: TemporaryDirectory, count: Int = 3) async throws -> (PhotoLibrary, [Asset]) {
        let library = folder.library()
        let files = try folder.makeFiles(count, size: 2000)
        let report = try await library.performChanges {
            let album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "V")
            for (index, file) in files.enumerated() {
                let request = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
                if index == 0 { album.addAssets([request.placeholderForCreatedAsset!]) }
            }
        }
        let assets = try Asset.fetchAssets(
            withLocalIdentifiers: report.assetCreations.map(\.localIdentifier), library: library)
        return (library, Array(assets))
    }

    @Test("a consistent library is clean, shallow and deep; counts say what was looked at")
    func clean() async throws {
        let folder = try TemporaryDirectory()
        let (library, _) = try await populated(folder)
        let shallow = try library.verify()
        #expect(shallow.isClean, "\(shallow.issues)")
        #expect(shallow.assetCount == 3 && shallow.originalCount == 3 && shallow.filesOnDisk == 3)
        #expect(!shallow.isDeep && shallow.hashedBytes == 0)
        let deep = try library.verify(deep: true)
        #expect(deep.isClean, "\(deep.issues)")
        #expect(deep.isDeep && deep.hashedBytes == 6000)
    }

    @Test("two resources naming one stored file are reported (schema v4 has no unique index on paths)")
    func sharedOriginal() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await populated(folder)
        #expect(try library.verify().isClean)
        let shared = try #require(assets[0].primaryResource?.relativePath)
        let database = try library.rawCatalog()
        try database.run(
            "UPDATE resources SET path = ? WHERE asset_id = (SELECT id FROM assets WHERE uuid = ?)",
            [.text(shared), .text(try #require(LocalIdentifier.assetUUID(assets[1].localIdentifier)))])
        let report = try library.verify()
        let issues = report.issues(of: .sharedOriginal)
        #expect(issues.count == 1, "\(report.issues)")
        #expect(issues.first?.path == library.url.path + "/" + shared)
        #expect(issues.first?.message.contains(assets[0].localIdentifier) == true)
        #expect(issues.first?.message.contains(assets[1].localIdentifier) == true)
        // The second asset's own file is now named by nobody: an orphan, reported as such.
        #expect(report.issues(of: .orphanFile).count == 1)
    }

    @Test("a deleted original is missing, a stray file is an orphan, a truncated one has the wrong size")
    func missingOrphanSize() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await populated(folder)
        let missing = try #require(assets[0].originalURL)
        try FileManager.default.removeItem(at: missing)
        let truncated = try #require(assets[1].originalURL)
        try Data(repeating: 7, count: 10).write(to: truncated)
        let orphan = library.originalsURL.appendingPathComponent("ab/stray.jpg")
        try FileManager.default.createDirectory(
            at: orphan.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data("stray".utf8).write(to: orphan)
        let loose = library.originalsURL.appendingPathComponent("loose.bin")
        try Data("loose".utf8).write(to: loose)

        let report = try library.verify()
        #expect(!report.isClean)
        let missingIssues = report.issues(of: .missingOriginal)
        #expect(missingIssues.count == 1)
        #expect(missingIssues.first?.path == missing.path)
        #expect(missingIssues.first?.assetIdentifier == assets[0].localIdentifier)
        #expect(missingIssues.first?.message.contains("photodrop delete") == true)
        #expect(report.issues(of: .sizeMismatch).map(\.path) == [truncated.path])
        #expect(Set(report.issues(of: .orphanFile).compactMap(\.path)) == [orphan.path, loose.path])
        #expect(report.issues.count == 4, "\(report.issues)")
        // Grouped by kind, in the order of the kinds.
        #expect(report.issues.map(\.kind) == [.missingOriginal, .sizeMismatch, .orphanFile, .orphanFile])
    }

    @Test("changed bytes of the same size are found only by a deep check")
    func hashMismatch() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await populated(folder)
        let original = try #require(assets[2].originalURL)
        var bytes = try Data(contentsOf: original)
        bytes[bytes.count / 2] ^= 0xFF
        try bytes.write(to: original)
        #expect(try library.verify().isClean, "a shallow check compares sizes only")
        let report = try library.verify(deep: true)
        let issues = report.issues(of: .hashMismatch)
        #expect(issues.count == 1 && issues.first?.path == original.path, "\(report.issues)")
        #expect(issues.first?.assetIdentifier == assets[2].localIdentifier)
        #expect(issues.first?.message.contains(sha256Hex(bytes)) == true)
    }

    @Test("intents of a dead writer are one interrupted change, not orphans; a live writer's are in flight")
    func intents() async throws {
        let folder = try TemporaryDirectory()
        let (library, _) = try await populated(folder, count: 1)
        // The writer makes `originals/xx` folders only as it uses them.
        for name in ["0a", "0b"] {
            try FileManager.default.createDirectory(
                at: library.originalsURL.appendingPathComponent(name), withIntermediateDirectories: true)
        }
        let deadFile = library.originalsURL.appendingPathComponent("0a/dead.jpg")
        try Data("half placed".utf8).write(to: deadFile)
        let liveFile = library.originalsURL.appendingPathComponent("0b/live.jpg")
        try Data("being placed".utf8).write(to: liveFile)
        let liveCopy = URL(
            fileURLWithPath: PlacementIntent.temporaryPath(
                for: library.originalsURL.appendingPathComponent("0b/copy.jpg").path))
        try Data("copying".utf8).write(to: liveCopy)
        // A live writer: a session lock that this test holds.
        let locks = library.url.appendingPathComponent("locks")
        let liveLock = locks.appendingPathComponent("live-session.lock").path
        let descriptor = open(liveLock, O_RDWR | O_CREAT, 0o644)
        #expect(descriptor >= 0)
        defer { close(descriptor) }
        #expect(flock(descriptor, LOCK_EX) == 0)

        let database = try library.rawCatalog()
        for (session, destination) in [
            ("dead-session", "originals/0a/dead.jpg"), ("dead-session", "originals/0a/gone.jpg"),
            ("live-session", "originals/0b/live.jpg"), ("live-session", "originals/0b/copy.jpg"),
        ] {
            let source = folder.appending("source-" + (destination as NSString).lastPathComponent).path
            try database.run(
                """
                INSERT INTO placement_intents(
                    session, batch, action, method, source, source_inode, destination, created_at)
                VALUES (?, 1, 0, 1, ?, 1, ?, 0)
                """, [.text(session), .text(source), .text(destination)])
        }
        let report = try library.verify()
        #expect(report.issues.map(\.kind) == [.interruptedChange], "\(report.issues)")
        #expect(report.issues.first?.message.contains("2 file placements") == true)
        #expect(report.changesInFlight == 2)
        #expect(FileManager.default.fileExists(atPath: liveLock), "verify never removes lock files")
        #expect(
            FileManager.default.fileExists(atPath: deadFile.path), "verify changes nothing; recovery is the writer's")

        // Once the writer is gone and recovery ran, nothing is left.
        flock(descriptor, LOCK_UN)
        try database.run("DELETE FROM placement_intents WHERE session = 'live-session'")
        try FileManager.default.removeItem(at: liveFile)
        try FileManager.default.removeItem(at: liveCopy)
        try await PhotoLibrary(url: library.url).recoverInterruptedChanges()
        let after = try library.verify()
        #expect(after.isClean, "\(after.issues)")
        #expect(FileManager.default.fileExists(atPath: folder.appending("source-dead.jpg").path), "put back")
    }

    @Test("recovered files, assets without an original and wrong album counts are reported")
    func catalogProblems() async throws {
        let folder = try TemporaryDirectory()
        let (library, assets) = try await populated(folder)
        let recovered = library.url.appendingPathComponent("recovered")
        try FileManager.default.createDirectory(at: recovered, withIntermediateDirectories: true)
        try Data("kept".utf8).write(to: recovered.appendingPathComponent("x-IMG_1.jpg"))
        let database = try library.rawCatalog()
        try database.run("UPDATE albums SET asset_count = 7")
        let uuid = try #require(LocalIdentifier.assetUUID(assets[1].localIdentifier))
        try database.run(
            "DELETE FROM resources WHERE asset_id = (SELECT id FROM assets WHERE uuid = ?)", [.text(uuid)])

        let report = try library.verify()
        #expect(report.issues(of: .recoveredFile).count == 1)
        #expect(report.issues(of: .assetWithoutOriginal).map(\.assetIdentifier) == [assets[1].localIdentifier])
        let counts = report.issues(of: .albumCountMismatch)
        #expect(counts.count == 1 && counts.first?.message.contains("records 7") == true, "\(counts)")
        #expect(report.issues(of: .orphanFile).map(\.path) == [assets[1].originalURL?.path])
        #expect(report.issues(of: .databaseIntegrity).isEmpty)
    }

    @Test("SQLite damage is reported as databaseIntegrity")
    func damagedDatabase() async throws {
        let folder = try TemporaryDirectory()
        let (library, _) = try await populated(folder, count: 40)
        // Break an index behind SQLite's back: the table and its index disagree.
        let database = try library.rawCatalog()
        try database.execute("PRAGMA writable_schema = ON")
        let indexRoot = try #require(
            try database.int64("SELECT rootpage FROM sqlite_schema WHERE name = 'assets_by_added_date'"))
        let tableRoot = try #require(try database.int64("SELECT rootpage FROM sqlite_schema WHERE name = 'albums'"))
        try database.run(
            "UPDATE sqlite_schema SET rootpage = ? WHERE name = 'assets_by_added_date'", [.integer(tableRoot)])
        try database.execute("PRAGMA writable_schema = OFF")
        _ = indexRoot
        let fresh = PhotoLibrary(url: library.url, catalog: library.catalog)
        let report = try fresh.verify()
        #expect(!report.issues(of: .databaseIntegrity).isEmpty, "\(report.issues)")
    }

    @Test("no library: an error naming the folder, and nothing is created", arguments: CatalogBackend.all)
    func noLibrary(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library("Missing", on: backend)
        #expect {
            try library.verify()
        } throws: { error in
            guard let error = error as? PhotosError else { return false }
            return error.code == .libraryVolumeOffline && error.message.contains(library.url.path)
        }
        #expect(!FileManager.default.fileExists(atPath: library.url.path))
    }

    @Test("verify beside a writer that keeps adding and purging never reports a problem")
    func besideWriter() async throws {
        let folder = try TemporaryDirectory()
        let (library, _) = try await populated(folder, count: 1)
        let writer = PhotoLibrary(url: library.url, catalog: library.catalog)
        let files = try folder.makeFiles(60, prefix: "busy", size: 3000)
        let done = Locked(false)
        let writing = Task {
            for chunk in stride(from: 0, to: files.count, by: 3) {
                let batch = Array(files[chunk..<min(chunk + 3, files.count)])
                let report = try await writer.performChanges {
                    for file in batch { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
                }
                // Thumbnails too, made twice (the second replaces the first's file), so that verify also meets
                // derivatives whose rows and files change under it.
                let identifiers = report.assetCreations.map(\.localIdentifier)
                for round in 0..<2 {
                    var contents: [DerivativeContent] = []
                    for id in identifiers {
                        let source = try #require(try writer.derivativeSource(ofAsset: id))
                        let picture = DerivativeContent.Picture(
                            data: Data("\(id) \(round)".utf8), mimeType: "image/webp", pixelWidth: 64, pixelHeight: 48)
                        contents.append(
                            DerivativeContent(
                                assetLocalIdentifier: id, kind: .thumbnail, sourceSHA256: source.sha256,
                                result: .success(picture)))
                    }
                    try await writer.storeDerivatives(contents)
                }
                if chunk % 6 == 0 {
                    let created = try Asset.fetchAssets(
                        withLocalIdentifiers: report.assetCreations.map(\.localIdentifier), library: writer)
                    try await writer.performChanges { try AssetChangeRequest.purgeAssets(Array(created)) }
                }
            }
            done.value = true
        }
        var rounds = 0
        while !done.value || rounds == 0 {
            let report = try library.verify(deep: rounds % 2 == 1)
            #expect(report.isClean, "round \(rounds): \(report.issues)")
            rounds += 1
            await Task.yield()
        }
        try await writing.value
        #expect(rounds > 1)
        #expect(try library.verify(deep: true).isClean)
    }
}
