import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// `photodrop watch` as a child process, fed by real clients and real file operations.
@Suite("watch: files arriving by real clients", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct WatchClientTests {
    @Test("cp, mv and tar -x each deliver every file into its album, and the inbox is left empty")
    func clients() async throws {
        let sandbox = try Sandbox("clients")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let source = try sandbox.staging("src")
        try TinyJPEG.write(count: 4, startingAt: 0, into: source.appendingPathComponent("cp"))
        try TinyJPEG.write(count: 4, startingAt: 10, into: source.appendingPathComponent("mv"))
        try TinyJPEG.write(count: 4, startingAt: 30, into: source.appendingPathComponent("TAR"))
        let expected = 12

        try FileManager.default.createDirectory(
            at: sandbox.inbox.appendingPathComponent("CP"), withIntermediateDirectories: true)
        for index in 0..<4 {
            try await sandbox.tool("/bin/cp", [source.path + "/cp/IMG_\(index).jpg", sandbox.inbox.path + "/CP/"])
        }
        try FileManager.default.createDirectory(
            at: sandbox.inbox.appendingPathComponent("MV"), withIntermediateDirectories: true)
        for index in 10..<14 {
            try await sandbox.tool("/bin/mv", [source.path + "/mv/IMG_\(index).jpg", sandbox.inbox.path + "/MV/"])
        }
        try await sandbox.tool("/bin/tar", ["-cf", "photos.tar", "-C", source.path, "TAR"])
        try await sandbox.tool("/bin/tar", ["-xf", "photos.tar", "-C", sandbox.inbox.path])

        let outcomes = await daemon.waitForOutcomes(expected)
        #expect(outcomes.count == expected, "\(daemon.log)")
        #expect(outcomes.allSatisfy { $0["outcome"] as? String == "photo" }, "\(outcomes)")
        #expect(try await daemon.stop() == 0)
        let library = try LibraryCheck(sandbox)
        #expect(try library.albums() == ["CP": 4, "MV": 4, "TAR": 4])
        #expect(try library.assetCount == expected)
        #expect(sandbox.inboxFiles.isEmpty, "\(sandbox.inboxFiles)")
        #expect(try library.journalCount == 0)
        try await library.expectConsistent()
    }

    @Test(
        "rsync (temp .name.XXXXXX, then a rename) delivers every file complete into its album",
        .requires(toolExists("/usr/bin/rsync"), "rsync is not installed here (.ci/run installs it)"))
    func rsyncClient() async throws {
        let sandbox = try Sandbox("rsync")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let source = try sandbox.staging("src")
        try TinyJPEG.write(count: 6, startingAt: 20, into: source.appendingPathComponent("rsync"))
        try await sandbox.tool("/usr/bin/rsync", ["-a", source.path + "/rsync/", sandbox.inbox.path + "/RSYNC/"])
        let outcomes = await daemon.waitForOutcomes(6)
        #expect(outcomes.count == 6, "\(daemon.log)")
        #expect(outcomes.allSatisfy { $0["outcome"] as? String == "photo" }, "\(outcomes)")
        #expect(try await daemon.stop() == 0)
        let library = try LibraryCheck(sandbox)
        #expect(try library.albums() == ["RSYNC": 6])
        #expect(sandbox.inboxFiles.isEmpty, "\(sandbox.inboxFiles)")
        #expect(try library.journalCount == 0)
        try await library.expectConsistent()
    }

    @Test(
        "slow writers (one holding the file open and quiet for longer than the settle time, one appending in open/close cycles) are never taken half-written"
    )
    func slowWriters() async throws {
        // settle 1 s: longer than the 200 ms gaps of the open/close writer, as the default 2 s is in production.
        let sandbox = try Sandbox("slow", settings: ["settleMilliseconds": 1000, "incompleteGraceSeconds": 30])
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let heldBytes = TinyJPEG.bytes(1, scanBytes: 5000)
        let cycledBytes = TinyJPEG.bytes(2, scanBytes: 5000)
        let album = sandbox.inbox.appendingPathComponent("Slow")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        let held = album.appendingPathComponent("held.jpg")
        let cycled = album.appendingPathComponent("cycled.jpg")
        _ = FileManager.default.createFile(atPath: held.path, contents: nil)
        let handle = try FileHandle(forWritingTo: held)
        let chunk = (heldBytes.count + 9) / 10
        // The open/close writer writes its 10 chunks with 200 ms gaps; the held file gets its first 5 meanwhile, then
        // stays open and quiet for 1.6 s, longer than the settle time (only the check for an open writer keeps it
        // from being taken half-written then), then gets the rest with 200 ms gaps.
        func writeHeld(_ index: Int) throws {
            try handle.write(contentsOf: Data(heldBytes[(index * chunk)..<min(heldBytes.count, (index + 1) * chunk)]))
        }
        for index in 0..<10 {
            if index < 5 { try writeHeld(index) }
            let cycledRange = (index * chunk)..<min(cycledBytes.count, (index + 1) * chunk)
            let appender = try FileHandle(
                forWritingTo: {
                    if !FileManager.default.fileExists(atPath: cycled.path) {
                        _ = FileManager.default.createFile(atPath: cycled.path, contents: nil)
                    }
                    return cycled
                }())
            try appender.seekToEnd()
            try appender.write(contentsOf: Data(cycledBytes[cycledRange]))
            try appender.close()
            await pause(200_000)
        }
        let quietSince = Date()
        await pause(1_600_000)
        #expect(Date().timeIntervalSince(quietSince) > 1.0, "the quiet period was not longer than the settle time")
        #expect(
            !daemon.outcomes.contains { ($0["path"] as? String)?.hasSuffix("held.jpg") == true },
            "the held file was taken while its writer still had it open\n\(daemon.log)")
        for index in 5..<10 {
            try writeHeld(index)
            await pause(200_000)
        }
        try handle.close()
        let outcomes = await daemon.waitForOutcomes(2, timeout: 30)
        #expect(try await daemon.stop() == 0)
        #expect(outcomes.count == 2, "\(daemon.log)")
        #expect(outcomes.allSatisfy { $0["outcome"] as? String == "photo" }, "\(daemon.log)")
        let stored = try LibraryCheck(sandbox).storedContents()
        #expect(stored[sha256Hex(Data(heldBytes))] == 1, "the held file was not stored complete")
        #expect(stored[sha256Hex(Data(cycledBytes))] == 1, "the appended file was not stored complete")
        #expect(stored.count == 2)
        #expect(sandbox.files(under: sandbox.rejected).isEmpty)
    }

    @Test("temp names (dotfiles, rsync's .name.XXXXXX, *.part, *.crdownload, *.tmp, *~) are ignored until renamed")
    func tempNames() async throws {
        let sandbox = try Sandbox("temp")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = sandbox.inbox.appendingPathComponent("Temp")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        let names = [
            ".hidden.jpg", ".IMG_2.jpg.Ab3dEf", "IMG_3.jpg.part", "IMG_4.jpg.crdownload", "IMG_5.tmp", "IMG_6.jpg~",
        ]
        for (index, name) in names.enumerated() {
            try Data(TinyJPEG.bytes(100 + index)).write(to: album.appendingPathComponent(name))
        }
        await pause(1_200_000)  // six settle periods
        #expect(daemon.outcomes.isEmpty, "\(daemon.log)")
        #expect(try LibraryCheck(sandbox).assetCount == 0)
        for (index, name) in names.enumerated() {
            try FileManager.default.moveItem(
                at: album.appendingPathComponent(name), to: album.appendingPathComponent("final-\(index).jpg"))
        }
        let outcomes = await daemon.waitForOutcomes(names.count)
        #expect(outcomes.count == names.count, "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        #expect(try LibraryCheck(sandbox).albums() == ["Temp": names.count])
    }

    @Test("nested folders belong to their first-level folder's album; files in the inbox root join no album")
    func nestedFolders() async throws {
        let sandbox = try Sandbox("nested")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let source = try sandbox.staging("tree")
        try TinyJPEG.write(count: 2, startingAt: 0, into: source.appendingPathComponent("Trip/2024/March"))
        try TinyJPEG.write(count: 1, startingAt: 5, into: source.appendingPathComponent("Trip/2024"))
        try TinyJPEG.write(count: 1, startingAt: 7, into: source.appendingPathComponent("Trip"))
        try FileManager.default.moveItem(
            at: source.appendingPathComponent("Trip"), to: sandbox.inbox.appendingPathComponent("Trip"))
        try Data(TinyJPEG.bytes(9)).write(to: sandbox.inbox.appendingPathComponent("loose.jpg"))
        let outcomes = await daemon.waitForOutcomes(5)
        #expect(outcomes.count == 5, "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        let library = try LibraryCheck(sandbox)
        #expect(try library.albums() == ["Trip": 4])
        #expect(try library.assetCount == 5)
        #expect(sandbox.inboxFiles.isEmpty, "\(sandbox.inboxFiles)")
    }

    @Test("the same folder name in NFD and NFC is one album, titled in NFC")
    func unicodeNormalization() async throws {
        let sandbox = try Sandbox("nfc")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let decomposed = "Cafe\u{301}"
        let composed = "Caf\u{E9}"
        try TinyJPEG.write(count: 3, startingAt: 0, into: sandbox.inbox.appendingPathComponent(decomposed))
        try TinyJPEG.write(count: 3, startingAt: 10, into: sandbox.inbox.appendingPathComponent(composed))
        let outcomes = await daemon.waitForOutcomes(6)
        #expect(outcomes.count == 6, "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        let albums = try LibraryCheck(sandbox).albums()
        #expect(albums.count == 1, "\(albums)")
        #expect(albums.keys.first.map { Array($0.unicodeScalars) } == Array(composed.unicodeScalars))
        #expect(albums.values.first == 6)
    }

    @Test("a duplicate dropped into a second album joins that album; the dropped copy is removed")
    func duplicateIntoSecondAlbum() async throws {
        let sandbox = try Sandbox("dup")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let bytes = Data(TinyJPEG.bytes(42))
        try FileManager.default.createDirectory(
            at: sandbox.inbox.appendingPathComponent("First"), withIntermediateDirectories: true)
        try bytes.write(to: sandbox.inbox.appendingPathComponent("First/a.jpg"))
        #expect(await daemon.waitForOutcomes(1).count == 1)
        try FileManager.default.createDirectory(
            at: sandbox.inbox.appendingPathComponent("Second"), withIntermediateDirectories: true)
        try bytes.write(to: sandbox.inbox.appendingPathComponent("Second/copy of a.jpg"))
        let outcomes = await daemon.waitForOutcomes(2)
        #expect(try await daemon.stop() == 0)
        #expect(outcomes.map { $0["outcome"] as? String } == ["photo", "duplicate"], "\(daemon.log)")
        #expect(outcomes.count == 2 && outcomes[0]["asset"] as? String == outcomes[1]["asset"] as? String)
        let library = try LibraryCheck(sandbox)
        #expect(try library.albums() == ["First": 1, "Second": 1])
        #expect(try library.assetCount == 1)
        #expect(sandbox.inboxFiles.isEmpty, "\(sandbox.inboxFiles)")
        try await library.expectConsistent()
    }

    @Test("a removed and recreated inbox, and a removed and recreated album folder, keep working")
    func recreatedInbox() async throws {
        let sandbox = try Sandbox("recreate")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        try TinyJPEG.write(count: 1, startingAt: 0, into: sandbox.inbox.appendingPathComponent("Album"))
        #expect(await daemon.waitForOutcomes(1).count == 1)
        try FileManager.default.removeItem(at: sandbox.inbox.appendingPathComponent("Album"))
        try TinyJPEG.write(count: 1, startingAt: 1, into: sandbox.inbox.appendingPathComponent("Album"))
        #expect(await daemon.waitForOutcomes(2).count == 2, "\(daemon.log)")
        try FileManager.default.removeItem(at: sandbox.inbox)
        await pause(300_000)
        try TinyJPEG.write(count: 2, startingAt: 2, into: sandbox.inbox.appendingPathComponent("Album"))
        let outcomes = await daemon.waitForOutcomes(4)
        #expect(try await daemon.stop() == 0)
        #expect(outcomes.count == 4, "\(daemon.log)")
        #expect(try LibraryCheck(sandbox).albums() == ["Album": 4])
        #expect(sandbox.inboxFiles.isEmpty)
    }

    @Test("a second watch on the same library refuses with a clear message; the lock file holds the pid")
    func secondDaemonRefuses() async throws {
        let sandbox = try Sandbox("lock")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let second = try await sandbox.run(["watch"], timeout: 30)
        #expect(second.status == 1, "\(second)")
        #expect(second.stderr.contains("already running") && second.stderr.contains("\(daemon.pid)"), "\(second)")
        let lock = try String(contentsOf: sandbox.library.appendingPathComponent("watch.lock"), encoding: .utf8)
        #expect(lock.trimmingCharacters(in: .whitespacesAndNewlines) == "\(daemon.pid)")
        #expect(try await daemon.stop() == 0)
    }
}
