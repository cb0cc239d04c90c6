import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

@Suite("photodrop events", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct EventsCommandTests {
    @Test("the history as JSON lines: token, date, inserted/updated/deleted per object type; --since continues")
    func history() async throws {
        let sandbox = try Sandbox("events")
        let content = try sandbox.populateCatalog()
        try sandbox.openCatalog().performChangesAndWait {
            let asset = try #require(
                try Asset.fetchAssets(withLocalIdentifiers: [content.gif], library: sandbox.openCatalog()).firstObject)
            try AssetChangeRequest(for: asset).isFavorite = true
        }
        for arguments in [["events"], ["events", "--json"]] {
            let result = try await sandbox.run(arguments)
            #expect(result.status == 0, "\(result)")
            let lines = try result.jsonLines()
            #expect(lines.count == 2, "\(result)")
            let first = lines[0]
            #expect(Array(first.keys).sorted() == ["albums", "assets", "date", "folders", "token"])
            let assets = try #require(first["assets"] as? [String: [String]])
            #expect(Set(assets["inserted"] ?? []) == Set(content.assets))
            #expect(assets["updated"] == [] && assets["deleted"] == [])
            let albums = try #require(first["albums"] as? [String: [String]])
            #expect(Set(albums["inserted"] ?? []) == [content.trip, content.family])
            let date = try #require(first["date"] as? String)
            #expect(date.count == 24 && date.hasSuffix("Z"), "ISO 8601 with milliseconds: \(date)")
            #expect((lines[1]["assets"] as? [String: [String]])?["updated"] == [content.gif])
        }
        let all = try await sandbox.run(["events"]).jsonLines()
        let firstToken = try #require(all[0]["token"] as? String)
        let rest = try await sandbox.run(["events", "--since", firstToken])
        #expect(rest.status == 0)
        #expect(try rest.jsonLines().map { $0["token"] as? String } == [all[1]["token"] as? String])
        let last = try #require(all[1]["token"] as? String)
        let none = try await sandbox.run(["events", "--since", last])
        #expect(none.status == 0 && none.stdout.isEmpty, "\(none)")
    }

    @Test("bad tokens: malformed is a usage error (2); another library's or a future one is a failure (1)")
    func badTokens() async throws {
        let sandbox = try Sandbox("events-tokens")
        try sandbox.populateCatalog()
        let malformed = try await sandbox.run(["events", "--since", "yesterday"])
        #expect(malformed.status == 2, "\(malformed)")
        #expect(malformed.stderr.contains("'yesterday' is not a change token"), "\(malformed)")
        let foreign = try await sandbox.run(["events", "--since", "0123456789abcdef:1"])
        #expect(foreign.status == 1 && foreign.stderr.contains("another library"), "\(foreign)")
        let token = try sandbox.openCatalog().currentChangeToken
        let future = try await sandbox.run(["events", "--since", "\(token.libraryID):99"])
        #expect(future.status == 1 && future.stderr.contains("newer than this library's history"), "\(future)")

        // A writer with a short history prunes it: old tokens expire, and plain 'events' starts at the oldest kept.
        let pruning = PhotoLibrary(
            url: sandbox.library,
            historyRetention: HistoryRetention(maximumAge: 0, minimumTransactions: 1, maximumTransactions: 2))
        for index in 0..<4 {
            try pruning.performChangesAndWait {
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Pruned \(index)")
            }
        }
        let expired = try await sandbox.run(["events", "--since", "\(token.libraryID):1"])
        #expect(expired.status == 1, "\(expired)")
        #expect(expired.stderr.contains("no longer kept") && expired.stderr.contains("without --since"), "\(expired)")
        let kept = try await sandbox.run(["events"])
        #expect(kept.status == 0, "\(kept)")
        let tokens = try kept.jsonLines().compactMap { $0["token"] as? String }
        #expect(!tokens.isEmpty && tokens.count < 5, "\(tokens)")
        #expect(tokens.last == (try pruning.currentChangeToken).stringValue)
    }

    @Test(
        "--follow prints a change made by another process within a second, and exits 0 on SIGINT and SIGTERM",
        ProcessBudget.alone)
    func follow() async throws {
        let sandbox = try Sandbox("events-follow")
        let content = try sandbox.populateCatalog()
        let library = sandbox.openCatalog()
        for signal in [SIGINT, SIGTERM] {
            let since = try library.currentChangeToken
            let follower = try BackgroundPhotodrop(sandbox, ["events", "--follow", "--since", since.stringValue])
            // A first change, seen once the follower has started.
            try library.performChangesAndWait {
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Started \(signal)")
            }
            #expect(await eventually(timeout: 20) { follower.jsonLines.count == 1 }, "\(follower.stderr)")
            // A change by this test process through the API.
            let asset = try #require(
                try Asset.fetchAssets(withLocalIdentifiers: [content.photo2], library: library).firstObject)
            let flag = !asset.isFavorite
            try library.performChangesAndWait { try AssetChangeRequest(for: asset).isFavorite = flag }
            #expect(await eventually(timeout: 10) { follower.jsonLines.count == 2 }, "\(follower.stderr)")
            // Latency from the commit (the change's own date) to the line's arrival (stdout's modification time), so
            // that a test process slow to look, busy with other tests on two cores, does not count.
            let latency = try Self.latency(of: follower, line: 1)
            #expect(latency < 1.0, "the follower took \(latency) s")
            #expect((follower.jsonLines[1]["assets"] as? [String: [String]])?["updated"] == [content.photo2])

            // A change by a second photodrop process.
            let renamed = try await sandbox.run(["album", "rename", content.family, "Family \(signal)"])
            #expect(renamed.status == 0, "\(renamed)")
            #expect(await eventually(timeout: 10) { follower.jsonLines.count == 3 })
            let secondLatency = try Self.latency(of: follower, line: 2)
            #expect(secondLatency < 1.0, "seen within a second, not \(secondLatency) s")
            #expect((follower.jsonLines[2]["albums"] as? [String: [String]])?["updated"] == [content.family])

            #expect(try await follower.stop(signal: signal) == 0, "signal \(signal): \(follower.stderr)")
            #expect(follower.stderr.isEmpty, "\(follower.stderr)")
        }
    }

    /// Seconds from the commit of the change printed as `line` (its `date`) to when it was written: the last line
    /// written, since the test makes its next change only after reading this one.
    static func latency(of follower: BackgroundPhotodrop, line: Int) throws -> TimeInterval {
        let written = try #require(follower.stdoutModified)
        let stamp = try #require(follower.jsonLines[line]["date"] as? String)
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let committed = try #require(format.date(from: stamp), "a commit date: \(stamp)")
        #expect(written.timeIntervalSince(committed) > -0.05, "written before its commit? \(stamp), \(written)")
        return written.timeIntervalSince(committed)
    }

    @Test("--follow before the library exists waits for it; plain events says there is none")
    func followWaitsForLibrary() async throws {
        let sandbox = try Sandbox("events-wait")
        let plain = try await sandbox.run(["events"])
        #expect(plain.status == 1 && plain.stderr.contains("no library yet"), "\(plain)")
        let follower = try BackgroundPhotodrop(sandbox, ["events", "--follow"])
        #expect(await eventually(timeout: 10) { follower.stderr.contains("waiting for it to be created") })
        #expect(!FileManager.default.fileExists(atPath: sandbox.library.path), "the follower creates nothing")
        let content = try sandbox.populateCatalog()
        #expect(await eventually(timeout: 10) { follower.jsonLines.count == 1 }, "\(follower.stdout)\n\(follower.stderr)")
        let inserted = (follower.jsonLines.first?["assets"] as? [String: [String]])?["inserted"] ?? []
        #expect(Set(inserted) == Set(content.assets))
        #expect(try await follower.stop(signal: SIGTERM) == 0)
    }
}
