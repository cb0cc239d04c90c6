import PhotodropSystem
import Testing

@testable import Ingest
import PhotodropTelemetry
import PhotodropConfiguration

/// A mock monotonic instant: a duration since an arbitrary zero.
struct MockInstant: InstantProtocol, CustomStringConvertible {
    var offset: Duration

    static let zero = MockInstant(offset: .zero)

    func advanced(by duration: Duration) -> MockInstant { MockInstant(offset: offset + duration) }
    func duration(to other: MockInstant) -> Duration { other.offset - offset }
    static func < (lhs: MockInstant, rhs: MockInstant) -> Bool { lhs.offset < rhs.offset }

    static func ms(_ milliseconds: Int) -> MockInstant { MockInstant(offset: .milliseconds(milliseconds)) }

    var description: String { "t+\(offset)" }
}

/// Drives a tracker against a simulated folder on a mock clock: events in, looks answered from `files`, every
/// decision recorded with its time. Nothing sleeps.
final class SettleHarness {
    typealias Tracker = SettleTracker<MockInstant>

    var tracker: Tracker
    var now = MockInstant.zero
    var files: [String: FileLook] = [:]
    var decisions: [(time: MockInstant, path: String, decision: Tracker.Decision)] = []
    var looks = 0
    private var nextInode: UInt64 = 100

    /// The rules the watcher applies before an event reaches the tracker.
    let ignore: IgnoreRules

    init(settle: Duration = .seconds(2), grace: Duration = .seconds(300), ignore: IgnoreRules = IgnoreRules()) {
        tracker = Tracker(settle: settle, incompleteGrace: grace)
        self.ignore = ignore
    }

    // MARK: The simulated folder

    private func mtime() -> UTCTimestamp {
        let (seconds, attoseconds) = now.offset.components
        return UTCTimestamp(seconds: 1_700_000_000 + seconds, nanoseconds: Int32(attoseconds / 1_000_000_000))
    }

    /// Creates the file or appends `bytes`, updating size and mtime, as a write does.
    func write(_ path: String, bytes: Int64 = 1000, openAfterwards: Bool = false) {
        var look =
            files[path]
            ?? FileLook(
                identity: FileIdentity(device: 1, inode: nextInode, size: 0, modificationTime: mtime()), writers: .none)
        if files[path] == nil { nextInode += 1 }
        look.identity.size += bytes
        look.identity.modificationTime = mtime()
        look.writers = openAfterwards ? .open : .none
        files[path] = look
    }

    func closeWriter(_ path: String) { files[path]?.writers = .none }

    /// Sets the mtime to something else, as `install`, `wget` and rsync do after closing.
    func touch(_ path: String, mtimeSeconds: Int64) {
        files[path]?.identity.modificationTime = UTCTimestamp(seconds: mtimeSeconds)
    }

    func rename(_ from: String, to: String) {
        files[to] = files.removeValue(forKey: from)
    }

    // MARK: Driving the tracker

    /// What became of an event: dropped by the ignore rules (as the watcher and the scanner drop it), or what the
    /// tracker made of it.
    enum Outcome: Equatable {
        case ignored(IgnoreRules.Reason)
        case observed(Tracker.Observation)
    }

    @discardableResult
    func event(_ activity: FileActivity, _ path: String) -> Outcome {
        if let reason = ignore.reason(forFile: path) { return .ignored(reason) }
        let observation = tracker.observe(activity, path: path, at: now)
        runDue()  // with settle 0 a check is due at once
        return .observed(observation)
    }

    /// Moves the clock to `time`, running every check whose deadline comes up on the way, at its deadline.
    func advance(to time: MockInstant) {
        while let deadline = tracker.nextDeadline, deadline <= time {
            if deadline > now { now = deadline }
            runDue()
        }
        now = max(now, time)
    }

    func advance(by duration: Duration) { advance(to: now.advanced(by: duration)) }

    func runDue() {
        for check in tracker.dueChecks(at: now) {
            looks += 1
            let outcome: FileLook.Outcome = files[check.path].map { .file($0) } ?? .missing
            decisions.append((now, check.path, tracker.inspect(check, outcome, at: now)))
        }
    }

    func readyTimes(_ path: String) -> [MockInstant] {
        decisions.compactMap { entry in
            if entry.path == path, case .ready = entry.decision { return entry.time }
            return nil
        }
    }

