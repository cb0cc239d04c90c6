import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

@Suite(
    "photodrop backup and verify --library",
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd,
    .timeLimit(.minutes(10)))
struct BackupCommandTests {
    /// Every entry below `url` (hidden ones too) with its size and modification time: what "nothing was written" means.
    private func tree(_ url: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var entries: [String] = []
        while let name = enumerator.nextObject() as? String {
            var info = stat()
            lstat(url.appendingPathComponent(name).path, &info)
            entries.append("\(name) \(info.st_size) \(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)")
        }
        return entries.sorted()
    }

    private func status(_ url: URL) throws -> stat {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { throw HarnessError("lstat \(url.path): errno \(errno)") }
        return info
    }

    @Test("backup: a first copy, then an incremental one that hard-links unchanged originals; the library is untouched")
    func incremental() async throws {
        let sandbox = try Sandbox("backup")
        let content = try sandbox.populateCatalog()
        let destination = sandbox.root.appendingPathComponent("Backups")
        // What exists of the live catalog's files (the WAL may have been folded into the database already).
        let databaseFiles = ["library.sqlite", "library.sqlite-wal"].map { sandbox.library.appendingPathComponent($0) }
            .filter { FileManager.default.fileExists(atPath: $0.path) }
        let before = try databaseFiles.map { try Data(contentsOf: $0) }
        // SQLite's shared-memory index, and an empty WAL, are made by every reader of a WAL database (as by `status`).
        func libraryState() -> [String] {
            tree(sandbox.library).filter {
                !$0.hasPrefix("library.sqlite-shm") && !$0.hasPrefix("library.sqlite-wal 0 ")
            }
        }
        let libraryTree = libraryState()

        let first = try await sandbox.run(["backup", destination.path, "--json"])
        #expect(first.status == 0, "\(first)")
        let one = try first.jsonObject()
        #expect(one["complete"] as? Bool == true && one["previous"] is NSNull)
        #expect(one["assets"] as? Int == 4 && one["originals"] as? Int == 4)
        #expect(one["copied"] as? Int == 4 && one["linked"] as? Int == 0)
        let firstPath = try #require(one["backup"] as? String)
        let firstName = URL(fileURLWithPath: firstPath).lastPathComponent
        #expect(firstName.range(of: #"^\d{4}-\d\d-\d\dT\d\d-\d\d-\d\dZ$"#, options: .regularExpression) != nil)
        #expect((one["verification"] as? [String: Any])?["clean"] as? Bool == true)
        #expect(try databaseFiles.map { try Data(contentsOf: $0) } == before, "the live catalog is unchanged")
        #expect(libraryState() == libraryTree, "nothing in the library was written")
        for name in ["library.sqlite-wal", "library.sqlite-shm", "library.sqlite.partial"] {
            #expect(!FileManager.default.fileExists(atPath: firstPath + "/" + name), "\(name) in the backup")
        }
        for identifier in content.assets {
            let original = try sandbox.originalURL(of: identifier)
            let relative = String(original.path.dropFirst(sandbox.library.path.count + 1))
            #expect(try sha256(of: URL(fileURLWithPath: firstPath + "/" + relative)) == sha256(of: original))
        }

        let added = try sandbox.addPhotos(2)
        let second = try await sandbox.run(["backup", destination.path])
        #expect(second.status == 0, "\(second)")
        #expect(second.stdout.contains("Backed up 6 assets (6 originals, 0 thumbnails and previews) to"), "\(second)")
        #expect(second.stdout.contains("Linked 4 unchanged files ("), "\(second)")
        #expect(second.stdout.contains(") from \(firstPath); copied 2 files ("), "\(second)")
        #expect(second.stdout.contains("no problems"), "\(second)")
        let names = try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted()
        #expect(names.count == 2 && names[0] == firstName && !names.contains { $0.hasSuffix(".incomplete") })
        let secondPath = destination.appendingPathComponent(names[1])
        for identifier in content.assets {
            let relative = String(
                try sandbox.originalURL(of: identifier).path.dropFirst(sandbox.library.path.count + 1))
            let old = try status(URL(fileURLWithPath: firstPath + "/" + relative))
            let new = try status(secondPath.appendingPathComponent(relative))
            #expect(old.st_ino == new.st_ino && new.st_nlink == 2, "\(relative) is linked, not copied")
        }
        for identifier in added {
            let relative = String(
                try sandbox.originalURL(of: identifier).path.dropFirst(sandbox.library.path.count + 1))
            #expect(try status(secondPath.appendingPathComponent(relative)).st_nlink == 1, "\(relative) is new")
        }
    }

