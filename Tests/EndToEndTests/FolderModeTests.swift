import Foundation
import TestFixtures
import Testing

@Suite("Folder modes: firstLevel, leaf, path; an album keeps its inbox folder when renamed", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct FolderModeTests {
    /// Writes one small JPEG per relative path below `drop/` and imports the folder.
    private func importTree(_ sandbox: Sandbox, _ paths: [String], seed: Int = 0) async throws {
        for (index, path) in paths.enumerated() {
            try sandbox.write("drop/\(path)", SyntheticJPEG.bytes(seed: seed + index + 1))
        }
        let result = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path])
        #expect(result.status == 0, "\(result)")
        try FileManager.default.removeItem(at: sandbox.root.appendingPathComponent("drop"))
    }

    private func userCollections(_ sandbox: Sandbox) async throws -> [[String: Any]] {
        let listed = try await sandbox.run(["albums", "--json"])
        #expect(listed.status == 0, "\(listed)")
        return try listed.jsonLines().filter { $0["type"] as? String != "smartAlbum" }
    }

    @Test("path: each level a folder of the library, 2023/Paris apart from 2024/Paris; a second import reuses them")
    func pathMode() async throws {
        let sandbox = try Sandbox("path", settings: ["albums": "path"])
        try await importTree(sandbox, ["2023/Paris/a.jpg", "2024/Paris/b.jpg", "2023/c.jpg", "top.jpg"])
        try await importTree(sandbox, ["2023/Paris/d.jpg", "2023/Paris/Night/e.jpg"], seed: 10)

        let items = try await userCollections(sandbox)
        let shape = items.map { "\($0["type"] as? String ?? "?"):\($0["title"] as? String ?? "?")" }
        #expect(
            shape.sorted() == ["album:2023", "album:Night", "album:Paris", "album:Paris", "folder:2023", "folder:2024",
                "folder:Paris"], "\(shape)")
        // Depth first: everything comes after the folder it is in.
        for (index, item) in items.enumerated() {
            guard let parent = item["parent"] as? String else { continue }
            let parentIndex = try #require(items.firstIndex { $0["id"] as? String == parent })
            #expect(parentIndex < index, "\(shape)")
        }
        let byShape = Dictionary(grouping: items) { "\($0["type"] as? String ?? ""):\($0["title"] as? String ?? "")" }
        let year2023 = try #require(byShape["folder:2023"]?.first)
        let year2024 = try #require(byShape["folder:2024"]?.first)
        #expect(year2023["parent"] is NSNull && year2023["count"] as? Int == 2, "folder Paris and album Paris")
        let parisAlbums = try #require(byShape["album:Paris"])
        #expect(parisAlbums.count == 2)
        let in2023 = try #require(parisAlbums.first { $0["count"] as? Int == 2 })
        #expect(in2023["parent"] as? String == year2023["id"] as? String, "2023/Paris/ files into 2023 → Paris")
        let in2024 = try #require(parisAlbums.first { $0["count"] as? Int == 1 })
        #expect(in2024["parent"] as? String == year2024["id"] as? String)
        // 2023/Paris/Night/ → folders 2023 and 2023 → Paris, album Night.
        let parisFolder = try #require(byShape["folder:Paris"]?.first)
        #expect(parisFolder["parent"] as? String == year2023["id"] as? String)
        let night = try #require(byShape["album:Night"]?.first)
        #expect(night["parent"] as? String == parisFolder["id"] as? String && night["count"] as? Int == 1)
        // Files directly in Inbox/2023/ file into a top-level album 2023, beside the folder.
        #expect(byShape["album:2023"]?.first?["parent"] is NSNull)
        #expect(byShape["album:2023"]?.first?["count"] as? Int == 1)
        #expect(Set(items.flatMap { Array($0.keys) }) == ["id", "title", "count", "type", "parent", "description", "inboxFolder"])

        let text = try await sandbox.run(["albums"])
        let lines = text.stdout.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains("folder") && $0.hasSuffix("  2023/") }, "\(text.stdout)")
        #expect(lines.contains { $0.contains("album") && $0.hasSuffix("      Night") }, "indented two levels")
        #expect(lines.last == "4 albums in 3 folders and 7 smart albums", "\(text.stdout)")
        #expect(try await sandbox.run(["assets", "--album", "Night", "--json"]).jsonLines().count == 1)
    }

    @Test("leaf: the deepest folder names the album, so 2023/Paris and 2024/Paris file into one")
    func leafMode() async throws {
        let sandbox = try Sandbox("leaf", settings: ["albums": "leaf"])
        try await importTree(sandbox, ["2023/Paris/a.jpg", "2024/Paris/b.jpg", "2023/c.jpg", "Paris/d.jpg"])
        let items = try await userCollections(sandbox)
        let counts = Dictionary(uniqueKeysWithValues: items.map { ($0["title"] as? String ?? "", $0["count"] as? Int) })
        #expect(counts == ["Paris": 3, "2023": 1], "\(items)")
        #expect(items.allSatisfy { $0["type"] as? String == "album" && $0["parent"] is NSNull })
    }

    @Test("firstLevel (default): deeper folders file into the first level's album")
    func firstLevelMode() async throws {
        let sandbox = try Sandbox("first")
        try await importTree(sandbox, ["2023/Paris/a.jpg", "2023/b.jpg", "Rome/c.jpg"])
        let items = try await userCollections(sandbox)
        let counts = Dictionary(uniqueKeysWithValues: items.map { ($0["title"] as? String ?? "", $0["count"] as? Int) })
        #expect(counts == ["2023": 2, "Rome": 1], "\(items)")
    }

    @Test("watch: after 'album rename', files dropped into the old folder still go to the renamed album")
    func renameKeepsFolder() async throws {
        let sandbox = try Sandbox("rename")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        try Data(SyntheticJPEG.bytes(seed: 1)).write(to: sandbox.inboxAlbum("Trip").appendingPathComponent("a.jpg"))
        #expect(await daemon.waitForOutcomes(1).count == 1, "\(daemon.log)")
        let trip = try #require(try await userCollections(sandbox).first)
        let id = try #require(trip["id"] as? String)
        #expect(try await sandbox.run(["album", "rename", id, "Holidays"]).status == 0)
        try Data(SyntheticJPEG.bytes(seed: 2)).write(to: sandbox.inboxAlbum("Trip").appendingPathComponent("b.jpg"))
        #expect(await daemon.waitForOutcomes(2).count == 2, "\(daemon.log)")
        _ = try await daemon.stop()
        let items = try await userCollections(sandbox)
        #expect(items.count == 1, "no new album Trip: \(items)")
        #expect(items.first?["title"] as? String == "Holidays" && items.first?["count"] as? Int == 2)
        #expect(items.first?["id"] as? String == id)
    }
}