    func readyIdentity(_ path: String) -> FileIdentity? {
        for entry in decisions where entry.path == path {
            if case .ready(let identity) = entry.decision { return identity }
        }
        return nil
    }

    var readyPaths: [String] {
        decisions.compactMap { entry in
            if case .ready = entry.decision { return entry.path }
            return nil
        }
    }
}

@Suite("SettleTracker, with a mock clock (the upload clients' patterns)", .timeLimit(.minutes(3)))
struct SettleTrackerTests {
    @Test func cpIsTakenOneSettleAfterItsClose() {
        let h = SettleHarness()
        h.write("Trip/a.jpg")
        h.event(.created, "Trip/a.jpg")
        for step in 1...5 {
            h.advance(to: .ms(step * 20))
            h.write("Trip/a.jpg")
            h.event(.modified, "Trip/a.jpg")
        }
        h.event(.closedWrite, "Trip/a.jpg")
        h.advance(to: .ms(2099))
        #expect(h.readyTimes("Trip/a.jpg").isEmpty)
        h.advance(to: .ms(5000))
        #expect(h.readyTimes("Trip/a.jpg") == [.ms(2100)])
        #expect(h.readyIdentity("Trip/a.jpg")?.size == 6000)
        #expect(h.tracker.count == 0)
    }

    @Test func mvOnOneFileSystemIsOneMovedTo() {
        let h = SettleHarness()
        h.advance(to: .ms(500))
        h.write("b.jpg")
        #expect(h.event(.movedIn, "b.jpg") == .observed(.scheduled(at: .ms(2500))))
        h.advance(to: .ms(10_000))
        #expect(h.readyTimes("b.jpg") == [.ms(2500)])
        #expect(h.looks == 1)
    }

    @Test func aWriterAppendingTenChunksWithACloseEachIsTakenOnlyWhenDone() {
        // 10 chunks over 2 s, each an open/append/close cycle: CLOSE_WRITE is not "done".
        let h = SettleHarness()
        for chunk in 0..<10 {
            h.advance(to: .ms(chunk * 200))
            h.write("slow.mov", bytes: 100_000)
            h.event(.modified, "slow.mov")
            h.event(.closedWrite, "slow.mov")
        }
        #expect(h.readyTimes("slow.mov").isEmpty)
        h.advance(to: .ms(20_000))
        #expect(h.readyTimes("slow.mov") == [.ms(1800 + 2000)])
        #expect(h.readyIdentity("slow.mov")?.size == 1_000_000)
    }

    @Test func aSlowWriterHoldingTheFileOpenIsNotTakenWhileOpen() {
        // pv -L 100k: gaps of 2.5 s between writes, longer than the settle time, file open throughout.
        let h = SettleHarness()
        h.write("pv.jpg", openAfterwards: true)
        h.event(.created, "pv.jpg")
        for step in 1...4 {
            h.advance(to: .ms(step * 2500))
            h.write("pv.jpg", openAfterwards: true)
            h.event(.modified, "pv.jpg")
        }
        #expect(h.readyTimes("pv.jpg").isEmpty)
        #expect(h.looks >= 3)  // it was looked at during the gaps, and the lease said "open"
        h.advance(to: .ms(10_500))
        h.closeWriter("pv.jpg")
        h.event(.closedWrite, "pv.jpg")
        h.advance(to: .ms(30_000))
        #expect(h.readyTimes("pv.jpg") == [.ms(12_500)])
    }

    @Test func anOpenWriterWithoutFurtherEventsIsRecheckedAndTakenAfterItCloses() {
        let h = SettleHarness()
        h.write("held.jpg", openAfterwards: true)
        h.event(.closedWrite, "held.jpg")  // e.g. a second descriptor still open for writing
        h.advance(to: .ms(2000))
        #expect(h.decisions.last?.decision == .wait(until: .ms(4000)))
        h.advance(to: .ms(3000))
        h.closeWriter("held.jpg")  // closed without an event reaching us (a folder without a watch, say)
        h.advance(to: .ms(10_000))
        #expect(h.readyTimes("held.jpg") == [.ms(4000)])
    }

    @Test func rsyncTempFileThenRename() {
        let h = SettleHarness()
        let temp = "Trip/.IMG_1.jpg.Xa81Bc"
        h.write(temp)
        #expect(h.event(.created, temp) == .ignored(.hidden))
        h.event(.modified, temp)
        h.event(.closedWrite, temp)
        h.event(.attributesChanged, temp)
        #expect(h.tracker.count == 0)
        h.advance(to: .ms(300))
        h.rename(temp, to: "Trip/IMG_1.jpg")
        h.event(.movedIn, "Trip/IMG_1.jpg")
        h.advance(to: .ms(10_000))
        #expect(h.readyPaths == ["Trip/IMG_1.jpg"])
        #expect(h.readyTimes("Trip/IMG_1.jpg") == [.ms(2300)])
    }

