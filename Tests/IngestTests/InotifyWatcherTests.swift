import Foundation
import PhotodropSystem
import Synchronization
import TestFixtures
import Testing

@testable import Ingest
import PhotodropTelemetry

/// Iterates a watcher in a background task and lets a test wait for the events it expects.
final class EventCollector: Sendable {
    let watcher: InotifyWatcher
    private let events = Locked<[InboxEvent]>([])
    private let task: Mutex<Task<Void, Never>?> = Mutex(nil)

    init(_ watcher: InotifyWatcher) {
        self.watcher = watcher
        let task = Task { [events] in
            for await event in watcher {
                events.withLock { $0.append(event) }
            }
        }
        self.task.withLock { $0 = task }
    }

    var all: [InboxEvent] { events.withLock { $0 } }

    /// Waits until `condition` holds for the events so far (checked every 20 ms), at most `timeout` (generous: the
    /// watcher runs on the cooperative pool, which a loaded test run can keep busy for seconds).
    @discardableResult
    func wait(
        timeout: Duration = .seconds(30), sourceLocation: SourceLocation = #_sourceLocation,
        until condition: ([InboxEvent]) -> Bool
    ) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if condition(all) { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        let ok = condition(all)
        if !ok { Issue.record("timed out; events so far: \(all)", sourceLocation: sourceLocation) }
        return ok
    }

    func files(_ activity: FileActivity? = nil) -> Set<String> {
        Set(
            all.compactMap { event in
                if case .file(let path, let found) = event, activity == nil || found == activity { return path }
                return nil
            })
    }

    func stop() async {
        watcher.close()
        let task = task.withLock { $0 }
        await task?.value
    }
}

/// Log lines captured for assertions.
final class LogCapture: Sendable {
    private let lines = Locked<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    var sink: LogSink { LogSink { [lines] line in lines.withLock { $0.append(line) } } }
    func logger(_ level: LogLevel = .debug) -> Logger { Logger(label: "test", level: level, sink: sink) }
}

@Suite("InotifyWatcher, on real folders", .timeLimit(.minutes(3)))
struct InotifyWatcherTests {
    func startWatcher(
        _ inbox: TemporaryFolder, at relative: String = "", options: InotifyWatcher.Options = .init(),
        logger: Logger = .disabled
    ) async throws -> EventCollector {
        let watcher = try InotifyWatcher(inbox: inbox.url(relative), options: options, logger: logger)
        let collector = EventCollector(watcher)
        await collector.wait { $0.contains(.rescanNeeded(.startup)) }
        return collector
    }

    @Test func startupWatchesEveryVisibleFolderAndAsksForARescan() async throws {
        let inbox = try TemporaryFolder("watch-start")
        try inbox.mkdir("Trip/Day 1")
        try inbox.mkdir("Family")
        try inbox.mkdir(".hidden/inner")
        let collector = try await startWatcher(inbox)
        #expect(collector.all.first == .rescanNeeded(.startup))
        // Inbox, Trip, Trip/Day 1, Family; not .hidden nor below it.
        #expect(collector.watcher.status.watchedFolders == 4)
        #expect(collector.watcher.status.maxUserWatches != nil)
        await collector.stop()
    }

    @Test func cpIntoAnAlbumReportsCloseWrite() async throws {
        let inbox = try TemporaryFolder("watch-cp")
        let source = try TemporaryFolder("watch-cp-src")
        try inbox.mkdir("Trip")
        let file = try source.write("a.jpg", String(repeating: "x", count: 100_000))
        let collector = try await startWatcher(inbox)
        try run("/bin/cp", file, inbox.url("Trip/a.jpg"))
        await collector.wait { $0.contains(.file("Trip/a.jpg", .closedWrite)) }
        #expect(collector.files(.created).contains("Trip/a.jpg"))
        await collector.stop()
    }

