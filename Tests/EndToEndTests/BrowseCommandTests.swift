import Foundation
import PhotoCatalog
import TestFixtures
import Testing

@Suite("photodrop albums, assets, show", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct BrowseCommandTests {
    @Test("albums: regular albums then smart albums, as an aligned table and as JSON lines")
    func albums() async throws {
        let sandbox = try Sandbox("albums")
        let content = try sandbox.populateCatalog()
        let json = try await sandbox.run(["albums", "--json"])
        #expect(json.status == 0, "\(json)")
        let albums = try json.jsonLines()
        #expect(albums.count == 2 + 7, "two albums and the seven smart albums")
        #expect(albums[0]["id"] as? String == content.trip)
        #expect(albums[0]["title"] as? String == "Trip")
        #expect(albums[0]["count"] as? Int == 3)
        #expect(albums[0]["type"] as? String == "album")
        #expect(albums[1]["title"] as? String == "Family" && albums[1]["count"] as? Int == 1)
        let smart = Dictionary(
            uniqueKeysWithValues: albums.dropFirst(2).map { ($0["title"] as? String ?? "", $0) })
        #expect(smart.values.allSatisfy { $0["type"] as? String == "smartAlbum" })
        #expect(smart["All Photos"]?["count"] as? Int == 4)
        #expect(smart["Favorites"]?["count"] as? Int == 1)
        #expect(smart["Videos"]?["count"] as? Int == 1)
        #expect(smart["Animated"]?["count"] as? Int == 1)
        #expect(smart["Recently Deleted"]?["count"] as? Int == 0)
        #expect(Set(albums[0].keys) == ["id", "title", "count", "type", "parent", "description", "inboxFolder"])

        let text = try await sandbox.run(["albums"])
        #expect(text.status == 0, "\(text)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("ID") && lines[0].contains("TYPE") && lines[0].hasSuffix("TITLE"))
        let trip = try #require(lines.first { $0.hasSuffix("  Trip") })
        #expect(trip.hasPrefix(String(content.trip.prefix(13)) + " "), "shortened identifier: \(trip)")
        // Aligned: every row's TITLE column starts where the header's does.
        let titleColumn = try #require(lines[0].range(of: "TITLE")).lowerBound.utf16Offset(in: lines[0])
        for line in lines[1..<10] {
            let title = line.dropFirst(titleColumn)
            #expect(!title.hasPrefix(" ") && line.count > titleColumn, "misaligned: '\(line)'")
        }
        #expect(lines.last == "2 albums and 7 smart albums")
    }

    @Test("assets: filters by album title or id, kind and favourite; JSON has the README's fields")
    func assets() async throws {
        let sandbox = try Sandbox("assets")
        let content = try sandbox.populateCatalog()
        let all = try await sandbox.run(["assets", "--json"])
        #expect(all.status == 0, "\(all)")
        let items = try all.jsonLines()
        #expect(Set(items.compactMap { $0["id"] as? String }) == Set(content.assets))
        let photo = try #require(items.first { $0["id"] as? String == content.photo1 })
        let contract = [
            "id", "kind", "mime", "sha256", "bytes", "originalFilename", "creationDate", "creationDateSource",
            "pixelWidth", "pixelHeight", "duration", "isFavorite", "albums", "path",
        ]
        #expect(Array(photo.keys).filter(contract.contains).count == contract.count, "\(photo.keys)")
        #expect(photo["kind"] as? String == "photo")
        #expect(photo["mime"] as? String == "image/jpeg")
        #expect((photo["sha256"] as? String)?.count == 64)
        #expect(photo["bytes"] as? Int == MediaFixtures.jpeg(seed: 1).count)
        #expect(photo["originalFilename"] as? String == "IMG_0001.JPG")
        #expect(photo["creationDate"] as? String == "2021-06-05T14:30:00.000Z")
        #expect(photo["creationDateSource"] as? String == "exif")
        #expect(photo["pixelWidth"] as? Int == 640 && photo["pixelHeight"] as? Int == 480)
        #expect(photo["isFavorite"] as? Bool == true)
        #expect(photo["albums"] as? [String] == ["Trip", "Family"])
        let resources = try #require(photo["resources"] as? [[String: Any]])
        #expect(resources.count == 1 && resources[0]["type"] as? String == "photo")
        #expect(resources[0]["sha256"] as? String == photo["sha256"] as? String)
        #expect(resources[0]["bytes"] as? Int == photo["bytes"] as? Int)
        #expect(resources[0]["originalFilename"] as? String == "IMG_0001.JPG")
        #expect(photo["mediaSubtypes"] as? [String] == [])
        let path = try #require(photo["path"] as? String)
        #expect(path.hasPrefix(sandbox.library.path + "/originals/"))
        #expect(FileManager.default.fileExists(atPath: path))
        let video = try #require(items.first { $0["id"] as? String == content.video })
        #expect(video["kind"] as? String == "video" && video["duration"] as? Double == 12.5)
        let gif = try #require(items.first { $0["id"] as? String == content.gif })
        #expect(gif["kind"] as? String == "gif" && gif["albums"] as? [String] == [])
        #expect(gif["creationDate"] is String, "the catalog falls back to the file's date")

        func ids(_ arguments: [String]) async throws -> [String] {
            let result = try await sandbox.run(["assets", "--json"] + arguments)
            #expect(result.status == 0, "\(arguments): \(result)")
            return try result.jsonLines().compactMap { $0["id"] as? String }
        }
        #expect(try await ids(["--album", "Trip"]) == [content.photo1, content.photo2, content.video], "album order")
        #expect(try await ids(["--album", content.family]) == [content.photo1], "by identifier")
        #expect(try await ids(["--album", String(content.family.prefix(8))]) == [content.photo1], "by prefix")
        #expect(try await ids(["--album", "Favorites"]) == [content.photo1], "smart album by title")
        #expect(try Set(await ids(["--kind", "photo"])) == [content.photo1, content.photo2])
        #expect(try await ids(["--kind", "gif"]) == [content.gif])
        #expect(try await ids(["--kind", "video"]) == [content.video])
        #expect(try await ids(["--favorites"]) == [content.photo1])
        #expect(try await ids(["--album", "Trip", "--kind", "video", "--favorites"]).isEmpty)

        let text = try await sandbox.run(["assets", "--album", "Trip"])
        #expect(text.status == 0, "\(text)")
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines[0].hasPrefix("ID") && lines[0].contains("KIND") && lines[0].contains("ALBUMS"))
        let first = try #require(lines.first { $0.hasPrefix(String(content.photo1.prefix(13))) })
        #expect(first.contains("photo") && first.contains("2021-06-05 14:30") && first.contains("640×480"))
        #expect(first.contains("IMG_0001.JPG") && first.hasSuffix("Trip, Family") && first.contains(" * "))
        #expect(lines.last?.hasPrefix("3 assets") == true, "\(text)")
        let none = try await sandbox.run(["assets", "--album", "Family", "--kind", "gif"])
        #expect(none.status == 0 && none.stdout == "No assets match.\n", "\(none)")
    }

    @Test("show: text and JSON, by full id, bare UUID, lowercase prefix; deleted assets too")
    func show() async throws {
        let sandbox = try Sandbox("show")
        let content = try sandbox.populateCatalog()
        let json = try await sandbox.run(["show", "--json", content.photo1])
        #expect(json.status == 0, "\(json)")
        let object = try json.jsonObject()
        #expect(object["id"] as? String == content.photo1)
        #expect(object["albums"] as? [String] == ["Trip", "Family"])
        #expect(object["isDeleted"] as? Bool == false)
        for form in [String(content.photo1.prefix(36)), String(content.photo1.prefix(6)).lowercased()] {
            let result = try await sandbox.run(["show", "--json", form])
            #expect(try result.jsonObject()["id"] as? String == content.photo1, "\(form): \(result)")
        }
        let text = try await sandbox.run(["show", content.video])
        #expect(text.status == 0, "\(text)")
        for expected in [
            "ID         \(content.video)", "Kind       video (video/quicktime)", "File       clip.mov",
            "Duration   12.5 s", "Favorite   no", "Albums     Trip",
        ] {
            #expect(text.stdout.contains(expected), "missing '\(expected)' in\n\(text.stdout)")
        }
        #expect(text.stdout.contains("Original   \(sandbox.library.path)/originals/"))
        let delete = try await sandbox.run(["delete", content.gif])
        #expect(delete.status == 0, "\(delete)")
        let deleted = try await sandbox.run(["show", content.gif])
        #expect(deleted.status == 0 && deleted.stdout.contains("(in Recently Deleted)"), "\(deleted)")
    }

    @Test("bad identifiers and titles: exit 1, the message names them and says what to do")
    func badIdentifiers() async throws {
        let sandbox = try Sandbox("bad-ids")
        let content = try sandbox.populateCatalog()
        let more = try sandbox.addPhotos(20)

        let unknown = try await sandbox.run(["show", "00000000-DEAD-BEEF-0000-000000000000"])
        #expect(unknown.status == 1, "\(unknown)")
        #expect(
            unknown.stderr.contains(
                "photodrop show: no asset has the identifier '00000000-DEAD-BEEF-0000-000000000000'"))
        #expect(unknown.stderr.contains("photodrop assets"))
        #expect(unknown.stdout.isEmpty)

        let garbage = try await sandbox.run(["show", "not-an-id"])
        #expect(garbage.status == 1 && garbage.stderr.contains("'not-an-id'"), "\(garbage)")

        // 24 assets over 16 first hex digits: some digit starts several identifiers.
        let ids = content.assets + more
        let shared = try #require(
            Dictionary(grouping: ids, by: { $0.prefix(1) }).first { $0.value.count > 1 }?.key)
        let ambiguous = try await sandbox.run(["favorite", String(shared)])
        #expect(ambiguous.status == 1, "\(ambiguous)")
        #expect(ambiguous.stderr.contains("'\(shared)' is ambiguous"), "\(ambiguous)")

        let lonely = try #require(Dictionary(grouping: ids, by: { $0.prefix(3) }).first { $0.value.count == 1 })
        let short = try await sandbox.run(["show", String(lonely.key)])
        #expect(short.status == 1 && short.stderr.contains("too short"), "\(short)")

        let albumAsAsset = try await sandbox.run(["show", content.trip])
        #expect(albumAsAsset.status == 1 && albumAsAsset.stderr.contains("identifier of an album"), "\(albumAsAsset)")
        let assetAsAlbum = try await sandbox.run(["album", "delete", content.photo1])
        #expect(assetAsAlbum.status == 1 && assetAsAlbum.stderr.contains("identifier of an asset"), "\(assetAsAlbum)")
        let titleAsID = try await sandbox.run(["album", "rename", "Trip", "Voyage"])
        #expect(titleAsID.status == 1, "\(titleAsID)")
        #expect(titleAsID.stderr.contains("'Trip' is the title of album \(content.trip)"), "\(titleAsID)")

        let noAlbum = try await sandbox.run(["assets", "--album", "Nowhere"])
        #expect(noAlbum.status == 1 && noAlbum.stderr.contains("no album is titled 'Nowhere'"), "\(noAlbum)")
        // PhotoKit allows two albums with one title; the command line then asks for the identifier.
        try sandbox.openCatalog().performChangesAndWait {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
        }
        let twoTrips = try await sandbox.run(["assets", "--album", "Trip"])
        #expect(twoTrips.status == 1 && twoTrips.stderr.contains("2 albums are titled 'Trip'"), "\(twoTrips)")

        let badKind = try await sandbox.run(["assets", "--kind", "movie"])
        #expect(badKind.status == 2 && badKind.stderr.contains("--kind"), "\(badKind)")
    }

    @Test("no library yet: reading and changing commands say where they looked, exit 1, and create nothing")
    func noLibrary() async throws {
        let sandbox = try Sandbox("no-library")
        for arguments in [
            ["albums"], ["assets"], ["show", "ABCD"], ["album", "create", "X"], ["favorite", "ABCD"], ["verify"],
            ["events"], ["delete", "ABCD"],
        ] {
            let result = try await sandbox.run(arguments)
            #expect(result.status == 1, "\(arguments): \(result)")
            #expect(result.stderr.contains("there is no library yet at '\(sandbox.library.path)'"), "\(result)")
            #expect(result.stderr.contains(sandbox.config.path), "names the configuration: \(result)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.library.path))
    }

    @Test("show: a Live Photo lists both resources, in text and JSON, with its subtype")
    func multiResourceShow() async throws {
        let sandbox = try Sandbox("resources")
        let photo = try sandbox.write("Sources/IMG_0009.HEIC", MediaFixtures.jpeg(seed: 9))
        let movie = try sandbox.write("Sources/IMG_0009.MOV", Array("a paired movie \(UUID())".utf8))
        let created = Locked<String?>(nil)
        try sandbox.openCatalog().performChangesAndWait {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: photo, options: nil)
            request.addResource(with: .pairedVideo, fileURL: movie, options: nil)
            created.value = request.placeholderForCreatedAsset?.localIdentifier
        }
        let id = try #require(created.value)
        let json = try await sandbox.run(["show", id, "--json"]).jsonLines()
        let item = try #require(json.first)
        #expect(item["mediaSubtypes"] as? [String] == ["livePhoto"])
        let resources = try #require(item["resources"] as? [[String: Any]])
        #expect(resources.map { $0["type"] as? String } == ["photo", "pairedVideo"])
        #expect(resources.map { $0["originalFilename"] as? String } == ["IMG_0009.HEIC", "IMG_0009.MOV"])
        #expect(item["originalFilename"] as? String == "IMG_0009.HEIC", "the asset's own fields are its primary's")
        let text = try await sandbox.run(["show", id])
        #expect(text.stdout.contains("Subtypes") && text.stdout.contains("livePhoto"), "\(text)")
        #expect(text.stdout.contains("+ pairedVideo") && text.stdout.contains("IMG_0009.MOV"), "\(text)")
    }
}
