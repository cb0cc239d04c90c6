import Foundation
import TestFixtures
import Testing

/// What photodrop says about a file or itself is true where it is said: `import` never promises to look at a file
/// again, a file rejected after its grace period is told it was waited for, and `status` says which configuration the
/// running daemon has when that is not the one `status` read.
@Suite(
    "messages that tell the truth", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"),
    ProcessBudget.endToEnd, .timeLimit(.minutes(5)))
struct TruthfulMessageTests {
    @Test("import of a cut JPEG and an empty file: rejected, with no promise of a second look")
    func importPromisesNothing() async throws {
        let sandbox = try Sandbox("truth-import")
        try sandbox.write("Inbox/cut.jpg", TinyJPEG.bytes(1).dropLast(40).map { $0 })
        try sandbox.write("Inbox/empty.jpg", [])
        let result = try await sandbox.run(["import", sandbox.inbox.path, "--json"])
        #expect(result.status == 1, "\(result)")
        let items = try #require(try result.jsonObject()["items"] as? [[String: Any]])
        #expect(items.count == 2 && items.allSatisfy { $0["outcome"] as? String == "rejected" }, "\(items)")
        for item in items {
            let message = item["message"] as? String ?? ""
            #expect(!message.contains("looked at again") && !message.contains("will be"), "\(message)")
        }
    }

    @Test("watch: an empty file waits out its grace period, then its reason.json says it was waited for")
    func reasonAfterGrace() async throws {
        let sandbox = try Sandbox("truth-grace", settings: ["incompleteGraceSeconds": 1])
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        try sandbox.write("Inbox/Trip/empty.jpg", [])
        let outcome = try #require(await daemon.waitForOutcomes(1, timeout: 60).first, "\(daemon.log)")
        #expect(outcome["outcome"] as? String == "rejected", "\(outcome)")
        let reasonFile = sandbox.rejected.appendingPathComponent("Trip/empty.jpg.reason.json")
        let reason = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: reasonFile)) as? [String: Any])
        let message = reason["message"] as? String ?? ""
        #expect(message.contains("empty") && message.contains("grace period"), "\(message)")
        #expect(!message.contains("looked at again"), "\(message)")
        #expect(try await daemon.stop() == 0)
    }

    @Test("status names the running daemon's configuration: the built-in defaults when it was started without one")
    func statusSaysTheDaemonsConfiguration() async throws {
        let sandbox = try Sandbox("truth-status")
        // The daemon runs in a folder of its own without config.json: the defaults (Library, Inbox, Rejected there).
        let home = sandbox.root.appendingPathComponent("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let launcher = Launcher(
            executable: URL(fileURLWithPath: "/bin/sh"),
            arguments: ["-c", "cd '\(home.path)' && exec \"$0\" watch"])
        let daemon = try WatchDaemon(sandbox, launcher: launcher)
        try await daemon.waitUntilStarted()
        // status reads a config.json that points at the daemon's folders.
        try sandbox.writeConfig([
            "library": home.appendingPathComponent("Library").path, "inbox": home.appendingPathComponent("Inbox").path,
            "rejected": home.appendingPathComponent("Rejected").path,
        ])
        var shown = try await sandbox.run(["status"])
        for _ in 0..<100 where !shown.stdout.contains("built-in defaults") {
            try await Task.sleep(for: .milliseconds(100))
            shown = try await sandbox.run(["status"])
        }
        let daemonLine = shown.stdout.split(separator: "\n").first { $0.hasPrefix("Daemon") } ?? ""
        #expect(daemonLine.contains("running") && daemonLine.contains("built-in defaults"), "\(shown)")
        let configLine = shown.stdout.split(separator: "\n").first { $0.hasPrefix("Configuration") } ?? ""
        #expect(configLine.contains(sandbox.config.path), "status's own file is named as status's: \(shown)")
        let json = try await sandbox.run(["status", "--json"])
        let daemonObject = try #require(try json.jsonObject()["daemon"] as? [String: Any])
        #expect(daemonObject["config"] is NSNull, "\(json)")
        #expect(try await daemon.stop() == 0)
    }
}