    @Test func mvOnOneFileSystemReportsOnlyMovedTo() async throws {
        let inbox = try TemporaryFolder("watch-mv")
        let outside = try TemporaryFolder("watch-mv-src")
        let file = try outside.write("b.jpg")
        let collector = try await startWatcher(inbox)
        try run("/bin/mv", file, inbox.url("b.jpg"))
        await collector.wait { $0.contains(.file("b.jpg", .movedIn)) }
        #expect(!collector.files(.closedWrite).contains("b.jpg"))
        await collector.stop()
    }

    @Test func aFolderMovedInWithFilesIsListedRecursively() async throws {
        let inbox = try TemporaryFolder("watch-newdir")
        let outside = try TemporaryFolder("watch-newdir-src")
        for index in 0..<50 { try outside.write("Holiday/IMG_\(index).jpg") }
        try outside.write("Holiday/deeper/still/IMG_deep.jpg")
        try outside.write("Holiday/.hidden/secret.jpg")
        try outside.write("Holiday/upload.part")
        let collector = try await startWatcher(inbox)
        try run("/bin/mv", outside.url("Holiday"), inbox.url("Holiday"))
        var expected = Set((0..<50).map { "Holiday/IMG_\($0).jpg" })
        expected.insert("Holiday/deeper/still/IMG_deep.jpg")
        await collector.wait { _ in collector.files(.listed).isSuperset(of: expected) }
        #expect(collector.files().isDisjoint(with: ["Holiday/.hidden/secret.jpg", "Holiday/upload.part"]))
        // The new folders got watches: a file written into the deepest one now arrives as an event.
        #expect(collector.watcher.status.watchedFolders == 4)
        try inbox.write("Holiday/deeper/still/later.jpg")
        await collector.wait { $0.contains(.file("Holiday/deeper/still/later.jpg", .closedWrite)) }
        await collector.stop()
    }

    @Test func tarLikeBurstIntoABrandNewFolderMissesNothing() async throws {
        let inbox = try TemporaryFolder("watch-tar")
        let collector = try await startWatcher(inbox)
        // As tar -x does: create the folder, then its files right away, before the watcher can add a watch.
        let names = (0..<200).map { "Extracted/sub/file_\($0).jpg" }
        for name in names { try inbox.write(name) }
        await collector.wait { _ in collector.files().isSuperset(of: Set(names)) }
        await collector.stop()
    }

    @Test func realTarExtractionIsSeenCompletely() async throws {
        try skipUnless(FileManager.default.isExecutableFile(atPath: "/bin/tar"), "tar is not installed")
        let inbox = try TemporaryFolder("watch-realtar")
        let staging = try TemporaryFolder("watch-realtar-src")
        for index in 0..<30 { try staging.write("Album/part\(index % 3)/photo_\(index).jpg", "data \(index)") }
        try run("/bin/tar", "-cf", staging.url("a.tar"), "-C", staging.path, "Album")
        let collector = try await startWatcher(inbox)
        try run("/bin/tar", "-xf", staging.url("a.tar"), "-C", inbox.path)
        let expected = Set((0..<30).map { "Album/part\($0 % 3)/photo_\($0).jpg" })
        await collector.wait { _ in collector.files().isSuperset(of: expected) }
        await collector.stop()
    }

    @Test func deletesAndFolderRemovalsAreReported() async throws {
        let inbox = try TemporaryFolder("watch-delete")
        try inbox.write("Trip/a.jpg")
        try inbox.write("Trip/inner/b.jpg")
        try inbox.write("c.jpg")
        let collector = try await startWatcher(inbox)
        try FileManager.default.removeItem(atPath: inbox.url("c.jpg"))
        await collector.wait { $0.contains(.removed("c.jpg")) }
        try FileManager.default.removeItem(atPath: inbox.url("Trip"))
        await collector.wait { $0.contains(.directoryRemoved("Trip")) }
        await collector.wait { _ in collector.watcher.status.watchedFolders == 1 }
        // The album folder comes back: it is a new folder, watched and listed.
        try inbox.write("Trip/again.jpg")
        await collector.wait { _ in collector.files().contains("Trip/again.jpg") }
        try inbox.write("Trip/later.jpg")
        await collector.wait { $0.contains(.file("Trip/later.jpg", .closedWrite)) }
        await collector.stop()
    }

