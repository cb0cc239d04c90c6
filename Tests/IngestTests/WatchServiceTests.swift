import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

@testable import Ingest
import PhotodropTelemetry
import PhotodropConfiguration

/// The daemon in-process, with a tiny settle tracker, to exercise the bounded-memory path: arrivals beyond the
/// tracker's capacity are left to folder rescans and still all end up in the library.
@Suite("Watch service", .timeLimit(.minutes(5)))
struct WatchServiceTests {
    @Test func arrivalsBeyondTheTrackerCapacityAreFoundByFolderRescans() async throws {
        let folder = try TemporaryFolder("service")
        var config = IngestConfig(baseDirectory: folder.path)
        config.settleMilliseconds = 100  // files pile up in the tracker while they settle
        config.workers = 2
        try FileManager.default.createDirectory(atPath: config.inbox, withIntermediateDirectories: true)
        let lines = Locked<[String]>([])
        let logger = Logger(label: "test", level: .info, format: .text, sink: LogSink { line in lines.withLock { $0.append(line) } })
        let service = WatchService(
            config: config, logger: logger, options: WatchService.Options(trackerCapacity: 16))
        let running = Task { try await service.run() }
        // In process, the daemon starts on the same few threads as every other test of the suite: when others hold
        // them (a decoder, a program being waited for), starting takes longer than it would alone. How long it
        // takes is not what this test is about.
        #expect(await eventually(timeout: 150) { lines.value.contains { $0.contains("photodrop watch started") } })

        // 3 albums × 60 files appear at once (each created under a temp name, then renamed in).
        for album in 0..<3 {
            let albumFolder = config.inbox + "/Album \(album)"
            try FileManager.default.createDirectory(atPath: albumFolder, withIntermediateDirectories: true)
            for index in 0..<60 {
                let temporary = albumFolder + "/.IMG_\(index).jpg.tmp"
                try Data(JPEGFixture.bytes(album * 1000 + index)).write(to: URL(fileURLWithPath: temporary))
                rename(temporary, albumFolder + "/IMG_\(index).jpg")
            }
        }
        let library = PhotoLibrary(url: URL(fileURLWithPath: config.library))
        let done = await eventually(timeout: 60) {
            ((try? Asset.fetchAssets(library: library).count) ?? 0) == 180
        }
        service.requestStop()
        try await running.value
        #expect(done, "\((try? Asset.fetchAssets(library: library).count) ?? 0) of 180 stored")
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library)
        #expect(albums.map(\.title).sorted() == ["Album 0", "Album 1", "Album 2"])
        #expect(try albums.allSatisfy { try Asset.fetchAssets(in: $0).count == 60 })
        #expect(lines.value.contains { $0.contains("rescans of their folders") }, "the capacity was never reached")
        #expect(try library.journalEntries(kind: ClaimJournal.kind).isEmpty)
    }

    /// An inbox on NFS, SMB or another network file system gets no inotify event for the files other machines write
    /// there, so it is rescanned on an interval of its own. CI has no NFS server: this test forces polling with
    /// `poll` (the path a network file system takes too, chosen by `statfs` instead of the key).
    @Test("a polled inbox is rescanned every rescanSeconds, stores what arrives, and status says it is polled")
    func aPolledInboxIsRescannedOnItsInterval() async throws {
        let folder = try TemporaryFolder("service-polled")
        var config = IngestConfig(baseDirectory: folder.path)
        config.settleMilliseconds = 100
        config.poll = true
        config.rescanSeconds = 1
        try FileManager.default.createDirectory(atPath: config.inbox, withIntermediateDirectories: true)
        let lines = Locked<[String]>([])
        let logger = Logger(label: "test", level: .debug, format: .text, sink: LogSink { line in lines.withLock { $0.append(line) } })
        let service = WatchService(config: config, logger: logger)
        let running = Task { try await service.run() }
        #expect(await eventually(timeout: 150) { lines.value.contains { $0.contains("photodrop watch started") } })
        #expect(lines.value.contains { $0.contains("the inbox is polled") && $0.contains("rescan_s=1") })
        // Every second; on a loaded run the loop may turn later, so the count is judged over a generous window.
        #expect(await eventually(timeout: 90) {
            lines.value.filter { $0.contains("periodic rescan of the inbox") }.count >= 3
        }, "rescanned again and again")
        let watches = try #require(service.metrics().watches)
        #expect(watches.polledInbox == "poll" && watches.rescanSeconds == 1)
        try FileManager.default.createDirectory(atPath: config.inbox + "/Polled", withIntermediateDirectories: true)
        try Data(JPEGFixture.bytes(77)).write(to: URL(fileURLWithPath: config.inbox + "/Polled/a.jpg"))
        let library = PhotoLibrary(url: URL(fileURLWithPath: config.library))
        let stored = await eventually(timeout: 60) { ((try? Asset.fetchAssets(library: library).count) ?? 0) == 1 }
        service.requestStop()
        try await running.value
        #expect(stored)
        // What decides it without the key: the file system's kind, from statfs.
        #expect(FileSystemKind(magic: 0x6969).isRemote && FileSystemKind(magic: 0x6969).description == "nfs")
        #expect(FileSystemKind(magic: 0xFF53_4D42).isRemote)
        #expect(try !FileSystemKind.of(folder.path).isRemote, "the test's own folder is local")
    }

    /// The kernel drops inotify events beyond `max_queued_events` and says only "overflow": the daemon must rescan
    /// and take every file whose events were lost. The limit is lowered only while the daemon's inotify instance is
    /// made (the kernel reads it then).
    @Test(.requires(SysctlOverride.canWrite, "needs root to lower fs.inotify.max_queued_events"))
    func filesLostToAQueueOverflowAreStoredAfterTheRescan() async throws {
        let folder = try TemporaryFolder("service-overflow")
        var config = IngestConfig(baseDirectory: folder.path)
        config.settleMilliseconds = 50
        config.workers = 2
        try FileManager.default.createDirectory(atPath: config.inbox + "/Burst", withIntermediateDirectories: true)
        let staging = folder.url("staging")
        try FileManager.default.createDirectory(atPath: staging, withIntermediateDirectories: true)
        let count = 300
        for index in 0..<count {
            try Data(JPEGFixture.bytes(5000 + index)).write(to: URL(fileURLWithPath: staging + "/IMG_\(index).jpg"))
        }
        let lines = Locked<[String]>([])
        let logger = Logger(label: "test", level: .info, format: .text, sink: LogSink { line in lines.withLock { $0.append(line) } })
        // The lowered limit holds only while the daemon's inotify instance is made, so that no other test's watcher
        // gets the tiny queue.
        var options = WatchService.Options()
        options.watcher.instance = try SysctlOverride.withValue("16", at: SysctlOverride.maxQueuedEvents) { try Inotify() }
        let service = WatchService(config: config, logger: logger, options: options)
        let running = Task { try await service.run() }
        let started = await eventually(timeout: 150) { lines.value.contains { $0.contains("photodrop watch started") } }
        #expect(started)
        // 300 renames at once: far more events than a queue of 16 holds.
        for index in 0..<count {
            rename(staging + "/IMG_\(index).jpg", config.inbox + "/Burst/IMG_\(index).jpg")
        }
        let library = PhotoLibrary(url: URL(fileURLWithPath: config.library))
        let done = await eventually(timeout: 60) {
            ((try? Asset.fetchAssets(library: library).count) ?? 0) == count
        }
        service.requestStop()
        try await running.value
        #expect(lines.value.contains { $0.contains("inotify queue overflow") }, "the queue never overflowed")
        #expect(done, "\((try? Asset.fetchAssets(library: library).count) ?? 0) of \(count) stored")
        #expect(try FileManager.default.contentsOfDirectory(atPath: config.inbox + "/Burst").isEmpty)
    }
}
