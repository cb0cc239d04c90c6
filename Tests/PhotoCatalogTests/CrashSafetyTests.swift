import Foundation
import PhotodropSystem
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Crash safety", CatalogGate.one)
struct CrashSafetyTests {
    /// Checks the library against the sources it was fed: every source is exactly once either a stored asset (and
    /// gone from the source folder) or still at its source with its bytes; no stray files, no intents left.
    static func checkConsistent(
        _ library: PhotoLibrary, sources: URL, contents: [String: Data], context: String
    ) throws {
        #expect(try rawCount(library, "SELECT count(*) FROM placement_intents") == 0, "\(context): intents left")
        let database = try Database(path: library.databasePath, mode: .readOnly)
        #expect(try database.firstRow("PRAGMA integrity_check") { $0.string(0) } == "ok", "\(context)")
        let rows = try database.rows("SELECT sha256, path FROM resources") { ($0.string(0), $0.string(1)) }
        let stored = Dictionary(rows, uniquingKeysWith: { first, _ in first })
        let onDisk = Set(TestFiles.originals(library).map { "originals/" + $0 })
        #expect(onDisk == Set(stored.values), "\(context): orphan or missing originals")
        for (sha, path) in stored {
            let bytes = try Data(contentsOf: library.url.appendingPathComponent(path))
            #expect(sha256Hex(bytes) == sha, "\(context): \(path) does not hold its content")
        }
        for (name, bytes) in contents {
            let source = sources.appendingPathComponent(name)
            let isStored = stored[sha256Hex(bytes)] != nil
            let atSource = FileManager.default.fileExists(atPath: source.path)
            #expect(isStored != atSource, "\(context): \(name) stored \(isStored), at source \(atSource)")
            if atSource { #expect(try Data(contentsOf: source) == bytes, "\(context): \(name) changed") }
        }
        let recovered = library.url.appendingPathComponent("recovered")
        #expect(TestFiles.tree(recovered).isEmpty, "\(context): files had to be recovered")
    }

    @Test("kill -9 of an importing process at random moments: recovery leaves every file exactly once")
    func killNine() async throws {
        guard let helper = Helper.executable else { throw Helper.HelperMissing() }
        var killedWithWorkInFlight = 0
        for round in 0..<8 {
            let folder = try TemporaryDirectory()
            let sources = folder.appending("inbox")
            try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
            var contents: [String: Data] = [:]
            for index in 0..<400 {
                let bytes = TestFiles.distinctBytes(size: 200 + index)
                contents["f\(index).jpg"] = bytes
                try bytes.write(to: sources.appendingPathComponent("f\(index).jpg"))
            }
            let libraryURL = folder.appending("Library")
            let process = Process()
            process.executableURL = helper
            process.arguments = [
                "import", "--library", libraryURL.path, "--source", sources.path, "--batch", "5", "--move",
            ]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            // Kill it while it is busy: after its first committed block, at a random moment within the next blocks.
            let reader = output.fileHandleForReading
            while let byte = try reader.read(upToCount: 1), byte != Data("\n".utf8), !byte.isEmpty {}
            try await Task.sleep(nanoseconds: UInt64.random(in: 0...20_000_000))
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            let killed = process.terminationReason == .uncaughtSignal

            // The next writer reconciles what the dead one left, then the import can simply run again.
            let library = PhotoLibrary(url: libraryURL)
            var pending: Int64 = 0
            var storedAtKill: Int64 = 0
            if FileManager.default.fileExists(atPath: library.databasePath) {
                pending = (try? rawCount(library, "SELECT count(*) FROM placement_intents")) ?? 0
                storedAtKill = (try? rawCount(library, "SELECT count(*) FROM assets")) ?? 0
                try await library.recoverInterruptedChanges()
                try Self.checkConsistent(
                    library, sources: sources, contents: contents, context: "round \(round), after kill")
            }
            let rerun = try Helper.run([
                "import", "--library", libraryURL.path, "--source", sources.path, "--batch", "50", "--move",
            ])
            #expect(rerun.status == 0, "\(rerun.stderr)")
            try Self.checkConsistent(library, sources: sources, contents: contents, context: "round \(round), finished")
            #expect(try Asset.fetchAssets(with: nil, library: library).count == contents.count)
            if killed && storedAtKill < contents.count { killedWithWorkInFlight += 1 }
            print(
                "crash round \(round): killed \(killed), \(storedAtKill) assets committed, \(pending) placements in flight"
            )
        }
        #expect(killedWithWorkInFlight > 0, "no round was killed while importing; the test did not test anything")
    }

    @Test(
        "recovery undoes each kind of interrupted placement, and leaves a live writer's intents alone",
        arguments: [false, true])
    func reconcileCases(inIntentLog: Bool) async throws {
        let folder = try TemporaryDirectory()
        let library = folder.library()
        let keep = try folder.write(TestFiles.distinctBytes(size: 64), to: "committed.jpg")
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: keep)
        }
        let committedPath = try #require(
            Asset.fetchAssets(with: nil, library: library).firstObject?.primaryResource?.relativePath)

        let inbox = folder.appending("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        // The writer makes `originals/xx` folders only as it uses them.
        try FileManager.default.createDirectory(
            at: library.originalsURL.appendingPathComponent("0a"), withIntermediateDirectories: true)
        func original(_ name: String) -> URL { library.originalsURL.appendingPathComponent("0a/\(name)") }
        func source(_ name: String) -> URL { inbox.appendingPathComponent(name) }
        // (a) renamed into the library: the placed file is the source inode.
        let renamedBytes = TestFiles.distinctBytes(size: 10)
        try renamedBytes.write(to: original("a.jpg"))
        // (b) copied, original still there.
        try TestFiles.distinctBytes(size: 11).write(to: source("b.jpg"))
        try TestFiles.distinctBytes(size: 11).write(to: original("b.jpg"))
        // (c) copied, original gone since: the copy is all there is.
        let onlyCopy = TestFiles.distinctBytes(size: 12)
        try onlyCopy.write(to: original("c.jpg"))
        // (e) a purge whose file was not removed yet.
        try TestFiles.distinctBytes(size: 13).write(to: original("e.jpg"))
        // (f) renamed, but something new took the source path since.
        let displaced = TestFiles.distinctBytes(size: 14)
        try displaced.write(to: original("f.jpg"))
        try TestFiles.distinctBytes(size: 15).write(to: source("f.jpg"))
        // (g) a half-written copy under its temporary name.
        try TestFiles.distinctBytes(size: 16).write(
            to: URL(fileURLWithPath: PlacementIntent.temporaryPath(for: original("g.jpg").path)))

        let database = try Database(path: library.databasePath, mode: .readWrite(create: false))
        // The dead session's intents as rows (older photodrop, or kept after a failed undo) or in its intent log.
        var logged: [IntentLog.Entry] = []
        func intent(
            _ session: String, _ action: Int, _ method: Int, _ source: URL?, _ inode: UInt64?, _ destination: String
        ) throws {
            if inIntentLog && session == "dead-session" {
                logged.append(
                    IntentLog.Entry(
                        action: try #require(PlacementIntent.Action(rawValue: action)),
                        method: try #require(PlacementIntent.Method(rawValue: method)), source: source?.path,
                        inode: inode, destination: destination))
                return
            }
            try database.run(
                """
                INSERT INTO placement_intents(session, batch, action, method, source, source_inode, destination, created_at)
                VALUES (?, 1, ?, ?, ?, ?, ?, 0)
                """,
                [
                    .text(session), .integer(Int64(action)), .integer(Int64(method)), .optional(source?.path),
                    inode.map { .integer(Int64($0)) } ?? .null, .text(destination),
                ])
        }
        let dead = "dead-session"
        try intent(dead, 0, 0, source("a.jpg"), TestFiles.inode(original("a.jpg")), "originals/0a/a.jpg")
        try intent(dead, 0, 1, source("b.jpg"), TestFiles.inode(source("b.jpg")), "originals/0a/b.jpg")
        try intent(dead, 0, 0, source("c.jpg"), 999_999_999, "originals/0a/c.jpg")
        try intent(dead, 0, 0, source("d.jpg"), 1, committedPath)
        try intent(dead, 1, 1, nil, nil, "originals/0a/e.jpg")
        try intent(dead, 0, 0, source("f.jpg"), TestFiles.inode(original("f.jpg")), "originals/0a/f.jpg")
        try intent(dead, 0, 1, source("g.jpg"), 5, "originals/0a/g.jpg")
        // An intent of the writer that is alive right now (this library's own session) must survive.
        let locks = try FileManager.default.contentsOfDirectory(
            atPath: library.url.appendingPathComponent("locks").path)
        let live = try #require(locks.first { $0.hasSuffix(".lock") }.map { String($0.dropLast(5)) })
        try TestFiles.distinctBytes(size: 17).write(to: original("live.jpg"))
        try intent(live, 0, 1, source("live.jpg"), 7, "originals/0a/live.jpg")

        let deadLog = IntentLog.path(session: dead, locksDirectory: library.url.appendingPathComponent("locks").path)
        if inIntentLog {
            let descriptor = open(deadLog, O_RDWR | O_CREAT, 0o644)
            defer { close(descriptor) }
            try IntentLog.write(logged, batch: 1, to: FileDescriptor(borrowing: descriptor), path: deadLog)
        }

        let second = PhotoLibrary(url: library.url)
        try await second.recoverInterruptedChanges()
        #expect(!FileManager.default.fileExists(atPath: deadLog), "a settled log is removed")

        #expect(try Data(contentsOf: source("a.jpg")) == renamedBytes, "(a) back at its source")
        #expect(!FileManager.default.fileExists(atPath: original("a.jpg").path))
        #expect(
            FileManager.default.fileExists(atPath: source("b.jpg").path)
                && !FileManager.default.fileExists(atPath: original("b.jpg").path), "(b)")
        #expect(try Data(contentsOf: source("c.jpg")) == onlyCopy, "(c) the only copy is kept")
        #expect(FileManager.default.fileExists(atPath: library.url.appendingPathComponent(committedPath).path), "(d)")
        #expect(!FileManager.default.fileExists(atPath: original("e.jpg").path), "(e)")
        let recovered = TestFiles.tree(library.url.appendingPathComponent("recovered"))
        #expect(recovered.count == 1 && recovered.first?.hasSuffix("-f.jpg") == true, "(f) \(recovered)")
        #expect(try Data(contentsOf: library.url.appendingPathComponent("recovered/" + recovered[0])) == displaced)
        #expect(
            !FileManager.default.fileExists(atPath: PlacementIntent.temporaryPath(for: original("g.jpg").path)), "(g)")
        #expect(try rawCount(library, "SELECT count(*) FROM placement_intents WHERE session = 'dead-session'") == 0)
        #expect(try rawCount(library, "SELECT count(*) FROM placement_intents WHERE session = '\(live)'") == 1)
        #expect(FileManager.default.fileExists(atPath: original("live.jpg").path))
    }
}
