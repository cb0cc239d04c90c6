import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// The data-loss issue's case 1: a re-dropped good copy was deleted as a "duplicate" while the library's own copy was
/// missing or damaged, so the library had no good copy left. Now the stored original is checked before a drop is
/// thrown away, and a missing, resized or (per `verify --deep`) damaged original is replaced by the drop, the damaged
/// file kept under `Library/damaged/`.
@Suite("duplicates repair a missing or damaged stored original", .serialized, .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct DuplicateRepairTests {
    /// How the stored original is spoiled before the same content is dropped again.
    enum Damage: String, CaseIterable, Sendable {
        case deleted
        case truncated
        /// Same size, other bytes: only `verify --deep` can tell, and records it.
        case alteredInPlace
    }

    /// Imports one photo, spoils its stored original, and returns (sandbox, photo bytes, asset id, original path).
    func prepare(_ label: String, _ damage: Damage) async throws -> (Sandbox, [UInt8], String, URL) {
        let sandbox = try Sandbox(label, settings: ["settleMilliseconds": 50])
        let bytes = TinyJPEG.bytes(7)
        let source = try sandbox.write("first/IMG_7.jpg", bytes)
        let imported = try await sandbox.run(["import", source.path, "--json"])
        #expect(imported.status == 0, "\(imported)")
        let asset = try #require(
            (try imported.jsonObject()["items"] as? [[String: Any]])?.first?["id"] as? String)
        let shown = try await sandbox.run(["show", asset, "--json"]).jsonObject()
        let original = URL(fileURLWithPath: try #require(shown["path"] as? String))
        switch damage {
        case .deleted:
            try FileManager.default.removeItem(at: original)
        case .truncated:
            #expect(truncate(original.path, off_t(bytes.count / 2)) == 0)
        case .alteredInPlace:
            var spoiled = bytes
            spoiled[bytes.count / 2] ^= 0xFF
            chmod(original.path, 0o640)
            try Data(spoiled).write(to: original)
            // A cheap check cannot see this; the deep one records it in the catalog.
            let deep = try await sandbox.run(["verify", "--deep", "--json"])
            #expect(deep.status == 1, "\(deep)")
            #expect(deep.stdout.contains("hashMismatch"), "\(deep)")
        }
        return (sandbox, bytes, asset, original)
    }

    func expectRepaired(_ sandbox: Sandbox, _ bytes: [UInt8], _ asset: String, _ original: URL, _ damage: Damage) async throws {
        #expect(try Data(contentsOf: original) == Data(bytes), "the stored original holds the right bytes again")
        var info = stat()
        #expect(stat(original.path, &info) == 0 && info.st_mode & 0o777 == 0o440)
        let kept = sandbox.files(under: sandbox.library.appendingPathComponent("damaged"))
        if damage == .deleted {
            #expect(kept.isEmpty, "nothing to keep aside: \(kept)")
        } else {
            #expect(kept.count == 1, "the damaged file is kept aside, never overwritten: \(kept)")
        }
        // verify reports the kept file until a person looks at it; without it, the library is clean.
        let verify = try await sandbox.run(["verify", "--deep", "--json"])
        if damage != .deleted {
            #expect(verify.status == 1 && verify.stdout.contains("damagedOriginalKept"), "\(verify)")
            try FileManager.default.removeItem(at: sandbox.library.appendingPathComponent("damaged"))
        }
        let clean = try await sandbox.run(["verify", "--deep"])
        #expect(clean.status == 0, "\(clean)")
        #expect(try LibraryCheck(sandbox).assetCount == 1)
    }

    @Test("watch: the dropped copy replaces the stored original", arguments: Damage.allCases)
    func watchRepairs(_ damage: Damage) async throws {
        let (sandbox, bytes, asset, original) = try await prepare("repair-watch", damage)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        try Data(bytes).write(to: try sandbox.inboxAlbum("Again").appendingPathComponent("copy.jpg"))
        let outcomes = await daemon.waitForOutcomes(1)
        #expect(try await daemon.stop() == 0)
        let outcome = try #require(outcomes.first)
        #expect(outcome["outcome"] as? String == "duplicate", "\(outcome)")
        #expect((outcome["detail"] as? String)?.contains("so this copy replaced it") == true, "\(outcome)")
        #expect(outcome["asset"] as? String == asset)
        #expect(daemon.log.contains("repaired a stored original"), "\(daemon.log)")
        try await expectRepaired(sandbox, bytes, asset, original, damage)
        #expect(try LibraryCheck(sandbox).albums() == ["Again": 1], "the asset joined the folder's album too")
    }

    @Test("import --move: the moved copy replaces the stored original", arguments: Damage.allCases)
    func importMoveRepairs(_ damage: Damage) async throws {
        let (sandbox, bytes, asset, original) = try await prepare("repair-move", damage)
        let again = try sandbox.write("again/copy.jpg", bytes)
        let result = try await sandbox.run(["import", again.path, "--move", "--json"])
        #expect(result.status == 0, "\(result)")
        let item = try #require((try result.jsonObject()["items"] as? [[String: Any]])?.first)
        #expect(item["outcome"] as? String == "duplicate" && item["id"] as? String == asset, "\(item)")
        #expect((item["message"] as? String)?.contains("so this copy replaced it") == true, "\(item)")
        #expect(!FileManager.default.fileExists(atPath: again.path), "moved into the library")
        try await expectRepaired(sandbox, bytes, asset, original, damage)
    }

    @Test("import (copy): the source is copied over the damaged original and kept", arguments: Damage.allCases)
    func importCopyRepairs(_ damage: Damage) async throws {
        let (sandbox, bytes, asset, original) = try await prepare("repair-copy", damage)
        let again = try sandbox.write("again/copy.jpg", bytes)
        let result = try await sandbox.run(["import", again.path, "--json"])
        #expect(result.status == 0, "\(result)")
        let item = try #require((try result.jsonObject()["items"] as? [[String: Any]])?.first)
        #expect(item["outcome"] as? String == "duplicate" && item["id"] as? String == asset, "\(item)")
        #expect(FileManager.default.fileExists(atPath: again.path), "a copying import keeps its source")
        try await expectRepaired(sandbox, bytes, asset, original, damage)
    }

    @Test("an intact original: the dropped duplicate is removed, nothing is rewritten")
    func intactOriginalStaysAlone() async throws {
        let sandbox = try Sandbox("repair-none", settings: ["settleMilliseconds": 50])
        let bytes = TinyJPEG.bytes(8)
        let first = try sandbox.write("first/IMG_8.jpg", bytes)
        #expect(try await sandbox.run(["import", first.path]).status == 0)
        let before = sandbox.files(under: sandbox.library.appendingPathComponent("originals"))
        let again = try sandbox.write("again/IMG_8.jpg", bytes)
        let result = try await sandbox.run(["import", again.path, "--move", "--json"])
        let item = try #require((try result.jsonObject()["items"] as? [[String: Any]])?.first)
        #expect(item["outcome"] as? String == "duplicate")
        #expect((item["message"] as? String)?.contains("replaced") == false)
        #expect(!FileManager.default.fileExists(atPath: again.path), "the dropped copy of a good duplicate is removed")
        #expect(sandbox.files(under: sandbox.library.appendingPathComponent("originals")) == before)
        #expect(!FileManager.default.fileExists(atPath: sandbox.library.appendingPathComponent("damaged").path))
    }
}
