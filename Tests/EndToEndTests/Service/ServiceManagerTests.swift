import Foundation
import PhotodropSystem
import TestFixtures
import Testing

/// `photodrop watch` under a service manager, with a real unix datagram socket standing in for systemd's
/// `$NOTIFY_SOCKET`: readiness, status, the watchdog (a wedged pipeline stops the pings, a library locked by another
/// process does not), reload on SIGHUP, the metrics file, and journald's priority prefixes.
@Suite(
    "Running as a service", .serialized, .timeLimit(.minutes(4)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built"))
struct ServiceManagerTests {
    static let sqlite3 = ["/usr/bin/sqlite3", "/bin/sqlite3"].first { FileManager.default.isExecutableFile(atPath: $0) }
    static let promtool = ["/usr/bin/promtool", "/bin/promtool"].first {
        FileManager.default.isExecutableFile(atPath: $0)
    }
    static let pythonWithClient: String? = {
        // The python3 on PATH, as .ci/run's pip installs into (a pyenv one, or Debian's).
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin"
        guard let python = path.split(separator: ":").map({ "\($0)/python3" }).first(where: {
            FileManager.default.isExecutableFile(atPath: $0)
        }) else { return nil }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = ["-c", "import prometheus_client"]
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? python : nil
    }()

    @Test func readyOnlyAfterRecoveryThenStatusPingsAndStopping() async throws {
        let sandbox = try Sandbox("notify")
        let manager = try NotifyListener(in: sandbox.root)
        defer { manager.close() }
        let daemon = try WatchDaemon(sandbox, environment: manager.environment(watchdog: .seconds(1)))
        let ready = try #require(await manager.waitFor { $0.has("READY=1") }, "no READY=1\n\(daemon.log)")
        // Before READY: the start-up says what it does and asks for more time.
        let before = manager.messages.filter { $0.at <= ready.at && !$0.has("READY=1") }
        #expect(before.contains { $0.status?.hasPrefix("starting") == true })
        #expect(before.contains { $0.assignments.contains { $0.hasPrefix("EXTEND_TIMEOUT_USEC=") } })
        // READY comes once the start-up scan is queued: the log already says the daemon scans the inbox.
        #expect(daemon.log.contains("\"reason\":\"startup\""))

        try sandbox.write("Inbox/Trip/one.jpg", MediaFixtures.jpeg(seed: 1))
        try sandbox.write("Inbox/Trip/notes.txt", MediaFixtures.text)
        let stored = await manager.waitFor { $0.status?.hasPrefix("stored 1, duplicates 0, rejected 1") == true }
        #expect(stored != nil, "\(manager.messages.compactMap(\.status))")
        // The watchdog is pinged at half its interval: about four pings in two seconds.
        let since = Date()
        await pause(2_100_000)
        let pings = manager.messages.filter { $0.at > since && $0.has("WATCHDOG=1") }
        #expect(pings.count >= 3, "\(pings.count) pings in 2 s with a 1 s watchdog")

        #expect(try await daemon.stop() == 0)
        #expect(manager.messages.contains { $0.has("STOPPING=1") })
    }

    @Test func aWedgedPipelineStopsThePingsAndSaysSo() async throws {
        let sandbox = try Sandbox("wedged")
        let manager = try NotifyListener(in: sandbox.root)
        defer { manager.close() }
        // The test-only fault (no real input is known to wedge a worker): the worker that takes this file blocks.
        var environment = manager.environment(watchdog: .seconds(1))
        environment["PHOTODROP_TEST_STALL_FILE"] = "wedge.jpg"
        let daemon = try WatchDaemon(sandbox, environment: environment)
        defer { daemon.kill9() }
        #expect(await manager.waitFor { $0.has("READY=1") } != nil)
        try sandbox.write("Inbox/Trip/wedge.jpg", MediaFixtures.jpeg(seed: 2))
        // The stall limit is the watchdog interval, at least 20 s; then STATUS says so and the pings end.
        let stalled = await manager.waitFor(timeout: 60) { $0.status?.hasPrefix("stalled for") == true }
        let status = try #require(stalled?.status, "\(manager.messages.suffix(5).map(\.assignments))")
        #expect(status.contains("reading Trip/wedge.jpg"))
        await pause(2_500_000)
        let late = manager.messages.filter { $0.at > stalled!.at && $0.has("WATCHDOG=1") }
        #expect(late.isEmpty, "pings went on after the pipeline wedged")
        // Until the stall the loop pinged on time, while the worker was already stuck.
        let pings = manager.messages.filter { $0.has("WATCHDOG=1") }.map(\.at)
        #expect(pings.count >= 30)
        #expect(daemon.log.contains("the pipeline is wedged"))
    }

    @Test(.requires(ServiceManagerTests.sqlite3 != nil, "sqlite3 (apt-get install sqlite3)"))
    func aLibraryLockedByAnotherProcessIsALegitimateWait() async throws {
        let sandbox = try Sandbox("locked")
        let manager = try NotifyListener(in: sandbox.root)
        defer { manager.close() }
        let daemon = try WatchDaemon(sandbox, environment: manager.environment(watchdog: .seconds(1)))
        #expect(await manager.waitFor { $0.has("READY=1") } != nil)
        // Another process takes the library's write lock and holds it for 14 s.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: ServiceManagerTests.sqlite3!)
        holder.arguments = [sandbox.library.appendingPathComponent("library.sqlite").path]
        let input = Pipe()
        holder.standardInput = input
        holder.standardOutput = FileHandle.nullDevice
        try holder.run()
        defer { if holder.isRunning { holder.terminate() } }
        input.fileHandleForWriting.write(Data("BEGIN IMMEDIATE; INSERT INTO journal(kind, payload) SELECT 'x', 'y' WHERE 0;\n".utf8))
        await pause(300_000)
        let lockedAt = Date()
        try sandbox.write("Inbox/Trip/one.jpg", MediaFixtures.jpeg(seed: 3))
        let waiting = await manager.waitFor(timeout: 20) { $0.status?.contains("write lock") == true }
        #expect(waiting != nil, "\(manager.messages.compactMap(\.status).suffix(3))")
        await pause(UInt32(max(0, 14 - Date().timeIntervalSince(lockedAt)) * 1_000_000))
        input.fileHandleForWriting.write(Data("COMMIT;\n".utf8))
        try input.fileHandleForWriting.close()
        holder.waitUntilExit()
        let stored = await manager.waitFor(timeout: 60) { $0.status?.hasPrefix("stored 1") == true }
        #expect(stored != nil)
        // All along, the pings kept coming: no gap near the 1 s interval.
        let pings = manager.messages.filter { $0.has("WATCHDOG=1") && $0.at > lockedAt }.map(\.at)
        let gaps = zip(pings, pings.dropFirst()).map { $1.timeIntervalSince($0) }
        #expect(pings.count >= 20)
        #expect((gaps.max() ?? 99) < 0.9, "largest gap between pings: \(gaps.max() ?? -1) s")
        #expect(!manager.messages.contains { $0.status?.hasPrefix("stalled") == true })
        #expect(try await daemon.stop() == 0)
    }

    @Test func reloadAppliesLiveKeysAndRefusesInvalidOrFixedOnes() async throws {
        let sandbox = try Sandbox("reload")
        let manager = try NotifyListener(in: sandbox.root)
        defer { manager.close() }
        let daemon = try WatchDaemon(sandbox, environment: manager.environment())
        #expect(await manager.waitFor { $0.has("READY=1") } != nil)
        let base: [String: Any] = [
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected", "settleMilliseconds": 200,
            "log": ["format": "json", "level": "debug"],
        ]

        // Valid: files ending in .part2 are ignored from now on, and the worker count changes.
        var live = base
        live["ignore"] = ["*.part2"]
        live["workers"] = 1
        try sandbox.writeConfig(live)
        kill(daemon.pid, SIGHUP)
        #expect(await eventuallyTrue { daemon.log.contains("the stages restart with it") })
        #expect(await eventuallyTrue { manager.messages.filter { $0.has("READY=1") }.count >= 2 })
        #expect(manager.messages.contains { $0.has("RELOADING=1") })
        let restarted = daemon.logLines.filter { ($0["message"] as? String) == "photodrop watch started" }
        #expect(restarted.count == 2)
        #expect(restarted.last?["workers"] as? Int == 1)
        try sandbox.write("Inbox/Trip/skipped.part2", MediaFixtures.jpeg(seed: 4))
        try sandbox.write("Inbox/Trip/taken.jpg", MediaFixtures.jpeg(seed: 5))
        #expect(await eventuallyTrue { daemon.log.contains("\"path\":\"Trip/taken.jpg\",\"outcome\":\"photo\"") })
        await pause(600_000)
        #expect(FileManager.default.fileExists(atPath: sandbox.inbox.appendingPathComponent("Trip/skipped.part2").path))

        // Not valid JSON: refused, running on the previous config.
        try Data("{ \"workers\": ".utf8).write(to: sandbox.config)
        kill(daemon.pid, SIGHUP)
        #expect(await eventuallyTrue { daemon.log.contains("config.json is not valid") })
        // A key that names a place: refused, the key named.
        var moved = live
        moved["inbox"] = "Elsewhere"
        try sandbox.writeConfig(moved)
        kill(daemon.pid, SIGHUP)
        #expect(await eventuallyTrue { daemon.log.contains("config.json changes inbox, which cannot change") })
        #expect(manager.messages.contains { $0.status?.hasPrefix("reload refused: inbox") == true })
        try sandbox.write("Inbox/Trip/still.jpg", MediaFixtures.jpeg(seed: 6))
        #expect(await eventuallyTrue { daemon.log.contains("\"path\":\"Trip/still.jpg\",\"outcome\":\"photo\"") })

        // The log level changes at once: at warning, a stored file writes no line.
        var quiet = live
        quiet["log"] = ["format": "json", "level": "warning"]
        try sandbox.writeConfig(quiet)
        kill(daemon.pid, SIGHUP)
        #expect(await eventuallyTrue { daemon.log.contains("log settings reloaded") })
        try sandbox.write("Inbox/Trip/silent.jpg", MediaFixtures.jpeg(seed: 7))
        #expect(await eventuallyTrue { manager.messages.last(where: { $0.status != nil })?.status?.hasPrefix("stored 3") == true })
        #expect(!daemon.log.contains("Trip/silent.jpg"))
        #expect(try await daemon.stop() == 0)
    }

    @Test func metricsFileIsValidPrometheusText() async throws {
        let sandbox = try Sandbox("metrics", settings: ["metrics": ["textfile": "photodrop.prom", "intervalSeconds": 1]])
        let daemon = try WatchDaemon(sandbox)
        let file = sandbox.root.appendingPathComponent("photodrop.prom")
        try sandbox.write("Inbox/Trip/one.jpg", MediaFixtures.jpeg(seed: 8))
        try sandbox.write("Inbox/Trip/notes.txt", MediaFixtures.text)
        #expect(
            await eventuallyTrue(timeout: 30) {
                let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                return text.contains("photodrop_files_total{outcome=\"stored\"} 1")
                    && text.contains("photodrop_files_total{outcome=\"rejected\"} 1")
                    && text.contains("photodrop_library_albums 1")
            })
        let text = try String(contentsOf: file, encoding: .utf8)
        #expect(text.contains("photodrop_rejected_files_total{reason=\"unsupportedType\"} 1"), "\(text)")
        #expect(text.contains("photodrop_inbox_rescans_total{reason=\"startup\"} 1"))
        #expect(text.contains("photodrop_up 1"))
        #expect(text.contains("photodrop_stored_bytes_total \(MediaFixtures.jpeg(seed: 8).count)\n"))
        #expect(text.contains("photodrop_file_duration_seconds_count 2"))
        #expect(text.contains("photodrop_inotify_watches "))
        #expect(
            (try? FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int) == 0o644,
            "node_exporter reads it as another user")
        try skipUnless(ServiceManagerTests.promtool != nil, "promtool (apt-get install prometheus)")
        do {
            let check = try await runProcess(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "\(ServiceManagerTests.promtool!) check metrics < '\(file.path)'"])
            #expect(check.status == 0, "promtool: \(check.stdout)\(check.stderr)")
            #expect(check.stdout.isEmpty && check.stderr.isEmpty, "promtool's lint: \(check.stdout)\(check.stderr)")
        }
        try skipUnless(ServiceManagerTests.pythonWithClient != nil, "prometheus_client (pip install prometheus_client)")
        do {
            let script = """
                import sys
                from prometheus_client.parser import text_string_to_metric_families
                families = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
                stored = [s.value for s in families['photodrop_files'].samples if s.labels.get('outcome') == 'stored']
                assert stored == [1.0], stored
                assert families['photodrop_commit_duration_seconds'].type == 'histogram'
                assert families['photodrop_files_waiting'].type == 'gauge'
                print(len(families))
                """
            let parsed = try await runProcess(
                URL(fileURLWithPath: ServiceManagerTests.pythonWithClient!), ["-c", script, file.path])
            #expect(parsed.status == 0, "prometheus_client: \(parsed.stderr)")
            #expect((Int(parsed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) >= 15)
        }
        #expect(try await daemon.stop() == 0)
        // The last write says the daemon is down.
        #expect(try String(contentsOf: file, encoding: .utf8).contains("photodrop_up 0"))
    }

    @Test func journaldGetsPriorityPrefixesWhenStderrIsItsStream() async throws {
        let sandbox = try Sandbox("journal", settings: ["log": ["format": "text", "level": "info"]])
        let binary = try #require(PhotodropBinary.url)
        let log = sandbox.root.appendingPathComponent("journal.log")
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        var info = stat()
        #expect(stat(log.path, &info) == 0)
        let process = Process()
        process.executableURL = binary
        process.arguments = ["--config", sandbox.config.path, "watch"]
        process.environment = ProcessInfo.processInfo.environment.merging([
            "JOURNAL_STREAM": "\(info.st_dev):\(info.st_ino)"
        ]) { $1 }
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: log)
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }
        try sandbox.write("Inbox/Trip/notes.txt", MediaFixtures.text)
        #expect(await eventuallyTrue { ((try? String(contentsOf: log, encoding: .utf8)) ?? "").contains("notes.txt") })
        kill(process.processIdentifier, SIGTERM)
        process.waitUntilExit()
        let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n")
        #expect(lines.first { $0.contains("photodrop watch started") }?.hasPrefix("<6>info") == true, "\(lines.prefix(3))")
        // The rejection of notes.txt (a warning); the line that says the Rejected folder is created is information.
        #expect(lines.first { $0.contains("rejected") && $0.contains("notes.txt") }?.hasPrefix("<4>warning") == true, "\(lines)")
        #expect(lines.allSatisfy { $0.hasPrefix("<") }, "a line without a priority: \(lines)")
    }
}