    @Test func sambaPartFileRenameThenAttrib() {
        let h = SettleHarness()
        h.write("Trip/IMG_2.jpg.part")
        #expect(h.event(.closedWrite, "Trip/IMG_2.jpg.part") == .ignored(.temporarySuffix(".part")))
        h.advance(to: .ms(100))
        h.rename("Trip/IMG_2.jpg.part", to: "Trip/IMG_2.jpg")
        h.event(.movedIn, "Trip/IMG_2.jpg")
        h.advance(to: .ms(150))
        h.touch("Trip/IMG_2.jpg", mtimeSeconds: 1_600_000_000)
        h.event(.attributesChanged, "Trip/IMG_2.jpg")
        h.advance(to: .ms(10_000))
        #expect(h.readyTimes("Trip/IMG_2.jpg") == [.ms(2150)])
        #expect(h.readyIdentity("Trip/IMG_2.jpg")?.modificationTime == UTCTimestamp(seconds: 1_600_000_000))
    }

    @Test func installAndWgetSetTheMtimeAfterTheClose() {
        let h = SettleHarness()
        h.write("w.jpg")
        h.event(.created, "w.jpg")
        h.event(.closedWrite, "w.jpg")
        h.advance(to: .ms(40))
        h.touch("w.jpg", mtimeSeconds: 1_500_000_000)
        h.event(.attributesChanged, "w.jpg")
        h.advance(to: .ms(10_000))
        #expect(h.readyTimes("w.jpg") == [.ms(2040)])
        #expect(h.readyIdentity("w.jpg")?.modificationTime == UTCTimestamp(seconds: 1_500_000_000))
    }

    @Test(arguments: [
        ".IMG_1.jpg.Xa81Bc", "Trip/.DS_Store", "x.part", "x.PART", "download.crdownload", "a.tmp", "notes.txt~",
        ".hidden/a.jpg", "Trip/.sync/a.jpg",
    ])
    func staleTempNamesAreNeverTracked(_ path: String) {
        let h = SettleHarness()
        h.write(path)
        if case .ignored = h.event(.closedWrite, path) {} else { Issue.record("\(path) was tracked") }
        if case .ignored = h.event(.listed, path) {} else { Issue.record("\(path) was tracked") }
        h.advance(to: .ms(1_000_000))
        #expect(h.tracker.count == 0 && h.decisions.isEmpty)
    }

    @Test func configIgnorePatternsAreNeverTracked() {
        let h = SettleHarness(ignore: IgnoreRules(patterns: ["*.xmp", "@eaDir"]))
        #expect(h.event(.closedWrite, "Trip/IMG_1.xmp") == .ignored(.pattern("*.xmp")))
        #expect(h.event(.closedWrite, "Trip/@eaDir/IMG_1.jpg") == .ignored(.pattern("@eaDir")))
        #expect(h.tracker.count == 0)
    }

    @Test func aDeleteForgetsPendingWork() {
        let h = SettleHarness()
        h.write("gone.jpg")
        h.event(.closedWrite, "gone.jpg")
        h.advance(to: .ms(1000))
        let forgotten = h.tracker.forget(path: "gone.jpg")
        #expect(forgotten)
        h.files["gone.jpg"] = nil
        h.advance(to: .ms(10_000))
        #expect(h.decisions.isEmpty && h.looks == 0)
        #expect(h.tracker.forget(path: "never-seen.jpg") == false)
    }

    @Test func aFileGoneAtItsLookIsForgotten() {
        let h = SettleHarness()
        h.write("vanishing.jpg")
        h.event(.closedWrite, "vanishing.jpg")
        h.files["vanishing.jpg"] = nil  // no DELETE seen (folder without a watch, say)
        h.advance(to: .ms(3000))
        #expect(h.decisions.map(\.decision) == [.forgotten(.missing)])
        #expect(h.tracker.count == 0)
    }

