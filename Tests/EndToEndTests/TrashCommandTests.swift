import Foundation
import PhotoCatalog
import TestFixtures
import Testing

@Suite("photodrop restore, trash, trash empty; the daemon's purge after trashDays", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct TrashCommandTests {
    /// Moves an asset's deletion `days` into the past, as if it had waited in Recently Deleted that long.
    private func backdateDeletion(_ sandbox: Sandbox, _ identifier: String, days: Double) throws {
        let database = try Database(
            path: sandbox.library.appendingPathComponent("library.sqlite").path, mode: .readWrite(create: false))
        let uuid = String(identifier.prefix { $0 != "/" })
        try database.run(
            "UPDATE assets SET deleted_date = ? WHERE uuid = ?",
            [.real(Date().timeIntervalSince1970 - days * 86_400), .text(uuid)])
    }

    private func trashIDs(_ sandbox: Sandbox) async throws -> [String] {
        let listed = try await sandbox.run(["trash", "--json"])
        #expect(listed.status == 0, "\(listed)")
        return try listed.jsonLines().compactMap { $0["id"] as? String }
    }

    @Test("delete, trash lists it with its purge date, restore brings it back into its albums, empty purges for good")
    func listRestoreEmpty() async throws {
        let sandbox = try Sandbox("trash")
        let content = try sandbox.populateCatalog()
        let empty = try await sandbox.run(["trash"])
        #expect(empty.status == 0 && empty.stdout == "Recently Deleted is empty.\n", "\(empty)")

        for id in [content.photo1, content.photo2, content.gif] {
            #expect(try await sandbox.run(["delete", id]).status == 0)
        }
        let lines = try await sandbox.run(["trash", "list", "--json"]).jsonLines()
        #expect(Set(lines.compactMap { $0["id"] as? String }) == [content.photo1, content.photo2, content.gif])
        let first = try #require(lines.first { $0["id"] as? String == content.photo1 })
        let deleted = try #require((first["deletedDate"] as? String).flatMap(ISO8601DateFormatter.withFractions.date))
        let purge = try #require((first["purgeDate"] as? String).flatMap(ISO8601DateFormatter.withFractions.date))
        #expect(abs(purge.timeIntervalSince(deleted) - 30 * 86_400) < 1, "trashDays defaults to 30")
        let text = try await sandbox.run(["trash"])
        #expect(text.stdout.contains("3 assets (") && text.stdout.contains("in Recently Deleted"), "\(text)")
        #expect(text.stdout.contains("IMG_0001.JPG") && text.stdout.contains("Trip, Family"), "\(text)")

        // restore: back in the library and in both of its albums; a second restore says so and succeeds.
        let restored = try await sandbox.run(["restore", String(content.photo1.prefix(8))])
        #expect(restored.status == 0, "\(restored)")
        #expect(restored.stdout.contains("Restored asset \(content.photo1) from Recently Deleted"), "\(restored)")
        #expect(restored.stdout.contains("'Trip'") && restored.stdout.contains("'Family'"), "\(restored)")
        let again = try await sandbox.run(["restore", content.photo1])
        #expect(again.status == 0 && again.stdout.contains("is not in Recently Deleted"), "\(again)")
        let trip = try await sandbox.run(["assets", "--album", "Trip", "--json"]).jsonLines()
        #expect(trip.contains { $0["id"] as? String == content.photo1 })
        #expect(try await trashIDs(sandbox).sorted() == [content.photo2, content.gif].sorted())

        // empty --older-than: only what was deleted long enough ago.
        try backdateDeletion(sandbox, content.gif, days: 10)
        let original = try sandbox.originalURL(of: content.gif)
        let older = try await sandbox.run(["trash", "empty", "--older-than", "7", "--json"])
        #expect(older.status == 0, "\(older)")
        #expect(try older.jsonObject()["purged"] as? Int == 1)
        #expect(!FileManager.default.fileExists(atPath: original.path), "the original goes with the asset")
        #expect(try await trashIDs(sandbox) == [content.photo2])
        #expect(try await sandbox.run(["show", content.gif]).status == 1, "purged for good")

        let bad = try await sandbox.run(["trash", "empty", "--older-than", "soon"])
        #expect(bad.status == 2 && bad.stderr.contains("--older-than"), "\(bad)")

        let all = try await sandbox.run(["trash", "empty"])
        #expect(all.status == 0 && all.stdout.contains("Purged 1 asset from Recently Deleted"), "\(all)")
        #expect(try await trashIDs(sandbox).isEmpty)
        let verify = try await sandbox.run(["verify"])
        #expect(verify.status == 0, "purging leaves no orphan and no missing original: \(verify)")
    }

    @Test("the daemon purges what waited longer than trashDays, keeps the rest, and never purges with trashDays 0")
    func daemonPurges() async throws {
        let sandbox = try Sandbox("trash-daemon", settings: ["settleMilliseconds": 50, "trashDays": 30])
        let content = try sandbox.populateCatalog()
        for id in [content.photo2, content.gif] {
            #expect(try await sandbox.run(["delete", id]).status == 0)
        }
        try backdateDeletion(sandbox, content.photo2, days: 31)
        try backdateDeletion(sandbox, content.gif, days: 29)
        let old = try sandbox.originalURL(of: content.photo2)

        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        #expect(await eventually(timeout: 20) { (try? await trashIDs(sandbox)) == [content.gif] }, "\(daemon.log)")
        #expect(!FileManager.default.fileExists(atPath: old.path))
        #expect(daemon.log.contains("purged from Recently Deleted"), "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        #expect(try await sandbox.run(["verify"]).status == 0)

        // trashDays 0: even a year-old deletion stays.
        try sandbox.writeConfig([
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected", "settleMilliseconds": 50, "trashDays": 0,
            "log": ["format": "json", "level": "debug"],
        ])
        try backdateDeletion(sandbox, content.gif, days: 365)
        let keeper = try WatchDaemon(sandbox)
        try await keeper.waitUntilStarted()
        try await Task.sleep(for: .seconds(1))
        #expect(try await keeper.stop() == 0)
        #expect(try await trashIDs(sandbox) == [content.gif])
        #expect(!keeper.log.contains("purged from Recently Deleted"))
    }
}

extension ISO8601DateFormatter {
    /// `2026-12-01T22:42:00.123Z`, as photodrop writes dates.
    static var withFractions: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter
    }
}
