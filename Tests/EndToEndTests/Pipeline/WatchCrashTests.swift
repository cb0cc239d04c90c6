import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// `photodrop watch` killed with SIGKILL at random moments, and stopped with SIGTERM while busy.
@Suite("watch: crashes and shutdown", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct WatchCrashTests {
    /// A small deterministic generator, so that a failing run can be repeated with the same seed.
    struct SeededGenerator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return state
        }
    }

    @Test(
        "kill -9 at random moments during a drop of 1,000 files and 40 Live Photo pairs, 10 rounds: every file ends once, every pair as one asset",
        ProcessBudget.alone,
        .requires(toolExists("/usr/bin/ffmpeg"), "ffmpeg is not installed here (.ci/run installs it)"))
    func killNineRounds() async throws {
        let seed = UInt64(Date().timeIntervalSince1970 * 1000)
        var random = SeededGenerator(state: seed)
        // A short wait, so that halves split by a kill or by rounds both wait out their partner and arrive after it was
        // stored.
        let sandbox = try Sandbox("kill9", settings: ["settleMilliseconds": 50, "pairWaitSeconds": 3])
        let source = try sandbox.staging("drop")
        // 900 distinct photos, 50 copies of some of them under other names, 50 text files that are rejected.
        let photos = try TinyJPEG.write(count: 900, into: source)
        let expectedContents = Set((0..<900).map { sha256Hex(Data(TinyJPEG.bytes($0))) })
        var inputs = photos
        for index in 0..<50 {
            let copy = source.appendingPathComponent("DUP_\(index).jpg")
            try FileManager.default.copyItem(at: photos[index * 7], to: copy)
            inputs.append(copy)
            let note = source.appendingPathComponent("note_\(index).txt")
            try Data("not a photo, number \(index)\n".utf8).write(to: note)
            inputs.append(note)
        }
        // 40 Live Photos: a JPEG and a movie sharing a content identifier; their halves land in any round.
        let pairs = 40
        func identifier(_ index: Int) -> String { String(format: "C0FFEE00-0000-4000-8000-%012d", index) }
        let movies = try await LivePhoto.makeMovies(
            count: pairs, into: source, name: { String(format: "LIVE_%03d.MOV", $0) }, identifier: identifier)
        var liveContents = Set<String>()
        for index in 0..<pairs {
            let still = SyntheticJPEG.bytes(
                seed: 10_000 + index, taken: "2024:05:01 12:00:00", contentIdentifier: identifier(index))
            let url = source.appendingPathComponent(String(format: "LIVE_%03d.JPG", index))
            try Data(still).write(to: url)
            inputs += [url, movies[index]]
            liveContents.insert(sha256Hex(Data(still)))
            liveContents.insert(sha256Hex(try Data(contentsOf: movies[index])))
        }
        inputs.shuffle(using: &random)
        let perRound = (inputs.count + 9) / 10
        func slice(_ round: Int) -> ArraySlice<URL> {
            inputs[min(round * perRound, inputs.count)..<min((round + 1) * perRound, inputs.count)]
        }
        let album = try sandbox.inboxAlbum("Crash")

        var kills: [String] = []
        var landed = 0
        for round in 0..<10 {
            let leftOver = Set(sandbox.stagedFiles)
            let daemon = try WatchDaemon(sandbox)
            // Every fourth round dies during start-up and recovery; the others while files are in flight: 0 to 10 ms
            // after this daemon claimed its first file into the staging folder. A thread of its own watches the
            // folder every 200 µs from before the files arrive and kills at once (a task on the busy cooperative
            // pool could wake too late, and a watcher started once the log said "started" missed a whole round of
            // 100 files on a fast machine; the log is no guide either, since a block of 100 files commits, and is
            // logged, at once).
            var delay: UInt32 = 0
            var claimedBeforeKill = true
            if round % 4 == 3 {
                try sandbox.move(slice(round), into: album)
                delay = UInt32.random(in: 0...40_000, using: &random)
                await pause(delay)
            } else {
                delay = UInt32.random(in: 0...10_000, using: &random)
                let killer = ClaimWatcher(
                    staging: sandbox.inbox.appendingPathComponent(".photodrop/claimed").path,
                    leftOver: leftOver, pid: daemon.pid, delay: delay)
                try sandbox.move(slice(round), into: album)
                claimedBeforeKill = await killer.wait(timeout: 30)
            }
            daemon.kill9()
            // The kill must land while work is in flight (begun and not finished): otherwise the round tests nothing.
            let staged = sandbox.stagedFiles.count
            let unfinished = sandbox.inboxFiles.count + staged
            kills.append(
                "round \(round): killed \(delay / 1000) ms after \(round % 4 == 3 ? "spawning" : "its first claim"), "
                    + "\(daemon.outcomes.count) outcomes logged, \(staged) staged, \(unfinished) unfinished")
            #expect(claimedBeforeKill, "round \(round): the daemon never claimed a file (seed \(seed))")
            // A round whose kill came after all its work was done tests nothing (on a loaded machine this test's own
            // pause can oversleep while the daemon finishes); most rounds must land mid-work.
            if unfinished > 0 { landed += 1 }
        }
        #expect(landed >= 6, "only \(landed) of 10 kills landed while work was in flight (seed \(seed)):\n\(kills.joined(separator: "\n"))")

        let final = try WatchDaemon(sandbox)
        let drained = await eventually(timeout: 120) {
            sandbox.inboxFiles.isEmpty && sandbox.stagedFiles.isEmpty && final.log.contains("photodrop watch started")
        }
        await pause(300_000)
        #expect(try await final.stop() == 0)
        let context = "seed \(seed)\n" + kills.joined(separator: "\n")
        print("kill -9 rounds, \(context)")
        #expect(drained, "inbox \(sandbox.inboxFiles.prefix(10)), staged \(sandbox.stagedFiles.prefix(10))\n\(context)")

        let library = try LibraryCheck(sandbox)
        let stored = try library.storedContents()
        #expect(Set(stored.keys) == expectedContents.union(liveContents), "\(stored.count) contents stored\n\(context)")
        #expect(stored.values.allSatisfy { $0 == 1 }, "a content is stored twice\n\(context)")
        #expect(try library.assetCount == 900 + pairs, "\(context)")
        #expect(try library.albums() == ["Crash": 900 + pairs], "\(context)")
        // Each pair is one Live Photo: its JPEG the photo, its movie the paired video.
        #expect(try library.count("SELECT count(*) FROM resources WHERE type = 9 AND original_filename LIKE 'LIVE_%.MOV'") == pairs, "\(context)")
        #expect(try library.count("SELECT count(*) FROM assets WHERE playback_style = 3") == pairs, "\(context)")
        #expect(try library.journalCount == 0, "\(context)")
        let rejected = sandbox.files(under: sandbox.rejected.appendingPathComponent("Crash"))
        let notes = rejected.filter { !$0.hasSuffix(".reason.json") }
        #expect(Set(notes) == Set((0..<50).map { "note_\($0).txt" }), "rejected files: \(notes.sorted())\n\(context)")
        #expect(rejected.count == 100, "\(rejected.sorted())\n\(context)")
        #expect(sandbox.inboxFiles.isEmpty, "\(context)")
        try await library.expectConsistent()
    }

    @Test("SIGTERM while busy: files in flight are finished, the rest stays in the inbox, exit 0")
    func sigtermWhileBusy() async throws {
        let sandbox = try Sandbox("sigterm", settings: ["settleMilliseconds": 0])
        let source = try sandbox.staging("busy")
        let files = try TinyJPEG.write(count: 1500, into: source)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = try sandbox.inboxAlbum("Busy")
        // SIGTERM the moment the first files are claimed, from a thread that looks every 200 µs: a test task that
        // polled the log for a first outcome was, on a busy machine, too late to find any work left.
        let stopper = ClaimWatcher(
            staging: sandbox.inbox.appendingPathComponent(".photodrop/claimed").path,
            leftOver: Set(sandbox.stagedFiles), pid: daemon.pid, delay: 0, signal: SIGTERM)
        try sandbox.move(files, into: album)
        #expect(await stopper.wait(timeout: 30), "the daemon claimed nothing before SIGTERM")
        let status = try await daemon.waitForExit(afterSignal: SIGTERM, timeout: 30)
        #expect(status == 0, "\(daemon.log)")
        #expect(daemon.log.contains("stopping") && daemon.log.contains("photodrop watch stopped"))
        let done = daemon.outcomes.count
        print("SIGTERM at the first claim: \(done) of \(files.count) files finished, the rest left in the inbox")
        // The drain must have interrupted real work: some files finished, others never taken.
        #expect(done >= 1 && done < files.count, "\(done) of \(files.count) finished: SIGTERM did not land mid-work")
        #expect(!sandbox.inboxFiles.isEmpty, "nothing was left in the inbox: the stop came after all the work")
        #expect(sandbox.stagedFiles.isEmpty, "claimed files were left unfinished: \(sandbox.stagedFiles.prefix(5))")
        #expect(
            done + sandbox.inboxFiles.count == files.count, "\(done) done, \(sandbox.inboxFiles.count) in the inbox")
        let library = try LibraryCheck(sandbox)
        #expect(try library.assetCount == done)
        #expect(try library.journalCount == 0)
        try await library.expectConsistent()

        // The rest is taken at the next start.
        let again = try WatchDaemon(sandbox)
        #expect(await eventually(timeout: 60) { sandbox.inboxFiles.isEmpty && sandbox.stagedFiles.isEmpty })
        await pause(200_000)
        #expect(try await again.stop() == 0)
        #expect(try LibraryCheck(sandbox).albums() == ["Busy": files.count])
    }

    @Test("SIGINT (Ctrl-C) stops the daemon like SIGTERM: files taken are finished, exit 0")
    func sigintStopsCleanly() async throws {
        let sandbox = try Sandbox("sigint", settings: ["settleMilliseconds": 0])
        let source = try sandbox.staging("ctrl-c")
        let files = try TinyJPEG.write(count: 20, into: source)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = try sandbox.inboxAlbum("Interrupted")
        try sandbox.move(files, into: album)
        #expect(await eventually(timeout: 30) { daemon.outcomes.count == files.count })
        let status = try await daemon.stop(signal: SIGINT, timeout: 30)
        #expect(status == 0, "\(daemon.log)")
        #expect(daemon.log.contains("photodrop watch stopped"), "\(daemon.log)")
        #expect(sandbox.stagedFiles.isEmpty && sandbox.inboxFiles.isEmpty)
        let library = try LibraryCheck(sandbox)
        #expect(try library.albums() == ["Interrupted": files.count])
        #expect(try library.journalCount == 0)
        try await library.expectConsistent()
    }
}

/// Sends a daemon `signal` (`SIGKILL` unless told) `delay` µs after a file it claimed appears in the staging folder,
/// from a thread of its own that looks every 200 µs.
final class ClaimWatcher: @unchecked Sendable {
    // @unchecked: `claimed` and `done` are written by the thread before it sets `finished`, and read after.
    private var claimed = false
    private let finished = Locked(false)

    init(staging: String, leftOver: Set<String>, pid: Int32, delay: UInt32, signal: Int32 = SIGKILL) {
        let deadline = Date().addingTimeInterval(30)
        Thread.detachNewThread { [self] in
            while Date() < deadline {
                let names = Set((try? FileManager.default.contentsOfDirectory(atPath: staging)) ?? [])
                if !names.subtracting(leftOver).isEmpty {
                    claimed = true
                    break
                }
                usleep(200)
            }
            usleep(delay)
            kill(pid, signal)
            finished.value = true
        }
    }

    /// Waits until the signal was sent; returns whether the daemon had claimed a file first.
    func wait(timeout: TimeInterval) async -> Bool {
        _ = await eventually(timeout: timeout + 5) { finished.value }
        return finished.value && claimed
    }
}