    @Test func aNonRegularFileIsForgotten() {
        var tracker = SettleTracker<MockInstant>(settle: .zero, incompleteGrace: .seconds(1))
        _ = tracker.observe(.movedIn, path: "link.jpg", at: .zero)
        let check = tracker.dueChecks(at: .zero)[0]
        let result1 = tracker.inspect(check, .notRegularFile, at: .zero)
        #expect(result1 == .forgotten(.notRegularFile))
        _ = tracker.observe(.movedIn, path: "secret.jpg", at: .zero)
        let error = SystemError(code: .permissionDenied, call: "open", path: "secret.jpg")
        let result2 = tracker.inspect(tracker.dueChecks(at: .zero)[0], .failed(error), at: .zero)
        #expect(result2 == .forgotten(.unreadable(error)))
    }

    @Test func settleZeroAddsNoLatency() {
        let h = SettleHarness(settle: .zero)
        h.advance(to: .ms(1234))
        h.write("fast.jpg")
        h.event(.movedIn, "fast.jpg")
        #expect(h.readyTimes("fast.jpg") == [.ms(1234)])
        #expect(h.looks == 1)
        // Also for files found by listing or polling: one look, no second one.
        h.write("listed.jpg")
        h.event(.listed, "listed.jpg")
        h.write("polled.jpg")
        h.event(.polled, "polled.jpg")
        #expect(h.readyTimes("listed.jpg") == [.ms(1234)] && h.readyTimes("polled.jpg") == [.ms(1234)])
        #expect(h.looks == 3)
    }

    @Test func settleZeroStillWaitsForAnOpenWriterWithoutSpinning() {
        let h = SettleHarness(settle: .zero)
        h.write("open.jpg", openAfterwards: true)
        h.event(.closedWrite, "open.jpg")
        #expect(h.decisions.last?.decision == .wait(until: .ms(1000)))
        h.advance(to: .ms(2500))
        #expect(h.looks == 3)  // at 0, 1 s and 2 s: the recheck interval is at least one second
        h.closeWriter("open.jpg")
        h.advance(to: .ms(3000))
        #expect(h.readyTimes("open.jpg") == [.ms(3000)])
    }

    @Test func aFileListedInAWatchedFolderNeedsOneLook() {
        let h = SettleHarness()
        h.write("Trip/old.jpg")
        h.event(.listed, "Trip/old.jpg")
        h.advance(to: .ms(10_000))
        #expect(h.readyTimes("Trip/old.jpg") == [.ms(2000)])
        #expect(h.looks == 1)
    }

    @Test func aPolledFileNeedsTwoEqualLooksASettleApart() {
        let h = SettleHarness()
        h.write("B/one.jpg")
        h.event(.polled, "B/one.jpg")  // first look at once
        #expect(h.looks == 1)
        h.advance(to: .ms(1000))
        h.write("B/one.jpg")  // still growing; no events in a folder without a watch
        h.advance(to: .ms(2000))
        #expect(h.readyTimes("B/one.jpg").isEmpty)  // changed since the first look
        h.advance(to: .ms(10_000))
        #expect(h.readyTimes("B/one.jpg") == [.ms(4000)])
        #expect(h.readyIdentity("B/one.jpg")?.size == 2000)
    }

    @Test func aRepeatedListingDoesNotPostponeAPendingFile() {
        let h = SettleHarness()
        h.write("a.jpg")
        h.event(.closedWrite, "a.jpg")
        h.advance(to: .ms(1500))
        #expect(h.event(.listed, "a.jpg") == .observed(.alreadyTracked))
        #expect(h.event(.polled, "a.jpg") == .observed(.alreadyTracked))
        h.advance(to: .ms(10_000))
        #expect(h.readyTimes("a.jpg") == [.ms(2000)])
    }

    @Test func aChangeWithoutAnEventAfterALookIsCaught() {
        // An mmap write produces no IN_MODIFY. After a look that was not final, a changed identity means wait.
        let h = SettleHarness()
        h.write("m.jpg", openAfterwards: true)
        h.event(.closedWrite, "m.jpg")
        h.advance(to: .ms(2000))  // open: lastLook recorded
        h.write("m.jpg")  // changed and closed, silently
        h.advance(to: .ms(4000))
        #expect(h.readyTimes("m.jpg").isEmpty)
        h.advance(to: .ms(10_000))
        #expect(h.readyTimes("m.jpg") == [.ms(6000)])
    }