    @Test("verify --library: a clean backup passes without a write; a truncated, a deleted and a changed file fail")
    func damagedBackup() async throws {
        let sandbox = try Sandbox("backup-verify")
        let content = try sandbox.populateCatalog()
        let destination = sandbox.root.appendingPathComponent("Backups")
        #expect(try await sandbox.run(["backup", destination.path]).status == 0)
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: destination.path).first)
        let backup = destination.appendingPathComponent(name)
        let untouched = tree(destination)

        let clean = try await sandbox.run(["verify", "--library", destination.path])
        #expect(clean.status == 0, "\(clean)")
        #expect(clean.stdout.hasPrefix("Backup \(name), the newest of 1 complete backup in \(destination.path).\n"))
        #expect(clean.stdout.contains("Checked 4 assets, 4 originals and 4 files under \(backup.path)/originals."))
        let deepClean = try await sandbox.run(["verify", "--library", backup.path, "--deep", "--json"])
        #expect(deepClean.status == 0, "\(deepClean)")
        #expect(try deepClean.jsonObject()["library"] as? String == backup.path)
        #expect(tree(destination) == untouched, "verify --library wrote into the backup")

        func inBackup(_ identifier: String) throws -> URL {
            let original = try sandbox.originalURL(of: identifier)
            return backup.appendingPathComponent(String(original.path.dropFirst(sandbox.library.path.count + 1)))
        }
        let truncated = try inBackup(content.photo1)
        chmod(truncated.path, 0o640)
        #expect(truncate(truncated.path, 10) == 0)
        let deleted = try inBackup(content.video)
        try FileManager.default.removeItem(at: deleted)
        let changed = try inBackup(content.gif)
        chmod(changed.path, 0o640)
        var bytes = try Data(contentsOf: changed)
        bytes[bytes.count - 2] ^= 0x55
        try bytes.write(to: changed)
        let database = backup.appendingPathComponent("library.sqlite")
        let catalogBefore = try Data(contentsOf: database)

        let shallow = try await sandbox.run(["verify", "--library", destination.path, "--json"])
        #expect(shallow.status == 1, "\(shallow)")
        let issues = try #require(try shallow.jsonObject()["issues"] as? [[String: Any]])
        #expect(issues.compactMap { $0["kind"] as? String } == ["missingOriginal", "sizeMismatch"], "\(issues)")
        #expect(issues.compactMap { $0["path"] as? String } == [deleted.path, truncated.path])
        let deep = try await sandbox.run(["verify", "--library", destination.path, "--deep"])
        #expect(deep.status == 1, "\(deep)")
        #expect(deep.stdout.contains("3 problems (1 missingOriginal, 1 sizeMismatch, 1 hashMismatch):"), "\(deep)")
        #expect(deep.stdout.contains("hashMismatch: The original of asset \(content.gif) at '\(changed.path)'"))
        #expect(try Data(contentsOf: database) == catalogBefore, "a deep check records nothing in a backup")
        #expect(!FileManager.default.fileExists(atPath: database.path + "-wal"))

        // Nothing there, or nothing of photodrop's: a clear failure, and nothing is created.
        let missing = sandbox.root.appendingPathComponent("NoSuchBackup")
        let none = try await sandbox.run(["verify", "--library", missing.path])
        #expect(none.status == 1 && none.stderr.contains("'\(missing.path)' does not exist"), "\(none)")
        #expect(!FileManager.default.fileExists(atPath: missing.path))
        let stranger = try await sandbox.run(["verify", "--library", sandbox.inbox.path])
        #expect(stranger.status == 1 && stranger.stderr.contains("holds neither a library"), "\(stranger)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.inbox.appendingPathComponent("library.sqlite").path))
    }

    @Test("backup refuses a folder inside the library, the inbox or the rejected folder (exit 2, nothing made)")
    func refusedDestinations() async throws {
        let sandbox = try Sandbox("backup-refused")
        try sandbox.populateCatalog()
        for (folder, role) in [
            (sandbox.library, "library"), (sandbox.inbox, "inbox"), (sandbox.rejected, "rejected folder"),
        ] {
            let inside = folder.appendingPathComponent("backups")
            let result = try await sandbox.run(["backup", inside.path])
            #expect(result.status == 2, "\(result)")
            #expect(result.stderr.contains("is inside the \(role) '\(folder.path)'"), "\(result)")
            #expect(!FileManager.default.fileExists(atPath: inside.path))
        }
        let itself = try await sandbox.run(["backup", sandbox.library.path])
        #expect(itself.status == 2, "\(itself)")
        let noLibrary = try Sandbox("backup-nolibrary")
        let empty = try await noLibrary.run(["backup", noLibrary.root.appendingPathComponent("B").path])
        #expect(empty.status == 1 && empty.stderr.contains("there is no library yet"), "\(empty)")
        #expect(!FileManager.default.fileExists(atPath: noLibrary.library.path))
    }

    @Test("backup while watch ingests a steady stream, then a restore: every asset of the backup is intact")
    func backupWhileIngesting() async throws {
        let (sandbox, daemon) = try await watchingSandbox("backup-live", settings: ["settleMilliseconds": 100])
        let album = try sandbox.inboxAlbum("Stream")
        let staging = try sandbox.staging("stream")
        let feeding = FeedControl()
        // A steady stream: one file renamed into the inbox every 25 ms until told to stop.
        let feeder = Task.detached {
            var index = 0
            while !feeding.stopped {
                let files = try TinyJPEG.write(count: 1, startingAt: index, into: staging)
                try sandbox.move(files, into: album)
                index += 1
                try await Task.sleep(for: .milliseconds(25))
            }
            return index
        }
        _ = await daemon.waitForOutcomes(20)
        let destination = sandbox.root.appendingPathComponent("Backups")
        let result = try await sandbox.run(["backup", destination.path, "--json"])
        let storedAtBackupEnd = daemon.outcomes.count
        await daemon.waitForOutcomes(storedAtBackupEnd + 15)
        feeding.stop()
        let dropped = try await feeder.value
        let outcomes = await daemon.waitForOutcomes(dropped)
        #expect(try await daemon.stop() == 0, "\(daemon.log.suffix(2000))")
        #expect(outcomes.count == dropped && outcomes.allSatisfy { $0["outcome"] as? String == "photo" })

        #expect(result.status == 0, "\(result)\n\(daemon.log.suffix(3000))")
        let report = try result.jsonObject()
        #expect(report["complete"] as? Bool == true)
        let backedUp = try #require(report["assets"] as? Int)
        #expect(
            backedUp >= 20 && backedUp < dropped,
            "the backup caught the stream in the middle: \(backedUp) of \(dropped)")
        let backup = URL(fileURLWithPath: try #require(report["backup"] as? String))
        let check = try await sandbox.run(["verify", "--library", destination.path, "--deep"])
        #expect(check.status == 0, "\(check)")

        // Restore: the backup folder becomes the library of a new place; verify and list it there.
        let restored = try Sandbox("backup-restored")
        try await restored.tool("/bin/cp", ["-a", backup.path, restored.library.path])
        let verify = try await restored.run(["verify", "--deep"])
        #expect(verify.status == 0, "\(verify)")
        #expect(verify.stdout.contains("Checked \(backedUp) assets, \(backedUp) originals"), "\(verify)")
        let assets = try await restored.run(["assets", "--json"])
        #expect(assets.status == 0, "\(assets)")
        let listed = try assets.jsonLines()
        #expect(listed.count == backedUp)
        let live = try await sandbox.run(["assets", "--json"]).jsonLines()
        #expect(live.count == dropped)
        let liveByID = Dictionary(uniqueKeysWithValues: live.map { ($0["id"] as? String ?? "", $0) })
        for asset in listed {
            let path = try #require(asset["path"] as? String)
            #expect(path.hasPrefix(restored.library.path + "/originals/"), "\(path)")
            #expect(try sha256(of: URL(fileURLWithPath: path)) == asset["sha256"] as? String, "\(path)")
            let id = try #require(asset["id"] as? String)
            #expect(liveByID[id]?["sha256"] as? String == asset["sha256"] as? String, "\(id) is the live asset")
            #expect(asset["albums"] as? [String] == ["Stream"])
        }
        // The restored library takes new files like any other.
        let more = try restored.write("Sources/after-restore.jpg", TinyJPEG.bytes(100_000))
        let imported = try await restored.run(["import", more.path, "--no-derivatives"])
        #expect(imported.status == 0, "\(imported)")
        #expect(try await restored.run(["verify"]).status == 0)
    }
}

/// A stop flag shared with the feeding task.
private final class FeedControl: @unchecked Sendable {
    // @unchecked: the one Bool is guarded by the lock.
    private let lock = NSLock()
    private var isStopped = false
    var stopped: Bool { lock.withLock { isStopped } }
    func stop() { lock.withLock { isStopped = true } }
}
