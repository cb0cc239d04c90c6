import Foundation
import PhotoCatalog
import TestFixtures
import Testing

/// Six `photodrop watch` nodes and a `serve` on one library, its catalog in a PostgreSQL server of the test's own:
/// three nodes share one inbox, three have inboxes of their own. A burst of 10,000 files (8,000 photos and 2,000
/// copies of them dropped into other nodes' inboxes) arrives while one shared-inbox node is killed with `kill -9` (its
/// claimed files are taken over by the others after its lease), one own-inbox node is killed and started again (it
/// finishes its files itself), and PostgreSQL is stopped for 10 s and started again. Every photo must end stored
/// exactly once, in its folder's one album, and `serve` must have streamed every node's commits.
///
/// It takes both cores for minutes, which would starve the time limits of the tests beside it: it runs on its own,
/// when `PHOTODROP_SCALE_TESTS=1` (`.ci/run` runs it after the suite, against the release build:
/// `PHOTODROP_SCALE_TESTS=1 swift test --skip-build --filter MultiNodeScaleTests`).
@Suite(
    "several nodes at scale: 3 on a shared inbox, 3 on their own, a 10,000-file burst through failures",
    .serialized, .timeLimit(.minutes(20)),
    .enabled(
        if: ProcessInfo.processInfo.environment["PHOTODROP_SCALE_TESTS"] == "1",
        "runs on its own: PHOTODROP_SCALE_TESTS=1 swift test --filter MultiNodeScaleTests"),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"),
    .requires(PostgresCluster.canStart, "PostgreSQL's server programs are not installed (.ci/run installs postgresql)"))
struct MultiNodeScaleTests {
    static let photos = 8_000
    static let copies = 2_000
    static let albums = 10
    static let lease = 15

    /// The settings of node `id`: the shared library and rejected folder of `base`, and `inbox`.
    static func settings(_ id: String, catalog: String, base: Sandbox, inbox: URL) -> [String: Any] {
        [
            "library": base.library.path, "inbox": inbox.path, "rejected": base.rejected.path,
            "catalog": ["postgres": catalog], "node": id, "settleMilliseconds": 200, "pairWaitSeconds": 0,
            "claimLeaseSeconds": lease, "log": ["format": "json", "level": "info"],
        ]
    }

    @Test("every file exactly once through two kill -9s and a 10 s database outage; one album per folder; serve sees it all")
    func burstThroughFailures() async throws {
        let cluster = try await PostgresCluster("scale")
        defer { cluster.stop() }
        let catalog = cluster.connectionString()
        let base = try Sandbox("scale-base", settings: ["catalog": ["postgres": catalog], "node": "base"])
        let sharedInbox = base.inbox
        let ownInboxes = (1...3).map { base.root.appendingPathComponent("Inbox-own\($0)") }
        let inboxes = [sharedInbox] + ownInboxes
        for inbox in inboxes { try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true) }