    @Test func anEventBetweenCheckAndLookSupersedesTheLook() {
        var tracker = SettleTracker<MockInstant>(settle: .seconds(2), incompleteGrace: .seconds(300))
        _ = tracker.observe(.closedWrite, path: "a.jpg", at: .zero)
        let checks = tracker.dueChecks(at: .ms(2000))
        #expect(checks.map(\.path) == ["a.jpg"])
        #expect(tracker.phase(of: "a.jpg") == .checking(.settle))
        _ = tracker.observe(.modified, path: "a.jpg", at: .ms(2001))
        let look = FileLook(
            identity: FileIdentity(device: 1, inode: 1, size: 1, modificationTime: UTCTimestamp(seconds: 0)),
            writers: .none)
        let result3 = tracker.inspect(checks[0], .file(look), at: .ms(2002))
        #expect(result3 == .superseded)
        #expect(tracker.dueChecks(at: .ms(4000)).isEmpty)
        let later = tracker.dueChecks(at: .ms(4001))
        #expect(later.map(\.path) == ["a.jpg"])
        let result4 = tracker.inspect(later[0], .file(look), at: .ms(4001))
        #expect(result4 == .ready(look.identity))
        // A stale check after the file was forgotten is superseded too.
        let result5 = tracker.inspect(checks[0], .file(look), at: .ms(5000))
        #expect(result5 == .superseded)
    }

    @Test func forgetAllUnderAFolderOnlyTouchesThatFolder() {
        var tracker = SettleTracker<MockInstant>(settle: .seconds(2), incompleteGrace: .seconds(300))
        for path in ["Trip/a.jpg", "Trip/deep/b.jpg", "Trips/c.jpg", "d.jpg"] {
            _ = tracker.observe(.closedWrite, path: path, at: .zero)
        }
        let result6 = tracker.forgetAll(under: "Trip")
        #expect(result6 == 2)
        #expect(Set(tracker.dueChecks(at: .ms(2000)).map(\.path)) == ["Trips/c.jpg", "d.jpg"])
        let result7 = tracker.forgetAll(under: "")
        #expect(result7 == 2)
        #expect(tracker.count == 0 && tracker.nextDeadline == nil)
    }

    // MARK: Incomplete files

    @Test func aTruncatedFileWaitsForItsGraceThenMayBeRejected() {
        let h = SettleHarness(grace: .seconds(300))
        h.write("scp.jpg", bytes: 600)  // scp killed: a prefix with a CLOSE_WRITE
        h.event(.closedWrite, "scp.jpg")
        h.advance(to: .ms(2000))
        let identity = h.readyIdentity("scp.jpg")!
        // The probe says "truncated": keep it for the grace period.
        #expect(h.tracker.markIncomplete(path: "scp.jpg", identity: identity, at: h.now) == .ms(302_000))
        #expect(h.tracker.phase(of: "scp.jpg") == .incomplete(identity))
        h.advance(to: .ms(301_999))
        #expect(h.decisions.count == 1)
        h.advance(to: .ms(400_000))
        #expect(h.decisions.last?.decision == .incompleteExpired(identity))
        #expect(h.decisions.last?.time == .ms(302_000))
        #expect(h.tracker.count == 0)
    }

    @Test func aResumedUploadRestartsEverything() {
        let h = SettleHarness(grace: .seconds(300))
        h.write("sftp.jpg", bytes: 600)
        h.event(.closedWrite, "sftp.jpg")
        h.advance(to: .ms(2000))
        h.tracker.markIncomplete(path: "sftp.jpg", identity: h.readyIdentity("sftp.jpg")!, at: h.now)
        // sftp reput a minute later: a second CLOSE_WRITE with the rest of the file.
        h.advance(to: .ms(60_000))
        h.write("sftp.jpg", bytes: 400)
        h.event(.closedWrite, "sftp.jpg")
        #expect(h.tracker.phase(of: "sftp.jpg") == .settling)
        h.advance(to: .ms(400_000))
        #expect(h.readyTimes("sftp.jpg") == [.ms(2000), .ms(62_000)])
        #expect(!h.decisions.contains { if case .incompleteExpired = $0.decision { true } else { false } })
    }

    @Test func aFileThatGrewSilentlyDuringItsGraceSettlesAgain() {
        let h = SettleHarness(grace: .seconds(10))
        h.write("r.jpg", bytes: 600)
        h.event(.movedIn, "r.jpg")  // rsync --partial: the prefix renamed in
        h.advance(to: .ms(2000))
        h.tracker.markIncomplete(path: "r.jpg", identity: h.readyIdentity("r.jpg")!, at: h.now)
        h.advance(to: .ms(5000))
        h.write("r.jpg", bytes: 400)  // no event seen (say, a folder without a watch)
        h.advance(to: .ms(100_000))
        #expect(h.readyTimes("r.jpg") == [.ms(2000), .ms(14_000)])
    }