    @Test func tempNamesAreSilentUntilRenamed() async throws {
        let inbox = try TemporaryFolder("watch-temp")
        try inbox.mkdir("Trip")
        let collector = try await startWatcher(inbox)
        try inbox.write("Trip/.IMG_1.jpg.Xy12Ab", "rsync temp")
        try inbox.write("Trip/IMG_2.jpg.part", "samba temp")
        try inbox.write("Trip/IMG_3.jpg.crdownload", "chrome temp")
        try inbox.write("Trip/notes.txt~", "backup")
        try run("/bin/mv", inbox.url("Trip/.IMG_1.jpg.Xy12Ab"), inbox.url("Trip/IMG_1.jpg"))
        try run("/bin/mv", inbox.url("Trip/IMG_2.jpg.part"), inbox.url("Trip/IMG_2.jpg"))
        await collector.wait {
            $0.contains(.file("Trip/IMG_1.jpg", .movedIn)) && $0.contains(.file("Trip/IMG_2.jpg", .movedIn))
        }
        let seen = collector.files().union(
            collector.all.compactMap { if case .removed(let path) = $0 { return path } else { return nil } })
        #expect(seen.allSatisfy { $0 == "Trip/IMG_1.jpg" || $0 == "Trip/IMG_2.jpg" }, "\(seen)")
        await collector.stop()
    }

    @Test func ownMovesOutOfTheInboxAreOnlyRemovals() async throws {
        let inbox = try TemporaryFolder("watch-claim")
        let claimed = try TemporaryFolder("watch-claim-dst")
        try inbox.write("Trip/a.jpg")
        let collector = try await startWatcher(inbox)
        #expect(rename(inbox.url("Trip/a.jpg"), claimed.url("a.jpg")) == 0)
        await collector.wait { $0.contains(.removed("Trip/a.jpg")) }
        var tracker = SettleTracker<ContinuousClock.Instant>(settle: .seconds(2), incompleteGrace: .seconds(300))
        #expect(tracker.forget(path: "Trip/a.jpg") == false)  // harmless for a path nobody tracks
        await collector.stop()
    }

    @Test("photodrop's own claims and put-backs (renames to and from its staging folder) are not reported back")
    func ownClaimsAndPutBacksAreNotReported() async throws {
        for filtered in [true, false] {
            let inbox = try TemporaryFolder("watch-own")
            let outside = try TemporaryFolder("watch-own-outside")
            try inbox.write(".photodrop/claimed/.keep")
            // A burst large enough that its records span several reads of the watcher's buffer.
            let names = (0..<1500).map { "Trip/IMG_\($0).jpg" }
            for name in names { try inbox.write(name) }
            try inbox.write("Trip/user.jpg")
            try outside.write("new.jpg")
            let options = InotifyWatcher.Options(stagingFolder: filtered ? ".photodrop/claimed" : nil)
            let collector = try await startWatcher(inbox, options: options)
            // Claims: into the staging folder; one put back; a user's move out and in.
            for (index, name) in names.enumerated() {
                #expect(rename(inbox.url(name), inbox.url(".photodrop/claimed/\(index)")) == 0)
            }
            #expect(rename(inbox.url(".photodrop/claimed/0"), inbox.url(names[0])) == 0)
            #expect(rename(inbox.url("Trip/user.jpg"), outside.url("user.jpg")) == 0)
            #expect(rename(outside.url("new.jpg"), inbox.url("Trip/new.jpg")) == 0)
            try inbox.write("Trip/last.jpg")
            await collector.wait { $0.contains(.file("Trip/last.jpg", .closedWrite)) }
            let removed = Set(collector.all.compactMap { if case .removed(let path) = $0 { path } else { nil } })
            let movedIn = collector.files(.movedIn)
            // A user's moves are always news.
            #expect(removed.contains("Trip/user.jpg"))
            #expect(movedIn.contains("Trip/new.jpg"))
            if filtered {
                #expect(removed == ["Trip/user.jpg"], "own claims reported: \(removed.count - 1)")
                #expect(movedIn == ["Trip/new.jpg"])
            } else {
                // Without the staging folder named, the same renames are reported: the filter above is what hides them.
                #expect(removed.count == names.count + 1)
                #expect(movedIn == ["Trip/new.jpg", names[0]])
            }
            await collector.stop()
        }
    }

