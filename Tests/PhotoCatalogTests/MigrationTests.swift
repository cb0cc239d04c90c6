import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Schema migrations", CatalogGate.one)
struct MigrationTests {
    static func tables(_ database: Database) throws -> Set<String> {
        Set(try database.rows("SELECT name FROM sqlite_schema WHERE type = 'table'") { $0.string(0) })
    }

    @Test("an empty file migrates to the latest version, step by step, and again is a no-op")
    func fromEmpty() throws {
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.appending("empty.sqlite").path, mode: .readWrite(create: true))
        #expect(try Schema.migrator.currentVersion(of: database) == 0)
        #expect(try Schema.migrator.migrate(database) == Array(1...13))
        #expect(try Schema.migrator.currentVersion(of: database) == Schema.latestVersion)
        #expect(
            try Self.tables(database).isSuperset(of: [
                "assets", "resources", "albums", "album_assets", "journal", "placement_intents", "change_log",
            ]))
        #expect(try Schema.migrator.migrate(database) == [])
    }

    @Test("a database built by every older version keeps its data when the library opens it", arguments: [1, 2, 3])
    func fromOlder(version: Int) async throws {
        let folder = try TemporaryDirectory()
        let library = folder.library()
        try FileManager.default.createDirectory(at: library.url, withIntermediateDirectories: true)
        let file = try folder.write(TestFiles.distinctBytes(size: 120), to: "old.jpg")
        do {
            // Build the old library the way that version's code did: its migrations, then rows.
            let database = try Database(path: library.databasePath, mode: .readWrite(create: true))
            try database.execute("PRAGMA journal_mode = WAL")
            #expect(try Schema.migrator.migrate(database, upTo: version) == Array(1...version))
            #expect(try Self.tables(database).contains("placement_intents") == (version >= 3))
            let sha = sha256Hex(try Data(contentsOf: file))
            try FileManager.default.createDirectory(
                at: library.originalsURL.appendingPathComponent("ab"), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: file, to: library.originalsURL.appendingPathComponent("ab/abc.jpg"))
            try database.execute(
                """
                INSERT INTO assets(id, uuid, media_type, playback_style, added_date, modification_date, is_favorite)
                    VALUES (1, '11111111-2222-3333-4444-555555555555', 1, 1, 0, 0, 1);
                INSERT INTO resources(asset_id, type, sha256, byte_count, mime_type, original_filename, path)
                    VALUES (1, 1, '\(sha)', 120, 'image/jpeg', 'old.jpg', 'originals/ab/abc.jpg');
                INSERT INTO albums(id, uuid, title, creation_date, next_position, asset_count)
                    VALUES (1, 'AAAAAAAA-2222-3333-4444-555555555555', 'Old album', 0, 1, 1);
                INSERT INTO album_assets(album_id, asset_id, position) VALUES (1, 1, 0);
                INSERT INTO change_transactions(committed_at) VALUES (1000);
                """)
            if version >= 2 {
                try database.execute("INSERT INTO journal(kind, payload, created_at) VALUES ('claim', x'01', 5)")
            }
        }
        #expect(try Asset.fetchAssets(with: nil, library: library).first?.isFavorite == true, "reading upgrades first")
        let album = try #require(
            AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).firstObject)
        #expect(album.title == "Old album" && album.estimatedAssetCount == 1)
        #expect(
            try Asset.fetchAssets(in: album).first?.localIdentifier == "11111111-2222-3333-4444-555555555555/L0/001")
        #expect(try library.currentChangeToken.value == 1)
        #expect(try library.journalEntries(kind: "claim").count == (version >= 2 ? 1 : 0))
        // The upgraded library works as a new one: duplicates of old content are recognised.
        let report = try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
        }
        #expect(report.assetCreations.first?.isDuplicate == true)
        let database = try Database(path: library.databasePath, mode: .readOnly)
        #expect(try Schema.migrator.currentVersion(of: database) == Schema.latestVersion)
        #expect(try Self.tables(database).contains("placement_intents"))
        // v4: resources keep their rows and the content index, but lose the unique index on path.
        let indexes = try database.rows("SELECT sql FROM sqlite_schema WHERE tbl_name = 'resources' AND type = 'index'")
        {
            $0.optionalString(0) ?? "autoindex"
        }
        #expect(indexes.count == 2, "the sha256 unique index and resources_by_asset: \(indexes)")
        #expect(try database.int64("SELECT count(*) FROM resources WHERE path = 'originals/ab/abc.jpg'") == 1)
        let uniques = try database.rows("PRAGMA index_list(resources)") { ($0.string(1), $0.int(2)) }
        #expect(uniques.filter { $0.1 == 1 }.count == 1, "only sha256 is unique: \(uniques)")
    }

    @Test("v13: an album and a folder bound to an inbox folder before keep it as their binding key")
    func bindingKeysKeepOldBindings() throws {
        let folder = try TemporaryDirectory()
        let library = folder.library()
        try FileManager.default.createDirectory(at: library.url, withIntermediateDirectories: true)
        do {
            let database = try Database(path: library.databasePath, mode: .readWrite(create: true))
            try database.execute("PRAGMA journal_mode = WAL")
            #expect(try Schema.migrator.migrate(database, upTo: 12) == Array(1...12))
            try database.execute(
                """
                INSERT INTO collection_lists(id, uuid, title, creation_date, inbox_folder)
                    VALUES (1, 'FFFFFFFF-2222-3333-4444-555555555555', '2023', 0, '2023');
                INSERT INTO albums(id, uuid, title, creation_date, next_position, asset_count, parent_id, inbox_folder)
                    VALUES (1, 'AAAAAAAA-2222-3333-4444-555555555555', 'Paris (renamed)', 0, 0, 0, 1, '2023/Paris');
                """)
        }
        let album = try #require(try AssetCollection.fetchAlbum(forBindingKey: "2023/Paris", library: library))
        #expect(album.title == "Paris (renamed)" && album.bindingKey == "2023/Paris")
        let list = try #require(try CollectionList.fetchCollectionList(forBindingKey: "2023", library: library))
        #expect(list.bindingKey == "2023")
        let database = try Database(path: library.databasePath, mode: .readOnly)
        let columns = try database.rows("SELECT name FROM pragma_table_info('albums')") { $0.string(0) }
        #expect(columns.contains("binding_key") && !columns.contains("inbox_folder"))
        let indexes = try database.rows("SELECT name FROM sqlite_schema WHERE type = 'index' AND sql LIKE '%UNIQUE%'") {
            $0.string(0)
        }
        #expect(indexes.contains("albums_by_binding_key") && indexes.contains("collection_lists_by_binding_key"))
        #expect(!indexes.contains { $0.contains("inbox") })
    }

    @Test("a failing step leaves the database at the last whole version")
    func failingStep() throws {
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.appending("f.sqlite").path, mode: .readWrite(create: true))
        let migrator = Migrator(migrations: [
            Schema.version1,
            Migrator.Migration(version: 2, name: "broken", sql: "CREATE TABLE half(x); SELECT * FROM no_such_table;"),
        ])
        #expect(throws: DatabaseError.self) { try migrator.migrate(database) }
        #expect(try migrator.currentVersion(of: database) == 1)
        #expect(try !Self.tables(database).contains("half"))
    }

    @Test("a library from a newer photodrop is refused for reading and writing")
    func newerVersion() async throws {
        let folder = try TemporaryDirectory()
        let library = folder.library()
        try await library.performChanges {}
        let database = try Database(path: library.databasePath, mode: .readWrite(create: false))
        try database.execute("PRAGMA user_version = 99")
        let fresh = PhotoLibrary(url: library.url)
        #expect {
            _ = try Asset.fetchAssets(with: nil, library: fresh)
        } throws: { ($0 as? PhotosError)?.message.contains("newer") == true }
        await #expect {
            try await fresh.performChanges {}
        } throws: { ($0 as? PhotosError)?.code == .changeNotSupported }
    }
}
