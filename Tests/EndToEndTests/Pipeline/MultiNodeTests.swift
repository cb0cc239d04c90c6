import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

@testable import Ingest

/// Several `photodrop watch` nodes on one library, its catalog in a real PostgreSQL server the suite starts itself
/// (``SharedPostgres``), its folders shared (here: one machine's file system, which every node sees).
@Suite(
    "several nodes on one PostgreSQL catalog",
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"),
    .requires(PostgresCluster.canStart, "PostgreSQL's server programs are not installed (.ci/run installs postgresql)"),
    ProcessBudget.endToEnd, .timeLimit(.minutes(5)))
struct MultiNodeTests {
    /// A node's sandbox: its own config.json (its node id), the library, inbox and rejected folders of `shared` (or
    /// of its own when `shared` is nil).
    static func node(
        _ id: String, catalog: String, sharing shared: Sandbox? = nil, lease: Int? = nil, extra: [String: Any] = [:]
    ) throws -> Sandbox {
        var settings: [String: Any] = [
            "catalog": ["postgres": catalog], "node": id, "settleMilliseconds": 100, "pairWaitSeconds": 0,
        ].merging(extra) { _, new in new }
        if let lease { settings["claimLeaseSeconds"] = lease }
        if let shared {
            settings["library"] = shared.library.path
            settings["inbox"] = shared.inbox.path
            settings["rejected"] = shared.rejected.path
        }
        return try Sandbox("node-\(id)", settings: settings)
    }