    @Test func aRemovedInboxIsWaitedForAndRescannedWhenBack() async throws {
        let parent = try TemporaryFolder("watch-root")
        let inboxPath = parent.url("Inbox")
        try parent.mkdir("Inbox/Trip")
        let watcher = try InotifyWatcher(
            inbox: inboxPath, options: .init(inboxPollInterval: .milliseconds(50)))
        let collector = EventCollector(watcher)
        await collector.wait { $0.contains(.rescanNeeded(.startup)) }
        try FileManager.default.removeItem(atPath: inboxPath)
        await collector.wait { $0.contains(.directoryRemoved("")) }
        #expect(watcher.status.inboxPresent == false)
        try parent.mkdir("Inbox/Back")
        await collector.wait { $0.contains(.rescanNeeded(.inboxRecreated)) }
        #expect(watcher.status.watchedFolders == 2)
        try parent.write("Inbox/Back/new.jpg")
        await collector.wait { $0.contains(.file("Back/new.jpg", .closedWrite)) }
        // Moved away (not deleted) works the same: the old watches must not report the moved tree.
        #expect(rename(inboxPath, parent.url("Moved")) == 0)
        await collector.wait { $0.filter { $0 == .directoryRemoved("") }.count == 2 }
        try parent.write("Moved/Back/ghost.jpg")
        try parent.mkdir("Inbox")
        await collector.wait { $0.filter { $0 == .rescanNeeded(.inboxRecreated) }.count == 2 }
        #expect(!collector.files().contains("Back/ghost.jpg"))
        await collector.stop()
    }

    @Test func renamingAParentOfTheInboxIsNoticed() async throws {
        // inotify reports nothing for a renamed ancestor; the periodic identity check does.
        let parent = try TemporaryFolder("watch-parent")
        try parent.mkdir("srv/Inbox/Trip")
        let watcher = try InotifyWatcher(
            inbox: parent.url("srv/Inbox"), options: .init(inboxPollInterval: .milliseconds(50)))
        let collector = EventCollector(watcher)
        await collector.wait { $0.contains(.rescanNeeded(.startup)) }
        #expect(rename(parent.url("srv"), parent.url("srv-old")) == 0)
        await collector.wait { $0.contains(.directoryRemoved("")) }
        try parent.write("srv-old/Inbox/Trip/ghost.jpg")
        try parent.mkdir("srv/Inbox")
        await collector.wait { $0.contains(.rescanNeeded(.inboxRecreated)) }
        try parent.write("srv/Inbox/new.jpg")
        await collector.wait { $0.contains(.file("new.jpg", .closedWrite)) }
        #expect(!collector.files().contains("Trip/ghost.jpg"))
        await collector.stop()
    }

    @Test func anInboxPathThatIsASymbolicLinkIsFollowed() async throws {
        let parent = try TemporaryFolder("watch-symlink")
        try parent.mkdir("real/Trip")
        #expect(symlink(parent.url("real"), parent.url("Inbox")) == 0)
        let collector = try await startWatcher(parent, at: "Inbox")
        #expect(collector.watcher.status.watchedFolders == 2)
        try parent.write("real/Trip/a.jpg")
        await collector.wait { $0.contains(.file("Trip/a.jpg", .closedWrite)) }
        // A link inside the inbox is not followed.
        try parent.mkdir("elsewhere")
        #expect(symlink(parent.url("elsewhere"), parent.url("real/Linked")) == 0)
        try parent.write("elsewhere/b.jpg")
        try await Task.sleep(for: .milliseconds(100))
        #expect(!collector.files().contains("Linked/b.jpg"))
        #expect(collector.watcher.status.watchedFolders == 2)
        await collector.stop()
    }

