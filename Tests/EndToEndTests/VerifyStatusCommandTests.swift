import Foundation
import PhotoCatalog
import TestFixtures
import Testing

@Suite("photodrop verify and status", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct VerifyStatusCommandTests {
    @Test("verify: clean (0); a deleted original, an orphan and (with --deep) a corrupted original (1)")
    func verify() async throws {
        let sandbox = try Sandbox("verify")
        let content = try sandbox.populateCatalog()
        let clean = try await sandbox.run(["verify"])
        #expect(clean.status == 0, "\(clean)")
        #expect(clean.stdout.contains("Checked 4 assets, 4 originals and 4 files under"), "\(clean)")
        #expect(clean.stdout.hasSuffix("No problems found.\n"))
        let cleanJSON = try await sandbox.run(["verify", "--deep", "--json"]).jsonObject()
        #expect(cleanJSON["clean"] as? Bool == true && cleanJSON["deep"] as? Bool == true)
        #expect((cleanJSON["hashedBytes"] as? Int ?? 0) > 0)

        let missing = try sandbox.originalURL(of: content.video)
        try FileManager.default.removeItem(at: missing)
        let orphan = sandbox.library.appendingPathComponent("originals/7f/stray.jpg")
        try FileManager.default.createDirectory(
            at: orphan.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(MediaFixtures.jpeg(seed: 77)).write(to: orphan)
        let corrupted = try sandbox.originalURL(of: content.photo1)
        var bytes = try Data(contentsOf: corrupted)
        bytes[bytes.count - 10] ^= 0x55
        try bytes.write(to: corrupted)

        let shallow = try await sandbox.run(["verify"])
        #expect(shallow.status == 1, "\(shallow)")
        #expect(shallow.stdout.contains("2 problems (1 missingOriginal, 1 orphanFile):"), "\(shallow)")
        #expect(shallow.stdout.contains("missingOriginal: The original of asset \(content.video) is missing"))
        #expect(shallow.stdout.contains("orphanFile: '\(orphan.path)'"))

        let deep = try await sandbox.run(["verify", "--deep", "--json"])
        #expect(deep.status == 1, "\(deep)")
        let report = try deep.jsonObject()
        #expect(report["clean"] as? Bool == false)
        let issues = try #require(report["issues"] as? [[String: Any]])
        #expect(issues.compactMap { $0["kind"] as? String } == ["missingOriginal", "hashMismatch", "orphanFile"])
        #expect(issues[0]["assetId"] as? String == content.video && issues[0]["path"] as? String == missing.path)
        #expect(issues[1]["assetId"] as? String == content.photo1 && issues[1]["path"] as? String == corrupted.path)
        #expect(issues[2]["path"] as? String == orphan.path && issues[2]["assetId"] is NSNull)
        #expect(issues.allSatisfy { ($0["message"] as? String)?.isEmpty == false })
        #expect(FileManager.default.fileExists(atPath: orphan.path), "verify changes nothing")
    }

    @Test("status: counts, sizes, last change, inbox, rejected, claims; daemon lock held or not; health and exit code")
    func status() async throws {
        let sandbox = try Sandbox("status")
        let none = try await sandbox.run(["status", "--json"])
        #expect(none.status == 0, "no library yet is not a health problem: \(none)")
        let empty = try none.jsonObject()
        #expect(empty["libraryExists"] as? Bool == false && empty["lastChange"] is NSNull)
        #expect(!FileManager.default.fileExists(atPath: sandbox.library.path), "status creates nothing")

        let content = try sandbox.populateCatalog()
        let library = sandbox.openCatalog()
        try library.performChangesAndWait {
            let gif = try Asset.fetchAssets(withLocalIdentifiers: [content.gif], library: library)
            try AssetChangeRequest.deleteAssets(gif)
        }
        try sandbox.write("Inbox/Trip/new1.jpg", MediaFixtures.jpeg(seed: 11))
        try sandbox.write("Inbox/new2.jpg", MediaFixtures.jpeg(seed: 12))
        try sandbox.write("Inbox/.hidden.jpg", MediaFixtures.jpeg(seed: 13))
        try sandbox.write("Inbox/upload.jpg.part", MediaFixtures.jpeg(seed: 14))
        try sandbox.write("Rejected/Trip/notes.txt", MediaFixtures.text)
        try sandbox.write("Rejected/Trip/notes.txt.reason.json", Array("{\"code\":\"unsupportedType\"}".utf8))
        try sandbox.write("Rejected/Trip/.notes2.txt.reason.json.pending", Array("{}".utf8))
        _ = try await library.appendJournalEntries(kind: "claim", payloads: [Data("claimed".utf8)])

        // No daemon, one claim in flight: a health problem.
        let unhealthy = try await sandbox.run(["status", "--json"])
        #expect(unhealthy.status == 1, "\(unhealthy)")
        var report = try unhealthy.jsonObject()
        #expect(report["library"] as? String == sandbox.library.path)
        #expect(report["config"] as? String == sandbox.config.path)
        #expect(report["libraryExists"] as? Bool == true && report["writable"] as? Bool == true)
        #expect(
            report["assets"] as? [String: Int] == ["total": 3, "photos": 2, "gifs": 0, "videos": 1, "livePhotos": 0])
        #expect(report["favorites"] as? Int == 1 && report["recentlyDeleted"] as? Int == 1)
        #expect(report["albums"] as? Int == 2)
        let originals = try #require(report["originals"] as? [String: Int])
        #expect(originals["count"] == 4 && (originals["bytes"] ?? 0) > 0)
        #expect((report["databaseBytes"] as? Int ?? 0) > 0)
        let lastChange = try #require(report["lastChange"] as? [String: String])
        #expect(lastChange["token"] == (try library.currentChangeToken).stringValue)
        #expect((report["inbox"] as? [String: Any])?["waiting"] as? Int == 2, "dot files and .part are not counted")
        #expect((report["rejected"] as? [String: Any])?["files"] as? Int == 1, "reason files are not counted")
        #expect(report["claimsInFlight"] as? Int == 1)
        #expect((report["daemon"] as? [String: Any])?["running"] as? Bool == false)
        #expect(report["healthy"] as? Bool == false)
        let problems = try #require(report["problems"] as? [[String: Any]])
        #expect(problems.map { $0["code"] as? String } == ["claimsWaiting", "notWatching"], "\(problems)")
        #expect(problems.allSatisfy { ($0["message"] as? String)?.contains("start 'photodrop watch'") == true })
        #expect(problems.last?["count"] as? Int == 2)

        // A daemon holds the lock: it is reported with its pid, and the claim is its business.
        let lock = try WatchLockHolder(library: sandbox.library, pid: 4242)
        let healthy = try await sandbox.run(["status", "--json"])
        #expect(healthy.status == 0, "\(healthy)")
        report = try healthy.jsonObject()
        #expect((report["daemon"] as? [String: Any])?["running"] as? Bool == true)
        #expect((report["daemon"] as? [String: Any])?["pid"] as? Int == 4242)
        #expect(report["healthy"] as? Bool == true && (report["problems"] as? [Any])?.isEmpty == true)

        let text = try await sandbox.run(["status"])
        #expect(text.status == 0, "\(text)")
        for expected in [
            "Library           \(sandbox.library.path)", "Daemon            running (pid 4242)",
            "Assets            3: 2 photos, 0 GIFs, 1 video", "Favorites         1", "Recently deleted  1",
            "Albums            2", "Originals         4 files,", "Inbox             2 files waiting in",
            "Claimed           1 file in flight", "Rejected          1 file,", "Health            ok",
        ] {
            #expect(text.stdout.contains(expected), "missing '\(expected)' in\n\(text.stdout)")
        }
        #expect(text.stdout.contains("Last change       ") && text.stdout.contains("ago), token "))

        // The daemon is gone: its lock file stays behind, but nobody holds it.
        lock.release()
        let stopped = try await sandbox.run(["status", "--json"]).jsonObject()
        #expect((stopped["daemon"] as? [String: Any])?["running"] as? Bool == false)

        // A link in the inbox is never taken: a health problem naming it.
        try FileManager.default.createSymbolicLink(
            atPath: sandbox.inbox.appendingPathComponent("link.jpg").path, withDestinationPath: "/etc/hostname")
        try await library.removeJournalEntries(try library.journalEntries(kind: "claim").map(\.id))
        let linked = try await sandbox.run(["status"])
        #expect(linked.status == 1, "\(linked)")
        #expect(linked.stdout.contains("Health            2 problems"), "\(linked)")
        #expect(linked.stdout.contains("untakeableEntries: "), "\(linked)")
        #expect(linked.stdout.contains("link.jpg: symbolic links are not followed"), "\(linked)")
        #expect(linked.stdout.contains("notWatching: 2 files wait in the inbox, but no daemon runs"), "\(linked)")
    }

    @Test("status: a missing inbox is a health problem")
    func missingInbox() async throws {
        let sandbox = try Sandbox("status-inbox")
        try FileManager.default.removeItem(at: sandbox.inbox)
        let result = try await sandbox.run(["status"])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("\(sandbox.inbox.path) does not exist"), "\(result)")
    }

    @Test("status: a running daemon reports the folders it watches with inotify, and the limit")
    func watchBudget() async throws {
        let sandbox = try Sandbox("status-watches", settings: ["settleMilliseconds": 50])
        for album in ["Trips", "Family", "Family/2024"] {
            try FileManager.default.createDirectory(
                at: sandbox.inbox.appendingPathComponent(album), withIntermediateDirectories: true)
        }
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        var watches: [String: Any] = [:]
        // The inbox, Trips, Family and Family/2024 (not the daemon's own hidden .photodrop/).
        let reported = await eventually(timeout: 20) {
            let report = try? await sandbox.run(["status", "--json"]).jsonObject()
            watches = ((report?["daemon"] as? [String: Any])?["watches"] as? [String: Any]) ?? [:]
            return watches["folders"] as? Int == 4
        }
        #expect(reported, "\(watches)\n\(daemon.log.suffix(1500))")
        #expect(watches["polled"] as? Int == 0)
        let limit = try String(contentsOfFile: "/proc/sys/fs/inotify/max_user_watches", encoding: .utf8)
        #expect(watches["maxUserWatches"] as? Int == Int(limit.trimmingCharacters(in: .whitespacesAndNewlines)))
        let text = try await sandbox.run(["status"])
        #expect(text.stdout.contains("Watching          4 folders with inotify\n"), "\(text.stdout)")
        #expect(try await daemon.stop() == 0)
    }
}