    /// Waits until `daemon` logged that it watches.
    static func waitUntilWatching(_ daemon: WatchDaemon, timeout: TimeInterval = 60) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while Date() < deadline {
            if daemon.logLines.contains(where: { ($0["message"] as? String) == "photodrop watch started" }) { return }
            guard daemon.isRunning else { throw HarnessError("watch exited at start:\n\(daemon.log)") }
            await pause(50_000)
        }
        throw HarnessError("watch did not start within \(timeout) s:\n\(daemon.log)")
    }

    /// Files left in the inbox (every folder, staging folders of every node included).
    static func filesLeft(in inbox: URL) -> [String] {
        guard let walk = FileManager.default.enumerator(atPath: inbox.path) else { return [] }
        var files: [String] = []
        while let next = walk.nextObject() as? String {
            if (walk.fileAttributes?[.type] as? FileAttributeType) == .typeRegular { files.append(next) }
        }
        return files
    }

    @Test("two nodes on one shared inbox: every file stored once, a copy dropped on both is one asset, one album")
    func sharedInbox() async throws {
        let catalog = try await SharedPostgres.newDatabase("multinode")
        let first = try Self.node("alpha", catalog: catalog)
        let second = try Self.node("beta", catalog: catalog, sharing: first)
        let alpha = try WatchDaemon(first)
        try await Self.waitUntilWatching(alpha)
        let beta = try WatchDaemon(second)
        try await Self.waitUntilWatching(beta)

        // 120 distinct photos and 30 copies of some of them under other names, renamed into the shared inbox's album
        // folder in one go (as a sync client does), so that both nodes see every file settle at once.
        let staging = first.root.appendingPathComponent("staging")
        let photos = try TinyJPEG.write(count: 120, into: staging)
        for index in 0..<30 {
            try FileManager.default.copyItem(
                at: photos[index * 4], to: staging.appendingPathComponent("COPY_\(index).jpg"))
        }
        let album = first.inbox.appendingPathComponent("Trip")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        for name in try FileManager.default.contentsOfDirectory(atPath: staging.path) {
            try FileManager.default.moveItem(
                at: staging.appendingPathComponent(name), to: album.appendingPathComponent(name))
        }

        let deadline = Date().addingTimeInterval(120)
        while !Self.filesLeft(in: first.inbox).isEmpty && Date() < deadline { await pause(100_000) }
        #expect(Self.filesLeft(in: first.inbox).isEmpty, "left in the inbox: \(Self.filesLeft(in: first.inbox))")
        #expect(try await alpha.stop() == 0, "\(alpha.log)")
        #expect(try await beta.stop() == 0, "\(beta.log)")

        // The catalog, read as any node reads it.
        let library = PhotoLibrary(url: first.library, catalog: .postgres(connectionString: catalog))
        let assets = try Asset.fetchAssets(with: nil, library: library).objects
        #expect(assets.count == 120, "one asset per distinct content")
        #expect(Set(assets.map(\.sha256)) == Set((0..<120).map { sha256Hex(Data(TinyJPEG.bytes($0))) }))
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).objects
        #expect(albums.map(\.title) == ["Trip"], "one album for the folder, whichever node made it: \(albums.map { ($0.localIdentifier, $0.bindingKey ?? "-", $0.estimatedAssetCount) })")
        #expect(try Asset.fetchAssets(in: try #require(albums.first), options: nil).count == 120)
        // Every original is stored once; nothing was rejected.
        let originals = first.files(under: first.library.appendingPathComponent("originals"))
        #expect(originals.count == 120)
        #expect(first.files(under: first.rejected).isEmpty)
        // Both nodes' logs account for all 150 files between them: stored or duplicate, nothing failed.
        let outcomes = (alpha.logLines + beta.logLines).compactMap { $0["outcome"] as? String }
        #expect(outcomes.filter { $0 == "photo" }.count == 120, "\(outcomes)")
        #expect(outcomes.filter { $0 == "duplicate" }.count == 30, "\(outcomes)")
        #expect(!(alpha.log + beta.log).contains("\"level\":\"error\""))
    }

    @Test("two nodes on one shared inbox split the files: each takes those it prefers, without racing the other")
    func sharedInboxSplit() async throws {
        let catalog = try await SharedPostgres.newDatabase("split")
        let metrics: [String: Any] = ["metrics": ["textfile": "node.prom", "intervalSeconds": 1]]
        let first = try Self.node("sigma", catalog: catalog, extra: metrics)
        let second = try Self.node("tau", catalog: catalog, sharing: first, extra: metrics)
        let sigma = try WatchDaemon(first)
        try await Self.waitUntilWatching(sigma)
        let tau = try WatchDaemon(second)
        try await Self.waitUntilWatching(tau)
        // Each learns of the other from the catalog's heartbeats and the other's staging folder in the inbox.
        let shared = "the inbox is shared with other nodes: each takes the files it prefers first"
        let known = Date().addingTimeInterval(30)
        while Date() < known
            && !(sigma.logLines + tau.logLines).filter({ ($0["message"] as? String) == shared }).map({ $0["nodes"] as? String })
                .elementsEqual(["sigma,tau", "sigma,tau"])
        {
            await pause(100_000)
        }
        for daemon in [sigma, tau] {
            let line = daemon.logLines.first { ($0["message"] as? String) == shared }
            #expect(line?["nodes"] as? String == "sigma,tau", "\(daemon.log.prefix(6000))")
        }

        // 600 photos renamed into two album folders in one go: both nodes see every file settle at once.
        let staging = first.root.appendingPathComponent("staging")
        let photos = try TinyJPEG.write(count: 600, into: staging)
        for (index, photo) in photos.enumerated() {
            let album = first.inbox.appendingPathComponent(index % 2 == 0 ? "Trip" : "Home")
            try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
            try FileManager.default.moveItem(at: photo, to: album.appendingPathComponent(photo.lastPathComponent))
        }
        let deadline = Date().addingTimeInterval(120)
        while !Self.filesLeft(in: first.inbox).isEmpty && Date() < deadline { await pause(100_000) }
        #expect(Self.filesLeft(in: first.inbox).isEmpty, "left in the inbox: \(Self.filesLeft(in: first.inbox))")
        // tau stops (its row says so): sigma takes every file at once again, within a few seconds.
        #expect(try await tau.stop() == 0, "\(tau.log)")
        let alone = "no other node watches the inbox now: this node takes every file at once"
        let noticed = Date().addingTimeInterval(15)
        while Date() < noticed && !sigma.logLines.contains(where: { ($0["message"] as? String) == alone }) {
            await pause(100_000)
        }
        #expect(sigma.logLines.contains { ($0["message"] as? String) == alone }, "\(sigma.log.suffix(2000))")
        // A node that stops with nothing claimed takes its claimed folder with it (so that it no longer counts as
        // sharing this inbox should it run elsewhere next); the running node's stays.
        let claimed = first.inbox.appendingPathComponent(".photodrop/claimed")
        #expect(try FileManager.default.contentsOfDirectory(atPath: claimed.path) == ["sigma"])
        #expect(try await sigma.stop() == 0, "\(sigma.log)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: claimed.path).isEmpty)

        let library = PhotoLibrary(url: first.library, catalog: .postgres(connectionString: catalog))
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 600)
        // Who stored what: nearly every file by the node that prefers it (racing, each would win about half).
        var stored: [String: [String]] = [:]
        for (node, daemon) in [("sigma", sigma), ("tau", tau)] {
            stored[node] = daemon.logLines.filter { ($0["outcome"] as? String) == "photo" }.compactMap { $0["path"] as? String }
        }
        #expect(stored.values.map(\.count).reduce(0, +) == 600, "\(stored)")
        let byPreferred = stored.flatMap { node, paths in
            paths.filter { InboxShare.preferredNode(of: $0, among: ["sigma", "tau"]) == node }
        }
        #expect(byPreferred.count >= 570, "\(byPreferred.count) of 600 stored by the node that prefers them")
        for (node, paths) in stored { #expect(paths.count > 200, "\(node) stored \(paths.count)") }
        // And the metrics count it: files left to the other node, and hardly a claim lost to it.
        func metric(_ name: String, _ sandbox: Sandbox) throws -> Double {
            let text = try String(contentsOf: sandbox.root.appendingPathComponent("node.prom"), encoding: .utf8)
            let line = try #require(text.split(separator: "\n").first { $0.hasPrefix(name + " ") }, "\(name) in \(text)")
            return try #require(Double(line.split(separator: " ")[1]))
        }
        let lost = try metric("photodrop_claims_lost_total", first) + metric("photodrop_claims_lost_total", second)
        #expect(lost <= 30, "\(lost) claims lost to the other node")
        #expect(try metric("photodrop_files_left_to_other_nodes_total", first) >= 200)
        #expect(try metric("photodrop_files_left_to_other_nodes_total", second) >= 200)
    }

    @Test("a node killed with kill -9 holding claimed files: a node sharing its inbox takes them over after the lease")
    func takeoverAfterKill() async throws {
        let catalog = try await SharedPostgres.newDatabase("takeover")
        let first = try Self.node("kappa", catalog: catalog, lease: 15)
        let second = try Self.node("lambda", catalog: catalog, sharing: first, lease: 15)
        let photos = try TinyJPEG.write(count: 1000, into: first.root.appendingPathComponent("staging"))
        let album = first.inbox.appendingPathComponent("Party")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        let kappa = try WatchDaemon(first)
        try await Self.waitUntilWatching(kappa)
        for photo in photos { try FileManager.default.moveItem(at: photo, to: album.appendingPathComponent(photo.lastPathComponent)) }

        // Stopped the moment it holds claimed files in its staging folder, then killed: what a crash leaves.
        let claimed = first.inbox.appendingPathComponent(".photodrop/claimed/kappa")
        let watchFor = Date().addingTimeInterval(60)
        var held: [String] = []
        while Date() < watchFor {
            held = (try? FileManager.default.contentsOfDirectory(atPath: claimed.path)) ?? []
            if !held.isEmpty { break }
            usleep(1_000)
        }
        kill(kappa.pid, SIGSTOP)
        held = (try? FileManager.default.contentsOfDirectory(atPath: claimed.path)) ?? []
        kappa.kill9()
        try #require(!held.isEmpty, "kappa claimed nothing before it was stopped:\n\(kappa.log)")
        let killedAt = Date()

        let lambda = try WatchDaemon(second)
        try await Self.waitUntilWatching(lambda)
        let deadline = Date().addingTimeInterval(150)
        while !Self.filesLeft(in: first.inbox).isEmpty && Date() < deadline { await pause(200_000) }
        #expect(Self.filesLeft(in: first.inbox).isEmpty, "left: \(Self.filesLeft(in: first.inbox).prefix(20))\n\(lambda.log.suffix(3000))")
        let tookOver = lambda.logLines.first { ($0["message"] as? String)?.hasPrefix("took over files") == true }
        #expect(tookOver?["from_node"] as? String == "kappa", "\(lambda.log.suffix(3000))")
        #expect((tookOver?["files"] as? Int ?? 0) > 0)
        // Not before the lease ran out by the database's clock (15 s after kappa's last heartbeat, at most 5 s before
        // the kill).
        #expect(Date().timeIntervalSince(killedAt) > 9)
        // Entries whose file kappa had not moved yet when it died (its scan's file, taken by lambda as a new drop) are
        // settled within a lease.
        let library = PhotoLibrary(url: first.library, catalog: .postgres(connectionString: catalog))
        let settled = Date().addingTimeInterval(60)
        while try !library.journalEntries(kind: "claim:lambda").isEmpty && Date() < settled { await pause(500_000) }
        #expect(try await lambda.stop() == 0, "\(lambda.log)")

        let assets = try Asset.fetchAssets(with: nil, library: library).objects
        #expect(assets.count == 1000, "each photo once")
        #expect(Set(assets.map(\.sha256)).count == 1000)
        #expect(first.files(under: first.library.appendingPathComponent("originals")).count == 1000)
        #expect(first.files(under: first.rejected).isEmpty)
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).objects
        #expect(albums.map(\.title) == ["Party"])
        #expect(try Asset.fetchAssets(in: try #require(albums.first), options: nil).count == 1000, "taken-over files keep their album")
        #expect(try library.journalEntries(kind: "claim:kappa").isEmpty)
        #expect(try library.journalEntries(kind: "claim:lambda").isEmpty)
    }

    @Test("one daemon per node id; a wrong connection string or an unreadable password file exits 2, naming the key")
    func refusals() async throws {
        let catalog = try await SharedPostgres.newDatabase("refusals")
        let first = try Self.node("gamma", catalog: catalog)
        let gamma = try WatchDaemon(first)
        try await Self.waitUntilWatching(gamma)
        // The same node id again, on the same library: refused while the first runs.
        let again = try Self.node("gamma", catalog: catalog, sharing: first)
        let refused = try await again.run(["watch"], timeout: 60)
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("watch-gamma.lock"), "\(refused.stderr)")
        // The same node id from another machine (here: a library path of its own, so no shared lock file): the
        // catalog's lock on the id refuses it, naming where the id runs.
        let elsewhere = try Self.node("gamma", catalog: catalog)
        let refusedByCatalog = try await elsewhere.run(["watch"], timeout: 60)
        #expect(refusedByCatalog.status == 1, "\(refusedByCatalog)")
        #expect(refusedByCatalog.stderr.contains("node id 'gamma'"), "\(refusedByCatalog.stderr)")
        // Another node id on the same library starts beside it, and status on any node lists both with heartbeats.
        let other = try Self.node("delta", catalog: catalog, sharing: first)
        let delta = try WatchDaemon(other)
        try await Self.waitUntilWatching(delta)
        let status = try await other.run(["status", "--json"]).jsonObject()
        let nodes = try #require(status["nodes"] as? [[String: Any]], "\(status)")
        #expect(Set(nodes.compactMap { $0["id"] as? String }) == ["gamma", "delta"])
        #expect(nodes.allSatisfy { $0["running"] as? Bool == true && ($0["heartbeatSecondsAgo"] as? Double ?? 99) < 30 })
        #expect(status["node"] as? String == "delta")
        #expect(try await other.run(["status"]).stdout.contains("delta (this node)"))
        #expect(try await delta.stop() == 0)
        #expect(try await gamma.stop() == 0)
        let after = try await other.run(["status", "--json"]).jsonObject()
        #expect((after["nodes"] as? [[String: Any]] ?? []).allSatisfy { $0["running"] as? Bool == false }, "\(after)")

        // A database that does not exist: exit 2, the key named, no local SQLite library made instead.
        let wrong = try Self.node("epsilon", catalog: catalog.replacingOccurrences(of: "/refusals_", with: "/missing_"))
        let unreachable = try await wrong.run(["watch"], timeout: 60)
        #expect(unreachable.status == 2, "\(unreachable)")
        #expect(unreachable.stderr.contains("catalog.postgres"), "\(unreachable.stderr)")
        #expect(!FileManager.default.fileExists(atPath: wrong.library.appendingPathComponent("library.sqlite").path))
        // A password file that cannot be read: exit 2, naming the key and the file.
        var settings: [String: Any] = [
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected",
            "catalog": ["postgres": catalog, "passwordFile": "secret/missing.txt"], "node": "zeta",
        ]
        settings["log"] = ["format": "json"]
        try wrong.writeConfig(settings)
        let noPassword = try await wrong.run(["watch"], timeout: 60)
        #expect(noPassword.status == 2, "\(noPassword)")
        #expect(noPassword.stderr.contains("catalog.passwordFile"), "\(noPassword.stderr)")
    }

    @Test("PostgreSQL stopped while files arrive: the node keeps them waiting (catalogUnreachable), reconnects, stores each once")
    func databaseOutage() async throws {
        // A cluster of this test's own: stopping the process's shared one would pull it from under other tests.
        let cluster = try await PostgresCluster("outage")
        let sandbox = try Self.node("omega", catalog: cluster.connectionString())
        let daemon = try WatchDaemon(sandbox)
        try await Self.waitUntilWatching(daemon)
        let album = sandbox.inbox.appendingPathComponent("Outage")
        try TinyJPEG.write(count: 5, into: album)
        func stored() -> Int { daemon.logLines.filter { ($0["outcome"] as? String) == "photo" }.count }
        var deadline = Date().addingTimeInterval(60)
        while stored() < 5 && Date() < deadline { await pause(50_000) }
        #expect(stored() == 5)

        // The server goes away; files keep arriving.
        cluster.stop()
        try TinyJPEG.write(count: 5, startingAt: 100, into: album)
        deadline = Date().addingTimeInterval(30)
        var status = try await sandbox.run(["status", "--json"])
        while !status.stdout.contains("catalogUnreachable") && Date() < deadline {
            await pause(200_000)
            status = try await sandbox.run(["status", "--json"])
        }
        #expect(status.stdout.contains("catalogUnreachable"), "\(status)")
        #expect(daemon.isRunning, "the daemon waits for the server instead of exiting:\n\(daemon.log)")
        #expect(Self.filesLeft(in: sandbox.inbox).count == 5, "the new files wait in the inbox")

        // Back after a few seconds: every file is stored, once.
        _ = try await cluster.restart(after: 3)
        deadline = Date().addingTimeInterval(90)
        while !Self.filesLeft(in: sandbox.inbox).isEmpty && Date() < deadline { await pause(100_000) }
        #expect(Self.filesLeft(in: sandbox.inbox).isEmpty, "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        let library = PhotoLibrary(url: sandbox.library, catalog: .postgres(connectionString: cluster.connectionString()))
        let assets = try Asset.fetchAssets(with: nil, library: library).objects
        #expect(assets.count == 10)
        #expect(sandbox.files(under: sandbox.library.appendingPathComponent("originals")).count == 10)
        #expect(stored() == 10)
        cluster.stop()
    }

    @Test("serve on one node streams a commit made by a watch node elsewhere within a second (LISTEN/NOTIFY)")
    func serveSeesAnotherNodesCommit() async throws {
        let catalog = try await SharedPostgres.newDatabase("events")
        let ingest = try Self.node("ingest", catalog: catalog)
        let watch = try WatchDaemon(ingest)
        try await Self.waitUntilWatching(watch)
        let web = try Self.node("web", catalog: catalog, sharing: ingest)
        let token = "multinode-token-0123456789"
        var settings: [String: Any] = [
            "library": ingest.library.path, "inbox": web.root.appendingPathComponent("WebInbox").path,
            "rejected": ingest.rejected.path, "catalog": ["postgres": catalog], "node": "web",
            "serve": ["listen": "127.0.0.1:0", "token": token],
        ]
        settings["log"] = ["format": "json", "level": "debug"]
        try web.writeConfig(settings)
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

        // The watch node stores a photo; its commit reaches the other node's stream.
        try TinyJPEG.write(count: 1, startingAt: 500, into: ingest.inbox.appendingPathComponent("Remote"))
        let started = Date()
        func text() -> String { (try? String(contentsOf: events, encoding: .utf8)) ?? "" }
        while !text().contains("event: change") && Date().timeIntervalSince(started) < 20 { await pause(20_000) }
        let change = try #require(text().split(separator: "\n").last { $0.hasPrefix("data: ") }, "\(text())")
        let data = try #require(try JSONSerialization.jsonObject(with: Data(change.dropFirst(6).utf8)) as? [String: Any])
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let committed = try #require((data["date"] as? String).flatMap { format.date(from: $0) }, "\(data)")
        let written = try #require(try FileManager.default.attributesOfItem(atPath: events.path)[.modificationDate] as? Date)
        #expect(written.timeIntervalSince(committed) < 1.0, "the event came \(written.timeIntervalSince(committed)) s after the commit")
        let inserted = (data["assets"] as? [String: Any])?["inserted"] as? [String] ?? []
        #expect(inserted.count == 1, "\(data)")
        try await server.process.stop()
        #expect(try await watch.stop() == 0)
    }

    @Test("backup of a PostgreSQL library while a node stores files: one snapshot as a whole SQLite library, verified, compared, restorable")
    func backupOfAPostgresLibrary() async throws {
        let catalog = try await SharedPostgres.newDatabase("backup")
        let sandbox = try Self.node("backup", catalog: catalog)
        try TinyJPEG.write(count: 20, into: sandbox.root.appendingPathComponent("drop/Trip"))
        #expect(try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path]).status == 0)
        // A node keeps storing while the backup runs: the backup holds one snapshot, whole.
        let watch = try WatchDaemon(sandbox)
        try await Self.waitUntilWatching(watch)
        try TinyJPEG.write(count: 60, startingAt: 1000, into: sandbox.inbox.appendingPathComponent("Later"))
        let destination = sandbox.root.appendingPathComponent("Backups")
        let backup = try await sandbox.run(["backup", destination.path, "--json"])
        #expect(backup.status == 0, "\(backup)")
        let report = try backup.jsonObject()
        let path = try #require(report["backup"] as? String)
        let assets = try #require(report["assets"] as? Int)
        #expect(assets >= 20 && assets <= 80)
        #expect(report["originals"] as? Int == assets)
        #expect((report["verification"] as? [String: Any])?["clean"] as? Bool == true, "\(report)")
        let deadline = Date().addingTimeInterval(60)
        while !Self.filesLeft(in: sandbox.inbox).isEmpty && Date() < deadline { await pause(100_000) }
        #expect(try await watch.stop() == 0)

        // The backup is a SQLite library of its own: it opens as one, with the snapshot's assets.
        let copy = PhotoLibrary(url: URL(fileURLWithPath: path))
        #expect(try Asset.fetchAssets(with: nil, library: copy).count == assets)
        let checked = try await sandbox.run(["verify", "--library", path])
        #expect(checked.status == 0, "\(checked)")
        // Compared with the live catalog: when the node stored more since, they differ (exit 1) and say where; even
        // with every photo in the backup, its thumbnails made since may differ.
        let compared = try await sandbox.run(["verify", "--library", path, "--compare"])
        if assets < 80 {
            #expect(compared.status == 1 && compared.stdout.contains("assets:"), "\(compared)")
        } else {
            #expect([0, 1].contains(compared.status), "\(compared)")
        }
        #expect(compared.stdout.contains("Compared with the PostgreSQL catalog"), "\(compared)")
        #expect(try await sandbox.run(["verify", "--compare"]).status == 2)

        // Restored into a new database (migrate from the backup's folder), it reads as the snapshot did, and a
        // backup made now compares equal.
        let restored = try await SharedPostgres.newDatabase("restored")
        let restoring = try Sandbox("restore", settings: ["library": path])
        let moved = try await restoring.run(["migrate", "--to", "postgres", restored])
        #expect(moved.status == 0, "\(moved)")
        let second = try await sandbox.run(["backup", destination.path, "--json"])
        #expect(second.status == 0, "\(second)")
        let latest = try #require(try second.jsonObject()["backup"] as? String)
        let same = try await sandbox.run(["verify", "--library", latest, "--compare"])
        #expect(same.status == 0 && same.stdout.contains("every table has the same rows"), "\(same)")
        let restoredLibrary = PhotoLibrary(url: URL(fileURLWithPath: path), catalog: .postgres(connectionString: restored))
        #expect(try Asset.fetchAssets(with: nil, library: restoredLibrary).count == assets)
    }

    @Test("migrate copies a SQLite library's catalog into PostgreSQL and back, ids and change tokens kept, checked row for row")
    func migrateBothWays() async throws {
        let sandbox = try Sandbox("migrate", settings: ["derivatives": "lazy"])
        try TinyJPEG.write(count: 30, into: sandbox.root.appendingPathComponent("drop/Trip"))
        #expect(try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path]).status == 0)
        #expect(try await sandbox.run(["album", "create", "Empty"]).status == 0)
        let before = try await sandbox.run(["assets", "--json"]).jsonLines()
        let favorite = try #require(before.first?["id"] as? String)
        #expect(try await sandbox.run(["favorite", favorite]).status == 0)
        let lastEvent = try #require(try await sandbox.run(["events"]).jsonLines().last?["token"] as? String)

        let catalog = try await SharedPostgres.newDatabase("migrate")
        let copied = try await sandbox.run(["migrate", "--to", "postgres", catalog])
        #expect(copied.status == 0, "\(copied)")
        #expect(copied.stdout.contains("every table has the same rows") && copied.stdout.contains("assets: 30 rows"))
        // Into a database that holds a catalog now: refused, nothing written.
        let again = try await sandbox.run(["migrate", "--to", "postgres", catalog])
        #expect(again.status == 2 && again.stderr.contains("already holds a photodrop catalog"), "\(again)")

        // The same library, read from PostgreSQL: the same assets, favourite, albums and change history.
        try sandbox.writeConfig([
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected", "derivatives": "lazy",
            "catalog": ["postgres": catalog], "node": "migrated",
        ])
        let after = try await sandbox.run(["assets", "--json"]).jsonLines()
        #expect(Set(after.compactMap { $0["id"] as? String }) == Set(before.compactMap { $0["id"] as? String }))
        #expect(after.first { $0["id"] as? String == favorite }?["isFavorite"] as? Bool == true)
        let albums = try await sandbox.run(["albums", "--json"]).jsonLines().compactMap { $0["title"] as? String }
        #expect(albums.contains("Trip") && albums.contains("Empty"))
        #expect(try await sandbox.run(["events"]).jsonLines().last?["token"] as? String == lastEvent)
        // It goes on from there: a new file gets the next token.
        try TinyJPEG.write(count: 1, startingAt: 900, into: sandbox.root.appendingPathComponent("more/Trip"))
        #expect(try await sandbox.run(["import", sandbox.root.appendingPathComponent("more").path]).status == 0)
        let next = try #require(try await sandbox.run(["events"]).jsonLines().last?["token"] as? String)
        let number = { (token: String) in Int(token.split(separator: ":").last ?? "") ?? 0 }
        #expect(number(next) == number(lastEvent) + 1)

        // And back into a new SQLite file, which reads as the library did.
        let back = sandbox.root.appendingPathComponent("back.sqlite").path
        let returned = try await sandbox.run(["migrate", "--to", "sqlite", back])
        #expect(returned.status == 0, "\(returned)")
        let exists = try await sandbox.run(["migrate", "--to", "sqlite", back])
        #expect(exists.status == 2 && exists.stderr.contains("exists already"), "\(exists)")
        let database = try Database(path: back, mode: .readOnly)
        #expect(try database.int64("SELECT count(*) FROM assets") == 31)
        #expect(try database.int64("SELECT seq FROM sqlite_sequence WHERE name = 'change_transactions'") == Int64(number(next)))
    }
}