        // The drops, made before anything runs, in a staging folder on the inboxes' file system: photo i goes to
        // inbox i % 4 and folder Album-(i % 10); 2,000 copies of photos go to another inbox, same folder.
        let staging = base.root.appendingPathComponent("staging")
        var drops: [(from: URL, to: URL)] = []
        for index in 0..<Self.photos {
            let folder = "Album-\(index % Self.albums)"
            let file = staging.appendingPathComponent("\(index % 4)/\(folder)/IMG_\(index).jpg")
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(TinyJPEG.bytes(index)).write(to: file)
            drops.append((file, inboxes[index % 4].appendingPathComponent("\(folder)/IMG_\(index).jpg")))
        }
        for copy in 0..<Self.copies {
            let original = copy * 4 + (copy % 4)
            let folder = "Album-\(original % Self.albums)"
            let target = (original % 4 + 1 + copy % 3) % 4
            let file = staging.appendingPathComponent("copies/\(copy).jpg")
            try FileManager.default.createDirectory(
                at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(TinyJPEG.bytes(original)).write(to: file)
            drops.append((file, inboxes[target].appendingPathComponent("\(folder)/COPY_\(copy).jpg")))
        }
        drops.shuffle()
        // The same new folder in all four inboxes at the same instant: four nodes make its album at once.
        var together: [(from: URL, to: URL)] = []
        for (number, inbox) in inboxes.enumerated() {
            let folder = staging.appendingPathComponent("together\(number)")
            _ = try TinyJPEG.write(count: 5, startingAt: 100_000 + number * 5, into: folder)
            together.append((folder, inbox.appendingPathComponent("Together")))
        }

        // Six nodes and a server.
        var sandboxes: [String: Sandbox] = [:]
        var daemons: [String: WatchDaemon] = [:]
        for (id, inbox) in [("shared1", sharedInbox), ("shared2", sharedInbox), ("shared3", sharedInbox)]
            + zip(["own1", "own2", "own3"], ownInboxes).map({ ($0, $1) })
        {
            let sandbox = try Sandbox("scale-\(id)")
            try sandbox.writeConfig(Self.settings(id, catalog: catalog, base: base, inbox: inbox))
            sandboxes[id] = sandbox
            daemons[id] = try WatchDaemon(sandbox)
        }
        for daemon in daemons.values { try await MultiNodeTests.waitUntilWatching(daemon, timeout: 120) }
        let web = try Sandbox("scale-web")
        let token = "scale-token-0123456789abcdef"
        var webSettings = Self.settings("web", catalog: catalog, base: base, inbox: web.inbox)
        webSettings["serve"] = ["listen": "127.0.0.1:0", "token": token]
        try web.writeConfig(webSettings)
        let server = try await ServeProcess(web)
        let events = web.root.appendingPathComponent("events.txt")
        _ = FileManager.default.createFile(atPath: events.path, contents: nil)
        let stream = Process()
        stream.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        stream.arguments = ["-s", "-N", "-H", "Authorization: Bearer \(token)", server.base + "/api/events"]
        stream.standardOutput = try FileHandle(forWritingTo: events)
        try stream.run()
        defer { if stream.isRunning { stream.terminate(); stream.waitUntilExit() } }
        await pause(500_000)

        // The burst: 250 renames every 100 ms (about 4 s), the Together folders at the same instant a quarter in.
        let started = Date()
        var killedShared: [String] = []
        var outage: Task<Int32, any Error>?
        for (chunkNumber, chunk) in stride(from: 0, to: drops.count, by: 250).enumerated() {
            for drop in drops[chunk..<min(chunk + 250, drops.count)] {
                try FileManager.default.createDirectory(
                    at: drop.to.deletingLastPathComponent(), withIntermediateDirectories: true)
                try FileManager.default.moveItem(at: drop.from, to: drop.to)
            }
            switch chunkNumber {
            case 10:
                for move in together { try FileManager.default.moveItem(at: move.from, to: move.to) }
            case 12:
                // A shared-inbox node dies holding claimed files: the others take them over after its lease.
                killedShared = try await Self.killWhileHolding(
                    try #require(daemons["shared2"]), claimed: sharedInbox.appendingPathComponent(".photodrop/claimed/shared2"))
            case 16:
                // An own-inbox node dies and is started again 5 s later: it finishes its own files.
                try #require(daemons["own2"]).kill9()
                try await Task.sleep(for: .seconds(5))
                daemons["own2"] = try WatchDaemon(try #require(sandboxes["own2"]))
            case 20:
                // The database goes away for 10 s while files keep coming.
                outage = Task { try await cluster.restart(after: 10) }
            default:
                break
            }
            await pause(100_000)
        }
        _ = try await outage?.value
        print("multi-node scale: burst dropped in \(Date().timeIntervalSince(started)) s")

        // Everything ends stored: no file left in any inbox (staging folders of every node included).
        let deadline = Date().addingTimeInterval(600)
        func left() -> Int { inboxes.reduce(0) { $0 + MultiNodeTests.filesLeft(in: $1).count } }
        while left() > 0 && Date() < deadline { await pause(500_000) }
        print("multi-node scale: all stored \(Date().timeIntervalSince(started)) s after the burst began")
        #expect(left() == 0, "left: \(inboxes.flatMap { MultiNodeTests.filesLeft(in: $0).prefix(10) })")
        // Claims taken over from the killed node whose file it had not moved yet are settled within a lease.
        let library = PhotoLibrary(url: base.library, catalog: .postgres(connectionString: catalog))
        func claimsLeft() throws -> Int {
            try sandboxes.keys.reduce(0) { $0 + (try library.journalEntries(kind: "claim:\($1)").count) }
        }
        let settled = Date().addingTimeInterval(Double(Self.lease) * 4)
        while try claimsLeft() > 0 && Date() < settled { await pause(500_000) }
        await pause(1_500_000)  // the last commits' events
        let streamAlive = stream.isRunning
        try await server.process.stop()
        var logs = ""
        for (id, daemon) in daemons.sorted(by: { $0.key < $1.key }) where id != "shared2" {
            let status = try await daemon.stop()
            #expect(status == 0, "\(id) exited \(status):\n\(daemon.log.suffix(4000))")
            logs += daemon.log
        }

        let assets = try Asset.fetchAssets(with: nil, library: library).objects
        let expected = Set((0..<Self.photos).map { sha256Hex(Data(TinyJPEG.bytes($0))) })
            .union((100_000..<100_020).map { sha256Hex(Data(TinyJPEG.bytes($0))) })
        #expect(assets.count == expected.count, "each photo exactly once")
        #expect(Set(assets.map(\.sha256)) == expected)
        #expect(base.files(under: base.library.appendingPathComponent("originals")).count == expected.count)
        #expect(base.files(under: base.rejected).isEmpty, "nothing rejected: \(base.files(under: base.rejected).prefix(10))")
        // One album per folder, whichever nodes made it at once; each holds its photos.
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).objects
        #expect(albums.map(\.title).sorted() == ((0..<Self.albums).map { "Album-\($0)" } + ["Together"]).sorted())
        for album in albums {
            let count = try Asset.fetchAssets(in: album, options: nil).count
            #expect(count == (album.title == "Together" ? 20 : Self.photos / Self.albums), "\(album.title)")
        }
        // No claim is left in any node's journal.
        for id in sandboxes.keys {
            let left = try library.journalEntries(kind: "claim:\(id)")
            #expect(left.isEmpty, "\(id): \(left.count) claims left, e.g. \(left.prefix(2).map { String(decoding: $0.payload, as: UTF8.self) })")
        }
        // The killed shared-inbox node held claimed files, and a node beside it took them over.
        print("multi-node scale: shared2 held \(killedShared.count) claimed files when it was killed")
        #expect(!killedShared.isEmpty, "shared2 claimed nothing before it was killed")
        #expect(logs.contains("took over files another node had claimed") && logs.contains("\"from_node\":\"shared2\""))
        // serve streamed every node's commits, the ones after the outage too: every asset was in an event.
        let text = (try? String(contentsOf: events, encoding: .utf8)) ?? ""
        var inserted = Set<String>()
        for line in text.split(separator: "\n") where line.hasPrefix("data: ") {
            guard let data = try? JSONSerialization.jsonObject(with: Data(line.dropFirst(6).utf8)) as? [String: Any],
                let ids = (data["assets"] as? [String: Any])?["inserted"] as? [String]
            else { continue }
            inserted.formUnion(ids)
        }
        let missing = Set(assets.map(\.localIdentifier)).subtracting(inserted)
        #expect(missing.isEmpty, "\(missing.count) of \(assets.count) assets never streamed, e.g. \(missing.prefix(3))")
        #expect(streamAlive, "the event stream ended before the test did (through the database's outage, it must not)")
        // And the library checks out against its files.
        let verify = try await base.run(["verify"], timeout: 300)
        #expect(verify.status == 0, "\(verify)")
    }

    /// Stops `daemon` the moment its staging folder holds claimed files, kills it with `kill -9`, and returns what it
    /// held (empty if it never claimed anything within 30 s).
    static func killWhileHolding(_ daemon: WatchDaemon, claimed: URL) async throws -> [String] {
        let deadline = Date().addingTimeInterval(30)
        var held: [String] = []
        while Date() < deadline {
            held = (try? FileManager.default.contentsOfDirectory(atPath: claimed.path)) ?? []
            if !held.isEmpty { break }
            await pause(1_000)
        }
        kill(daemon.pid, SIGSTOP)
        held = (try? FileManager.default.contentsOfDirectory(atPath: claimed.path)) ?? []
        daemon.kill9()
        return held
    }
}
