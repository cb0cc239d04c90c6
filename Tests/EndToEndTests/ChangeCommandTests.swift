import Foundation
import PhotoCatalog
import TestFixtures
import Testing

@Suite("photodrop album create|rename|delete, favorite, remove, delete", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct ChangeCommandTests {
    private func asset(_ sandbox: Sandbox, _ id: String) async throws -> [String: Any] {
        let result = try await sandbox.run(["show", "--json", id])
        #expect(result.status == 0, "\(result)")
        return try result.jsonObject()
    }

    @Test("album create, rename, delete; titles unique and in NFC; smart albums refused")
    func albums() async throws {
        let sandbox = try Sandbox("album-changes")
        let content = try sandbox.populateCatalog()

        let created = try await sandbox.run(["album", "create", "Cafe\u{301}s"])
        #expect(created.status == 0, "\(created)")
        let id = try #require(created.stdout.split(separator: " ").last.map { String($0.dropLast()) })
        #expect(created.stdout == "Created album 'Cafés': \(id)\n", "stored in NFC: \(created)")
        let listed = try await sandbox.run(["albums", "--json"]).jsonLines()
        #expect(listed.contains { $0["id"] as? String == id && $0["title"] as? String == "Caf\u{E9}s" })

        let again = try await sandbox.run(["album", "create", "Caf\u{E9}s"])
        #expect(again.status == 1 && again.stderr.contains("already exists (\(id))"), "\(again)")
        let blank = try await sandbox.run(["album", "create", "  "])
        #expect(blank.status == 2 && blank.stderr.contains("must not be blank"), "\(blank)")

        let renamed = try await sandbox.run(["album", "rename", String(id.prefix(8)), "Coffee"])
        #expect(renamed.status == 0, "\(renamed)")
        #expect(renamed.stdout == "Renamed album 'Cafés' to 'Coffee' (\(id))\n")
        let clash = try await sandbox.run(["album", "rename", id, "Trip"])
        #expect(clash.status == 1 && clash.stderr.contains("another album is already titled 'Trip'"), "\(clash)")
        let smart = try await sandbox.run(["album", "rename", "SmartAlbum-Favorites/L0/040", "Best"])
        #expect(smart.status == 1 && smart.stderr.contains("smart album"), "\(smart)")

        let deleted = try await sandbox.run(["album", "delete", content.trip])
        #expect(deleted.status == 0, "\(deleted)")
        #expect(deleted.stdout.contains("Deleted album 'Trip'") && deleted.stdout.contains("3 assets stay"))
        let titles = try await sandbox.run(["albums", "--json"]).jsonLines().filter { $0["type"] as? String == "album" }
            .compactMap { $0["title"] as? String }
        #expect(titles == ["Family", "Coffee"])
        #expect(try await sandbox.run(["assets", "--json"]).jsonLines().count == 4, "assets stay")
        let smartDelete = try await sandbox.run(["album", "delete", "SmartAlbum-Videos"])
        #expect(smartDelete.status == 1 && smartDelete.stderr.contains("cannot be deleted"), "\(smartDelete)")
    }

    @Test("favorite and --off, remove --from a title or id, delete to Recently Deleted; each is an event")
    func assets() async throws {
        let sandbox = try Sandbox("asset-changes")
        let content = try sandbox.populateCatalog()
        let start = try sandbox.openCatalog().currentChangeToken

        let favorite = try await sandbox.run(["favorite", content.photo2])
        #expect(favorite.status == 0 && favorite.stdout.contains("Marked asset \(content.photo2) as a favourite"))
        #expect(try await asset(sandbox, content.photo2)["isFavorite"] as? Bool == true)
        let twice = try await sandbox.run(["favorite", content.photo2])
        #expect(twice.status == 0 && twice.stdout.contains("already a favourite"), "\(twice)")
        let off = try await sandbox.run(["favorite", "--off", String(content.photo1.prefix(13))])
        #expect(off.status == 0, "\(off)")
        #expect(try await asset(sandbox, content.photo1)["isFavorite"] as? Bool == false)

        let removed = try await sandbox.run(["remove", content.photo1, "--from", "Family"])
        #expect(removed.status == 0, "\(removed)")
        #expect(try await asset(sandbox, content.photo1)["albums"] as? [String] == ["Trip"])
        let removedByID = try await sandbox.run(["remove", content.video, "--from", content.trip])
        #expect(removedByID.status == 0, "\(removedByID)")
        let notMember = try await sandbox.run(["remove", content.gif, "--from", "Trip"])
        #expect(notMember.status == 1 && notMember.stderr.contains("is not in album 'Trip'"), "\(notMember)")
        #expect(notMember.stderr.contains("it is in no album"))
        let fromSmart = try await sandbox.run(["remove", content.photo2, "--from", "Favorites"])
        #expect(fromSmart.status == 1 && fromSmart.stderr.contains("smart album"), "\(fromSmart)")
        let missingOption = try await sandbox.run(["remove", content.photo2])
        #expect(missingOption.status == 2 && missingOption.stderr.contains("--from"), "\(missingOption)")

        let deleted = try await sandbox.run(["delete", content.photo2])
        #expect(deleted.status == 0 && deleted.stdout.contains("moved to Recently Deleted"), "\(deleted)")
        #expect(try await asset(sandbox, content.photo2)["isDeleted"] as? Bool == true)
        let visible = try await sandbox.run(["assets", "--json"]).jsonLines().compactMap { $0["id"] as? String }
        #expect(!visible.contains(content.photo2))
        let bin = try await sandbox.run(["assets", "--json", "--album", "Recently Deleted"]).jsonLines()
        #expect(bin.compactMap { $0["id"] as? String } == [content.photo2])
        let again = try await sandbox.run(["delete", content.photo2])
        #expect(again.status == 0 && again.stdout.contains("already in Recently Deleted"), "\(again)")

        // Five changes, each in the persistent history, in order.
        let events = try await sandbox.run(["events", "--since", start.stringValue])
        let lines = try events.jsonLines()
        #expect(lines.count == 5, "\(events)")
        func details(_ index: Int, _ type: String, _ change: String) -> [String] {
            ((lines[index][type] as? [String: Any])?[change] as? [String]) ?? []
        }
        #expect(details(0, "assets", "updated") == [content.photo2])
        #expect(details(1, "assets", "updated") == [content.photo1])
        #expect(details(2, "albums", "updated") == [content.family])
        #expect(details(3, "albums", "updated") == [content.trip])
        #expect(details(4, "assets", "deleted") == [content.photo2])
    }

    @Test("changes work while a daemon holds the library's watch lock and another process writes")
    func besideAWriter() async throws {
        let sandbox = try Sandbox("change-concurrent")
        let content = try sandbox.populateCatalog()
        let lock = try WatchLockHolder(library: sandbox.library)
        defer { lock.release() }
        let library = sandbox.openCatalog()
        let files = try (0..<30).map { try sandbox.write("Busy/\($0).jpg", MediaFixtures.jpeg(seed: 500 + $0)) }
        let writing = Task.detached {
            for file in files {
                try await library.performChanges {
                    _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
                }
            }
        }
        let favorite = try await sandbox.run(["favorite", content.gif])
        let listed = try await sandbox.run(["assets", "--json"])
        try await writing.value
        #expect(favorite.status == 0, "\(favorite)")
        #expect(listed.status == 0, "\(listed)")
        #expect(try await asset(sandbox, content.gif)["isFavorite"] as? Bool == true)
        #expect(try await sandbox.run(["assets", "--json"]).jsonLines().count == 34)
    }
}