extension ServiceManagerTests {
    @Test func serveTellsReadinessServesMetricsAndReloadsItsToken() async throws {
        let first = "first-token-0123456789", second = "second-token-0123456789"
        var settings: [String: Any] = [
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected", "settleMilliseconds": 200,
            "log": ["format": "json", "level": "debug"], "serve": ["listen": "127.0.0.1:0", "token": first],
            "metrics": ["textfile": "watch.prom", "intervalSeconds": 1],
        ]
        let sandbox = try Sandbox("serve-service", settings: settings)
        let watch = try WatchDaemon(sandbox)
        try sandbox.write("Inbox/Trip/one.jpg", MediaFixtures.jpeg(seed: 9))
        let watchFile = sandbox.root.appendingPathComponent("watch.prom")
        #expect(await eventuallyTrue {
            ((try? String(contentsOf: watchFile, encoding: .utf8)) ?? "").contains("photodrop_files_total{outcome=\"stored\"} 1")
        })
        let manager = try NotifyListener(in: sandbox.root)
        defer { manager.close() }
        let serve = try await ServeProcess(sandbox, environment: manager.environment(watchdog: .seconds(2)))
        let ready = try #require(await manager.waitFor { $0.has("READY=1") })
        #expect(ready.status?.hasPrefix("listening on 127.0.0.1 port") == true)
        #expect(await manager.waitFor(timeout: 5) { $0.has("WATCHDOG=1") } != nil)

        // /metrics: serve's own, then what watch last wrote; only with the token.
        #expect(try await ServeHarness.curl(serve.base + "/metrics", token: nil, in: sandbox).status == 401)
        _ = try await ServeHarness.curl(serve.base + "/api/status", token: first, in: sandbox)
        let metrics = try await ServeHarness.curl(serve.base + "/metrics", token: first, in: sandbox)
        #expect(metrics.status == 200)
        #expect(metrics.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
        #expect(metrics.text.contains("photodrop_http_requests_total{kind=\"api\",method=\"GET\",code=\"200\"} 1"), "\(metrics.text)")
        #expect(metrics.text.contains("photodrop_files_total{outcome=\"stored\"} 1"))
        #expect(metrics.text.contains("photodrop_watch_metrics_age_seconds "))
        try skipUnless(ServiceManagerTests.promtool != nil, "promtool (apt-get install prometheus)")
        do {
            let file = sandbox.root.appendingPathComponent("served.prom")
            try metrics.body.write(to: file)
            let check = try await runProcess(
                URL(fileURLWithPath: "/bin/sh"), ["-c", "\(ServiceManagerTests.promtool!) check metrics < '\(file.path)'"])
            #expect(check.status == 0 && check.stdout.isEmpty && check.stderr.isEmpty, "promtool: \(check.stdout)\(check.stderr)")
        }

        // Reload: a new token applies, on the same port; the old one no longer opens anything.
        settings["serve"] = ["listen": "127.0.0.1:0", "token": second]
        try sandbox.writeConfig(settings)
        kill(serve.process.pid, SIGHUP)
        #expect(await eventuallyTrue { manager.messages.filter { $0.has("READY=1") }.count >= 2 })
        #expect(manager.messages.contains { $0.has("RELOADING=1") })
        #expect(try await ServeHarness.curl(serve.base + "/api/status", token: first, in: sandbox).status == 401)
        #expect(try await ServeHarness.curl(serve.base + "/api/status", token: second, in: sandbox).status == 200)

        // Another address: refused, still serving with the second token.
        settings["serve"] = ["listen": "127.0.0.1:1", "token": second]
        try sandbox.writeConfig(settings)
        kill(serve.process.pid, SIGHUP)
        #expect(await eventuallyTrue { manager.messages.contains { $0.status?.hasPrefix("reload refused: serve.listen") == true } })
        #expect(try await ServeHarness.curl(serve.base + "/api/status", token: second, in: sandbox).status == 200)
        #expect(try await serve.process.stop() == 0)
        #expect(manager.messages.contains { $0.has("STOPPING=1") })
        #expect(try await watch.stop() == 0)
    }
}

/// Polls `condition` every 20 ms for up to `timeout` seconds.
func eventuallyTrue(timeout: TimeInterval = 30, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        await pause(20_000)
    }
    return condition()
}