    @Test func markIncompleteIsANoOpWhenNewEventsArrivedMeanwhile() {
        var tracker = SettleTracker<MockInstant>(settle: .seconds(2), incompleteGrace: .seconds(300))
        _ = tracker.observe(.closedWrite, path: "a.jpg", at: .zero)
        let identity = FileIdentity(device: 1, inode: 1, size: 5, modificationTime: UTCTimestamp(seconds: 1))
        let check = tracker.dueChecks(at: .ms(2000))[0]
        let result8 = tracker.inspect(check, .file(FileLook(identity: identity, writers: .none)), at: .ms(2000))
        #expect(result8 == .ready(identity))
        _ = tracker.observe(.modified, path: "a.jpg", at: .ms(2100))  // the upload resumed during the probe
        let result9 = tracker.markIncomplete(path: "a.jpg", identity: identity, at: .ms(2200))
        #expect(result9 == nil)
        #expect(tracker.phase(of: "a.jpg") == .settling)
    }

    @Test func aGraceOfZeroRejectsAtTheNextLook() {
        let h = SettleHarness(grace: .zero)
        h.write("z.jpg")
        h.event(.closedWrite, "z.jpg")
        h.advance(to: .ms(2000))
        h.tracker.markIncomplete(path: "z.jpg", identity: h.readyIdentity("z.jpg")!, at: h.now)
        h.runDue()
        if case .incompleteExpired = h.decisions.last?.decision {} else { Issue.record("\(h.decisions)") }
    }

    // MARK: Retries

    @Test func aFailedFileIsRetriedAtItsBackOff() {
        let h = SettleHarness()
        h.write("locked.jpg")
        h.event(.closedWrite, "locked.jpg")
        h.advance(to: .ms(2000))
        let scheduled = h.tracker.retry(path: "locked.jpg", at: .ms(7000))
        #expect(scheduled)
        #expect(h.tracker.phase(of: "locked.jpg") == .retrying)
        h.advance(to: .ms(6999))
        #expect(h.readyTimes("locked.jpg") == [.ms(2000)])
        h.advance(to: .ms(8000))
        #expect(h.readyTimes("locked.jpg") == [.ms(2000), .ms(7000)])
        // New events during a back-off mean it settles instead, and retry says so.
        h.event(.closedWrite, "locked.jpg")
        #expect(h.tracker.retry(path: "locked.jpg", at: .ms(60_000)) == false)
    }

    // MARK: Left to another node

    @Test func aFileLeftToAnotherNodeIsForgottenWhenThatNodeTookIt() {
        let h = SettleHarness()
        h.write("a.jpg")
        h.event(.closedWrite, "a.jpg")
        h.advance(to: .ms(2000))
        let identity = h.readyIdentity("a.jpg")!
        let left = h.tracker.yield(path: "a.jpg", identity: identity, at: h.now, until: .ms(4000))
        #expect(left)
        #expect(h.tracker.phase(of: "a.jpg") == .yielding)
        h.rename("a.jpg", to: "elsewhere")  // the other node's claim
        h.advance(to: .ms(5000))
        #expect(h.readyTimes("a.jpg") == [.ms(2000)])
        #expect(h.decisions.last?.decision == .forgotten(.missing))
        #expect(h.tracker.count == 0)
    }

    @Test func aFileLeftToAnotherNodeIsTakenWhenStillThereUnchanged() {
        let h = SettleHarness()
        h.write("b.jpg")
        h.event(.closedWrite, "b.jpg")
        h.advance(to: .ms(2000))
        h.tracker.yield(path: "b.jpg", identity: h.readyIdentity("b.jpg")!, at: h.now, until: .ms(4000))
        h.advance(to: .ms(3999))
        #expect(h.readyTimes("b.jpg") == [.ms(2000)], "not before the time left to the other node")
        h.advance(to: .ms(5000))
        #expect(h.readyTimes("b.jpg") == [.ms(2000), .ms(4000)])
        #expect(h.tracker.count == 0)
    }