    @Test func aMissingInboxAtStartIsWaitedFor() async throws {
        let parent = try TemporaryFolder("watch-missing")
        let watcher = try InotifyWatcher(
            inbox: parent.url("Inbox"), options: .init(inboxPollInterval: .milliseconds(50)))
        let collector = EventCollector(watcher)
        try await Task.sleep(for: .milliseconds(120))
        #expect(collector.all.isEmpty)
        try parent.mkdir("Inbox")
        await collector.wait { $0.contains(.rescanNeeded(.inboxRecreated)) }
        await collector.stop()
    }

    @Test func watchLimitFallsBackToPollingAndSaysSoOnce() async throws {
        let inbox = try TemporaryFolder("watch-limit")
        try inbox.mkdir("A")
        try inbox.mkdir("B")
        try inbox.mkdir("C")
        let log = LogCapture()
        let options = InotifyWatcher.Options(
            fallbackRescanInterval: .milliseconds(150), simulatedWatchLimit: 2)
        let collector = try await startWatcher(inbox, options: options, logger: log.logger())
        let status = collector.watcher.status
        #expect(status.watchedFolders == 2)
        #expect(status.unwatchedFolders == 2)
        // Whichever folders did not get a watch: their files are found by the periodic rescan, and so are files in
        // a folder created inside them later.
        for folder in ["A", "B", "C"] {
            try inbox.write("\(folder)/one.jpg")
            try inbox.write("\(folder)/new/two.jpg")
        }
        let expected: Set<String> = [
            "A/one.jpg", "B/one.jpg", "C/one.jpg", "A/new/two.jpg", "B/new/two.jpg", "C/new/two.jpg",
        ]
        await collector.wait { _ in collector.files().isSuperset(of: expected) }
        #expect(collector.files(.polled).count >= 2)
        let warnings = log.all.filter { $0.contains("max_user_watches") && $0.contains("warning") }
        #expect(warnings.count == 1, "\(log.all)")
        #expect(warnings.first?.contains("sysctl") == true)
        await collector.stop()
    }

    @Test(.requires(SysctlOverride.canWrite, "needs root to lower fs.inotify.max_queued_events"))
    func queueOverflowAsksForARescan() async throws {
        let inbox = try TemporaryFolder("watch-overflow")
        try inbox.mkdir("Trip")
        // max_queued_events is read when an inotify instance is created: lower it just for this one.
        let watcher = try SysctlOverride.withValue("16", at: SysctlOverride.maxQueuedEvents) {
            try InotifyWatcher(inbox: inbox.path)
        }
        for index in 0..<100 { try inbox.write("Trip/f\(index).jpg") }
        let collector = EventCollector(watcher)
        await collector.wait { $0.contains(.rescanNeeded(.overflow)) }
        #expect(watcher.status.watchedFolders == 2)
        try inbox.write("Trip/after.jpg")
        await collector.wait { $0.contains(.file("Trip/after.jpg", .closedWrite)) }
        await collector.stop()
    }

    @Test func closeEndsTheIteration() async throws {
        let inbox = try TemporaryFolder("watch-close")
        let watcher = try InotifyWatcher(inbox: inbox.path)
        let task = Task {
            var count = 0
            for await _ in watcher { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(50))
        watcher.close()
        #expect(await task.value == 1)  // the startup rescan, then the end
    }

    @Test func cancellingTheConsumerEndsTheIteration() async throws {
        let inbox = try TemporaryFolder("watch-cancel")
        let watcher = try InotifyWatcher(inbox: inbox.path)
        let task = Task {
            var count = 0
            for await _ in watcher { count += 1 }
            return count
        }
        try await Task.sleep(for: .milliseconds(50))
        task.cancel()
        #expect(await task.value == 1)
    }
}

/// Temporarily changes a sysctl (as root), restoring it right away.
enum SysctlOverride {
    static let maxQueuedEvents = "/proc/sys/fs/inotify/max_queued_events"

