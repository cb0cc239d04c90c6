import Foundation
import TestFixtures
import Testing

@testable import Ingest
@testable import PhotoCatalog

@Suite("The v6 migration: capture time zones re-read from the originals, in the background", .timeLimit(.minutes(3)))
struct CreationZoneBackfillTests {
    /// A v5 library (the schema before time zones) with rows as the v5 code wrote them, and its originals.
    private func makeVersion5Library(in folder: TemporaryFolder) throws -> PhotoLibrary {
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        try FileManager.default.createDirectory(at: library.originalsURL, withIntermediateDirectories: true)
        let database = try Database(path: library.databasePath, mode: .readWrite(create: true))
        try database.execute("PRAGMA journal_mode = WAL")
        #expect(try Schema.migrator.migrate(database, upTo: 5) == [1, 2, 3, 4, 5])
        // id, file name, bytes of the original (nil: missing), stored date, stored source.
        let rows: [(Int, String, [UInt8]?, Double, String)] = [
            // +09:00 recorded; v5 kept the instant (00:00Z) and dropped the zone.
            (1, "tokyo.jpg", SyntheticJPEG.bytes(seed: 1, taken: "2023:06:01 09:00:00", offset: "+09:00"),
             1_685_577_600, "exif"),
            // No zone recorded: v5 stored the local time as if UTC.
            (2, "local.jpg", SyntheticJPEG.bytes(seed: 2, taken: "2023:06:01 09:00:00"), 1_685_610_000, "exif"),
            // Dated from the file's mtime: nothing to re-read.
            (3, "plain.jpg", SyntheticJPEG.bytes(seed: 3), 1_600_000_000, "fileModificationDate"),
            // The stored date does not match the file (changed since): the zone stays unknown.
            (4, "changed.jpg", SyntheticJPEG.bytes(seed: 4, taken: "2023:06:01 09:00:00", offset: "+09:00"),
             1_500_000_000, "exif"),
            // The original is missing; the v5 source name is renamed.
            (5, "gone.mov", nil, 1_683_632_506, "quickTimeMetadata"),
        ]
        for (id, name, bytes, date, source) in rows {
            let path = "originals/0\(id)/\(id).\((name as NSString).pathExtension)"
            if let bytes {
                try FileManager.default.createDirectory(
                    at: library.url.appendingPathComponent("originals/0\(id)"), withIntermediateDirectories: true)
                try Data(bytes).write(to: library.url.appendingPathComponent(path))
            }
            let uuid = "0000000\(id)-2222-3333-4444-555555555555"
            try database.run(
                """
                INSERT INTO assets(id, uuid, media_type, playback_style, creation_date, creation_date_source,
                    added_date, modification_date) VALUES (?, ?, 1, 1, ?, ?, 0, 0)
                """, [.integer(Int64(id)), .text(uuid), .real(date), .text(source)])
            try database.run(
                """
                INSERT INTO resources(asset_id, type, sha256, byte_count, mime_type, original_filename, path)
                    VALUES (?, 1, ?, ?, 'image/jpeg', ?, ?)
                """,
                [
                    .integer(Int64(id)), .text(String(repeating: String(id), count: 64)),
                    .integer(Int64(bytes?.count ?? 0)), .text(name), .text(path),
                ])
        }
        return library
    }

    @Test("zones filled where the file gives the stored date, unknown elsewhere, each asset read once")
    func backfill() async throws {
        let folder = try TemporaryFolder("zones")
        let library = try makeVersion5Library(in: folder)
        #expect(try library.countAssetsAwaitingCreationTimeZone() == 4, "opening migrates; mtime rows are not re-read")
        let before = Dictionary(uniqueKeysWithValues: try library.assetsAwaitingCreationTimeZone(limit: 10).map {
            ($0.originalFilename ?? "", $0)
        })
        #expect(Set(before.keys) == ["tokyo.jpg", "local.jpg", "changed.jpg", "gone.mov"])
        #expect(before["gone.mov"]?.creationDateSource == "quickTime")
        #expect(before.values.allSatisfy { $0.creationTimeZoneOffset == nil && !$0.isCreationDateFloating })

        let start = try library.currentChangeToken
        let log = LogCapture()
        let backfill = CreationZoneBackfill(library: library, logger: log.logger(), batchSize: 2)
        #expect(await backfill.run() == 2)
        #expect(try library.countAssetsAwaitingCreationTimeZone() == 0)
        let after = Dictionary(
            uniqueKeysWithValues: try Asset.fetchAssets(with: nil, library: library).map {
                ($0.originalFilename ?? "", $0)
            })
        let tokyo = try #require(after["tokyo.jpg"])
        #expect(tokyo.creationTimeZoneOffset == 32_400 && !tokyo.isCreationDateFloating)
        #expect(tokyo.creationDate == Date(timeIntervalSince1970: 1_685_577_600), "the instant is kept")
        let local = try #require(after["local.jpg"])
        #expect(local.isCreationDateFloating && local.creationTimeZoneOffset == nil)
        #expect(local.creationDate == Date(timeIntervalSince1970: 1_685_610_000))
        for name in ["plain.jpg", "changed.jpg", "gone.mov"] {
            let asset = try #require(after[name])
            #expect(asset.creationTimeZoneOffset == nil && !asset.isCreationDateFloating, "\(name): unknown")
        }
        #expect(after["changed.jpg"]?.creationDate == Date(timeIntervalSince1970: 1_500_000_000), "never guessed")
        #expect(after["plain.jpg"]?.creationDateSource == "fileModificationDate")
        #expect(log.all.contains { $0.contains("re-read capture time zones") && $0.contains("assets=4") }, "\(log.all)")

        // Done once: a second run finds nothing and says nothing.
        let quiet = LogCapture()
        #expect(await CreationZoneBackfill(library: library, logger: quiet.logger()).run() == 0)
        #expect(quiet.all.isEmpty)
        // The history reports the re-read assets as updated.
        let changes = try library.fetchPersistentChanges(since: start)
        #expect(Set(changes.flatMap { $0.changeDetails(for: .asset).updatedLocalIdentifiers }).count == 4)
    }
}