    @Test func aFileThatChangedWhileLeftToAnotherNodeSettlesAgain() {
        let h = SettleHarness()
        h.write("c.jpg")
        h.event(.closedWrite, "c.jpg")
        h.advance(to: .ms(2000))
        h.tracker.yield(path: "c.jpg", identity: h.readyIdentity("c.jpg")!, at: h.now, until: .ms(4000))
        h.advance(to: .ms(3000))
        h.write("c.jpg")  // changed with no event (another machine's write on a network share)
        h.advance(to: .ms(4000))
        #expect(h.tracker.phase(of: "c.jpg") == .settling)
        // Two equal looks a settle apart, as for a polled file: ready at 6 s.
        h.advance(to: .ms(10_000))
        #expect(h.readyTimes("c.jpg") == [.ms(2000), .ms(6000)])
        // An event while it is left to the other node: settling again at once, and yield says the file is tracked.
        h.write("d.jpg")
        h.event(.closedWrite, "d.jpg")
        h.advance(to: .ms(12_000))
        h.tracker.yield(path: "d.jpg", identity: h.readyIdentity("d.jpg")!, at: h.now, until: .ms(14_000))
        h.write("d.jpg")
        h.event(.closedWrite, "d.jpg")
        #expect(h.tracker.phase(of: "d.jpg") == .settling)
        let leftAgain = h.tracker.yield(path: "d.jpg", identity: h.readyIdentity("d.jpg")!, at: h.now, until: .ms(16_000))
        #expect(!leftAgain)
    }

    @Test func aFileCanBeLeftToAnotherNodeBeforeItIsLookedAt() {
        let h = SettleHarness()
        h.write("e.jpg")
        h.event(.closedWrite, "e.jpg")
        h.write("f.jpg")
        h.event(.closedWrite, "f.jpg")
        let checks = h.tracker.dueChecks(at: .ms(2000))
        #expect(checks.map(\.path).sorted() == ["e.jpg", "f.jpg"])
        for check in checks {
            let left = h.tracker.yield(check, until: .ms(4000))
            #expect(left)
        }
        #expect(h.tracker.phase(of: "e.jpg") == .yielding)
        h.now = .ms(2000)
        h.rename("f.jpg", to: "taken")  // the other node took f.jpg; e.jpg stays
        h.advance(to: .ms(5000))
        #expect(h.readyTimes("e.jpg") == [.ms(4000)], "the look at the end is its settle check")
        #expect(h.looks == 2, "one look each, at the end")
        #expect(h.decisions.contains { $0.path == "f.jpg" && $0.decision == .forgotten(.missing) })
        #expect(h.tracker.count == 0)
    }

    @Test func aPolledOrStaleCheckIsNotLeftUnlooked() {
        let h = SettleHarness()
        h.write("polled.jpg")
        _ = h.tracker.observe(.polled, path: "polled.jpg", at: h.now)
        let polled = h.tracker.dueChecks(at: h.now)
        #expect(polled.map(\.path) == ["polled.jpg"])
        let leftPolled = h.tracker.yield(polled[0], until: .ms(4000))
        #expect(!leftPolled, "two equal looks first: nothing vouches for its quiet time")
        h.write("stale.jpg")
        h.event(.closedWrite, "stale.jpg")
        let due = h.tracker.dueChecks(at: .ms(2000)).filter { $0.path == "stale.jpg" }
        h.now = .ms(2000)
        h.event(.modified, "stale.jpg")  // written again after the check was handed out
        let leftStale = h.tracker.yield(due[0], until: .ms(4000))
        #expect(!leftStale)
        #expect(h.tracker.phase(of: "stale.jpg") == .settling)
    }

    @Test func aFileLeftUnlookedAfterAnOpenWriterIsTakenOnlyIfUnchanged() {
        let h = SettleHarness()
        h.write("g.jpg", openAfterwards: true)
        h.event(.closedWrite, "g.jpg")
        h.advance(to: .ms(2000))  // looked at once: a writer still has it open, looked at again at 4 s
        #expect(h.tracker.phase(of: "g.jpg") == .settling)
        h.closeWriter("g.jpg")
        let checks = h.tracker.dueChecks(at: .ms(4000))
        let left = h.tracker.yield(checks[0], until: .ms(6000))
        #expect(left)
        h.now = .ms(4000)
        h.write("g.jpg")  // appended without an event reaching us
        h.advance(to: .ms(6000))
        #expect(h.readyTimes("g.jpg").isEmpty, "changed since its last look: settles again")
        #expect(h.tracker.phase(of: "g.jpg") == .settling)
        h.advance(to: .ms(9000))
        #expect(h.readyTimes("g.jpg") == [.ms(8000)], "two equal looks a settle apart")
    }