    static var canWrite: Bool { geteuid() == 0 && access(maxQueuedEvents, W_OK) == 0 }

    static func withValue<T>(_ value: String, at path: String, _ body: () throws -> T) throws -> T {
        let original = try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        try value.write(toFile: path, atomically: false, encoding: .utf8)
        defer { try? original.write(toFile: path, atomically: false, encoding: .utf8) }
        return try body()
    }
}

@Suite("InotifyRecord decoding", .timeLimit(.minutes(3)))
struct InotifyRecordTests {
    func record(watch: Int32, mask: UInt32, cookie: UInt32 = 0, name: [UInt8], padTo length: Int) -> [UInt8] {
        var bytes: [UInt8] = []
        withUnsafeBytes(of: watch) { bytes += $0 }
        withUnsafeBytes(of: mask) { bytes += $0 }
        withUnsafeBytes(of: cookie) { bytes += $0 }
        withUnsafeBytes(of: UInt32(length)) { bytes += $0 }
        bytes += name + [UInt8](repeating: 0, count: length - name.count)
        return bytes
    }

    @Test func decodesNamesPaddingAndOverflowRecords() {
        var bytes = record(watch: 3, mask: UInt32(IN_CLOSE_WRITE), name: Array("IMG_1.jpg".utf8), padTo: 16)
        bytes += record(watch: -1, mask: UInt32(IN_Q_OVERFLOW), name: [], padTo: 0)
        bytes += record(watch: 7, mask: UInt32(IN_MOVED_TO), cookie: 42, name: Array("Café".utf8), padTo: 32)
        bytes += record(watch: 7, mask: UInt32(IN_CREATE), name: [0x66, 0xFF, 0x66], padTo: 16)
        bytes += [1, 2, 3]  // a truncated tail is ignored
        let records = bytes.withUnsafeBytes { InotifyRecord.decode($0) }
        #expect(records.count == 4)
        #expect(
            records[0]
                == InotifyRecord(
                    watch: 3, mask: UInt32(IN_CLOSE_WRITE), cookie: 0, name: "IMG_1.jpg",
                    nameIsValidUTF8: true))
        #expect(records[1].watch == -1 && records[1].name.isEmpty && records[1].nameIsValidUTF8)
        #expect(records[2].name == "Café" && records[2].cookie == 42)
        #expect(records[3].nameIsValidUTF8 == false)
    }

    @Test func misalignedBuffersDecode() {
        let bytes = [0] + record(watch: 9, mask: UInt32(IN_ATTRIB), name: Array("x".utf8), padTo: 16)
        let records = bytes.withUnsafeBytes { InotifyRecord.decode(UnsafeRawBufferPointer(rebasing: $0[1...])) }
        #expect(records.map(\.name) == ["x"])
    }
}

@Suite("WatchTable", .timeLimit(.minutes(3)))
struct WatchTableTests {
    @Test func subtreeRemovalAndReusedDescriptors() {
        var table = WatchTable()
        table.insert(watch: 1, path: "")
        table.insert(watch: 2, path: "Trip")
        table.insert(watch: 3, path: "Trip/Day 1")
        table.insert(watch: 4, path: "Trips")
        #expect(Set(table.removeSubtree("Trip")) == [2, 3])
        #expect(table.path(for: 4) == "Trips")
        table.insert(watch: 4, path: "Renamed")  // same inode added again under a new name
        #expect(table.watch(for: "Trips") == nil && table.path(for: 4) == "Renamed")
        #expect(table.remove(watch: 1) == "")
        #expect(table.count == 1)
    }
}
