import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// The data-loss issue's cases 2 and 4, and a damaged database at start: photodrop never writes into a library that is
/// not where the configuration says it is, never starts a fresh library in the mount point of an unmounted disk, and
/// never lets its folders overlap.
@Suite("the library's place: overlaps, a library deleted or replaced, an empty folder, a damaged database",
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct LibraryLocationTests {
    @Test(
        "overlapping folders and invalid globs are refused with exit status 2, naming the keys",
        arguments: [
            (#"{"library": "L", "inbox": "L/originals"}"#, ["\"inbox\"", "\"library\""]),
            (#"{"library": "L", "rejected": "L/Rejected"}"#, ["\"rejected\"", "\"library\""]),
            (#"{"ignore": ["["]}"#, ["ignore[0]", "\"[\""]),
        ])
    func refusedConfig(_ settingsJSON: String, _ named: [String]) async throws {
        let settings = try #require(try JSONSerialization.jsonObject(with: Data(settingsJSON.utf8)) as? [String: Any])
        let sandbox = try Sandbox("config-refused", settings: settings)
        for command in [["watch"], ["import", sandbox.inbox.path], ["status"]] {
            let result = try await sandbox.run(command, timeout: 30)
            #expect(result.status == 2, "\(command): \(result)")
            for key in named { #expect(result.stderr.contains(key), "\(command): \(result.stderr)") }
            #expect(result.stderr.contains("config.json"), "the file is named: \(result.stderr)")
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("L/library.sqlite").path))
    }

    @Test("an existing folder without a library is refused by watch and import; init creates one on purpose")
    func emptyFolderIsRefused() async throws {
        let sandbox = try Sandbox("empty-mount")
        try FileManager.default.createDirectory(at: sandbox.library, withIntermediateDirectories: true)
        let drop = try TinyJPEG.write(count: 2, into: sandbox.inboxAlbum("Trip"))
        let watch = try await sandbox.run(["watch"], timeout: 30)
        #expect(watch.status != 0, "\(watch)")
        #expect(watch.stderr.contains("photodrop init") && watch.stderr.contains("not mounted"), "\(watch.stderr)")
        let imported = try await sandbox.run(["import", drop[0].path, "--move"], timeout: 30)
        #expect(imported.status == 2, "\(imported)")
        #expect(drop.allSatisfy { FileManager.default.fileExists(atPath: $0.path) }, "the inbox is untouched")
        #expect(try FileManager.default.contentsOfDirectory(atPath: sandbox.library.path).isEmpty)

        let initialized = try await sandbox.run(["init"])
        #expect(initialized.status == 0 && initialized.stdout.contains("Created a photodrop library"), "\(initialized)")
        let again = try await sandbox.run(["init"])
        #expect(again.status == 0 && again.stdout.contains("already holds"), "\(again)")
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        #expect(await daemon.waitForOutcomes(2).count == 2)
        #expect(try await daemon.stop() == 0)
        var info = stat()
        #expect(stat(sandbox.library.path, &info) == 0)
        #expect(stat(sandbox.library.appendingPathComponent("library.sqlite").path, &info) == 0 && info.st_mode & 0o777 == 0o640)
    }

    @Test("a first run creates the library with folders 0750 and database 0640")
    func firstRunCreates() async throws {
        let (sandbox, daemon) = try await watchingSandbox("first-run")
        #expect(try await daemon.stop() == 0)
        for (path, mode) in [
            (sandbox.library.path, 0o750), (sandbox.library.appendingPathComponent("originals").path, 0o750),
            (sandbox.library.appendingPathComponent("library.sqlite").path, 0o640),
            (sandbox.inbox.appendingPathComponent(".photodrop/claimed").path, 0o700),
        ] {
            var info = stat()
            #expect(stat(path, &info) == 0 && Int(info.st_mode & 0o777) == mode, "\(path): \(String(info.st_mode & 0o777, radix: 8))")
        }
    }

    /// How the library disappears under a running daemon.
    enum Disappearance: String, CaseIterable, Sendable {
        case deleted
        /// Moved away and an empty folder put in its place (as an unmount would leave it).
        case replaced
    }

    @Test("the library deleted or replaced while watch runs: it stops, and every drop stays in the inbox",
        arguments: Disappearance.allCases)
    func libraryDisappears(_ how: Disappearance) async throws {
        let (sandbox, daemon) = try await watchingSandbox("library-gone", settings: ["settleMilliseconds": 50])
        try TinyJPEG.write(count: 5, into: sandbox.inboxAlbum("Before"))
        #expect(await daemon.waitForOutcomes(5).count == 5)
        switch how {
        case .deleted:
            try FileManager.default.removeItem(at: sandbox.library)
        case .replaced:
            try FileManager.default.moveItem(at: sandbox.library, to: sandbox.root.appendingPathComponent("Library.old"))
            try FileManager.default.createDirectory(at: sandbox.library, withIntermediateDirectories: false)
        }
        // A burst after the loss: none of it may be thrown away as a "duplicate", none may vanish.
        let drops = try TinyJPEG.write(count: 40, startingAt: 100, into: sandbox.inboxAlbum("After"))
        try Data(TinyJPEG.bytes(0)).write(to: sandbox.inboxAlbum("After").appendingPathComponent("same-as-before.jpg"))
        let stopped = await eventually(timeout: 30) { !daemon.isRunning }
        #expect(stopped, "the daemon stops by itself\n\(daemon.log.suffix(3000))")
        if !stopped { daemon.kill9() }
        #expect(daemon.process.terminationStatus != 0)
        #expect(daemon.log.contains("is no longer there") || daemon.log.contains("watch lock"), "\(daemon.log.suffix(2000))")
        let left = Set(sandbox.inboxFiles)
        for drop in drops { #expect(left.contains("After/" + drop.lastPathComponent), "\(drop.lastPathComponent) is gone") }
        #expect(left.contains("After/same-as-before.jpg"))
        #expect(sandbox.stagedFiles.isEmpty, "claimed files went back: \(sandbox.stagedFiles)")
        if how == .replaced {
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: sandbox.library.path).isEmpty,
                "nothing is written into the folder that took the library's place")
        }
        // A restart does not make a new library in the empty folder either.
        if how == .replaced {
            let again = try await sandbox.run(["watch"], timeout: 30)
            #expect(again.status != 0 && again.stderr.contains("photodrop init"), "\(again)")
        }
    }

    @Test("a damaged library.sqlite at start: a clear error naming the file, never a silent new library",
        arguments: ["notADatabase", "damagedPage"])
    func damagedDatabase(_ damage: String) async throws {
        let sandbox = try Sandbox("damaged-db")
        let photos = try TinyJPEG.write(count: 30, into: sandbox.staging("photos"))
        #expect(try await sandbox.run(["import", photos[0].deletingLastPathComponent().path]).status == 0)
        let database = sandbox.library.appendingPathComponent("library.sqlite")
        if damage == "notADatabase" {
            try Data(repeating: 0x42, count: 8192).write(to: database)
        } else {
            // Scribble over an index's root page: the file still opens, quick_check finds the damage.
            let check = try Database(path: database.path, mode: .readOnly)
            let page = try #require(try check.int64("SELECT rootpage FROM sqlite_master WHERE name = 'assets_by_added_date'"))
            let size = try #require(try check.int64("PRAGMA page_size"))
            let handle = try FileHandle(forWritingTo: database)
            try handle.seek(toOffset: UInt64((page - 1) * size + 8))
            try handle.write(contentsOf: Data(repeating: 0xEE, count: 200))
            try handle.close()
        }
        let before = try Data(contentsOf: database)
        let drop = try TinyJPEG.write(count: 1, startingAt: 500, into: sandbox.inboxAlbum("Trip"))
        let watch = try await sandbox.run(["watch"], timeout: 30)
        #expect(watch.status != 0, "\(watch)")
        #expect(watch.stderr.contains("library.sqlite"), "names the file: \(watch.stderr)")
        #expect(watch.stderr.contains("backup"), "says what to do: \(watch.stderr)")
        #expect(try Data(contentsOf: database) == before, "the damaged file is left exactly as it was")
        #expect(FileManager.default.fileExists(atPath: drop[0].path), "nothing was taken from the inbox")
    }

    /// A power cut in the middle of a WAL write leaves a partial frame at the end of the WAL: the frames of a
    /// transaction whose commit never returned (synchronous=FULL syncs before it does). SQLite ignores it; photodrop's
    /// intents undo the files of that block. (Cutting into frames that were already synced is what a file system that
    /// lies about fsync does; the README says what photodrop can and cannot promise then.)
    @Test("a torn WAL tail after kill -9 is ordinary recovery: nothing lost, verify clean")
    func tornWAL() async throws {
        let (sandbox, daemon) = try await watchingSandbox("torn-wal", settings: ["settleMilliseconds": 0])
        let source = try sandbox.staging("burst")
        let photos = try TinyJPEG.write(count: 300, into: source)
        let contents = Set(try photos.map { try sha256(of: $0) })
        try sandbox.move(photos, into: try sandbox.inboxAlbum("Burst"))
        _ = await daemon.waitForOutcomes(150, timeout: 60)
        daemon.kill9()
        let wal = sandbox.library.appendingPathComponent("library.sqlite-wal")
        var info = stat()
        #expect(stat(wal.path, &info) == 0 && info.st_size > 4096, "the WAL holds frames")
        // A torn frame at the end: a frame header that promises a page, and only part of the page.
        let handle = try FileHandle(forWritingTo: wal)
        try handle.seekToEnd()
        var torn = [UInt8](repeating: 0, count: 24 + 1500)
        for index in torn.indices { torn[index] = UInt8(truncatingIfNeeded: index &* 131 &+ 7) }
        try handle.write(contentsOf: Data(torn))
        try handle.close()
        let final = try WatchDaemon(sandbox)
        let drained = await eventually(timeout: 60) { sandbox.inboxFiles.isEmpty && sandbox.stagedFiles.isEmpty }
        await pause(300_000)
        #expect(try await final.stop() == 0)
        #expect(drained, "\(sandbox.inboxFiles.prefix(5)) \(final.log.suffix(2000))")
        let library = try LibraryCheck(sandbox)
        #expect(Set(try library.storedContents().keys) == contents)
        try await library.expectConsistent()
    }
}