    // MARK: Scale

    @Test func anEventStormKeepsOneHeapItemPerFile() {
        var tracker = SettleTracker<MockInstant>(settle: .seconds(2), incompleteGrace: .seconds(300))
        for step in 0..<10_000 {
            _ = tracker.observe(.modified, path: "big.mov", at: .ms(step))
        }
        #expect(tracker.scheduledItemCount == 1)
        #expect(tracker.dueChecks(at: .ms(11_998)).isEmpty)
        let result10 = tracker.dueChecks(at: .ms(11_999)).map(\.path)
        #expect(result10 == ["big.mov"])
    }

    @Test func aHundredThousandFilesComeDueInDeadlineOrder() {
        var tracker = SettleTracker<MockInstant>(settle: .seconds(2), incompleteGrace: .seconds(300))
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for index in 0..<100_000 {
                _ = tracker.observe(.movedIn, path: "A/\(index).jpg", at: .ms(index / 10))
            }
            var due = 0
            var lastDeadline = MockInstant.zero
            while let deadline = tracker.nextDeadline {
                #expect(deadline >= lastDeadline)
                lastDeadline = deadline
                for check in tracker.dueChecks(at: deadline) {
                    let look = FileLook(
                        identity: FileIdentity(
                            device: 1, inode: 1, size: 1, modificationTime: UTCTimestamp(seconds: 0)),
                        writers: .none)
                    if case .ready = tracker.inspect(check, .file(look), at: deadline) { due += 1 }
                }
            }
            #expect(due == 100_000)
        }
        #expect(tracker.count == 0 && tracker.scheduledItemCount == 0)
        print("SettleTracker: 100,000 files in \(elapsed)")
    }
}

@Suite("IgnoreRules", .timeLimit(.minutes(3)))
struct IgnoreRulesTests {
    @Test(
        arguments: [
            ("IMG_1.jpg", nil),
            ("Trip/IMG_1.jpg", nil),
            ("Trip/Day 1/IMG_1.HEIC", nil),
            (".DS_Store", IgnoreRules.Reason.hidden),
            ("Trip/.IMG_1.jpg.Xa81Bc", .hidden),
            (".Trash/IMG_1.jpg", .hidden),
            ("Trip/.sync/x.jpg", .hidden),
            ("IMG_1.jpg.part", .temporarySuffix(".part")),
            ("IMG_1.jpg.Part", .temporarySuffix(".part")),
            ("movie.mp4.crdownload", .temporarySuffix(".crdownload")),
            ("x.TMP", .temporarySuffix(".tmp")),
            ("IMG_1.jpg~", .backup),
            ("part", nil),
            ("x.tmp/IMG_1.jpg", nil),  // a folder named like a temp file is an ordinary album
            ("notpart.jpg", nil),
        ] as [(String, IgnoreRules.Reason?)])
    func builtInNames(_ path: String, _ expected: IgnoreRules.Reason?) {
        #expect(IgnoreRules().reason(forFile: path) == expected)
    }

    @Test func configPatterns() {
        let rules = IgnoreRules(patterns: ["*.xmp", "@eaDir", "Scans/raw/*", "Thumbs.db"])
        #expect(rules.reason(forFile: "Trip/IMG_1.xmp") == .pattern("*.xmp"))
        #expect(rules.reason(forFile: "Trip/@eaDir/IMG_1.jpg") == .pattern("@eaDir"))
        #expect(rules.reason(forFile: "Scans/raw/a.tif") == .pattern("Scans/raw/*"))
        #expect(rules.reason(forFile: "Scans/raw/deeper/a.tif") == nil)  // FNM_PATHNAME: * stops at /
        #expect(rules.reason(forFile: "Thumbs.db") == .pattern("Thumbs.db"))
        #expect(rules.reason(forFile: "Trip/IMG_1.jpg") == nil)
        #expect(rules.reason(forDirectory: "Trip/@eaDir") == .pattern("@eaDir"))
        #expect(rules.reason(forDirectory: "Trip") == nil)
        #expect(rules.skipsDirectory(named: "@eaDir", relativePath: "A/@eaDir"))
        #expect(rules.skipsFile(named: "a.xmp", relativePath: "A/a.xmp"))
        #expect(!rules.skipsFile(named: "a.jpg", relativePath: "A/a.jpg"))
    }
}
