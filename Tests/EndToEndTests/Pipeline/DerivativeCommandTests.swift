import Foundation
import PhotoCatalog
import TestFixtures
import Testing

/// Thumbnails and previews through the command line and the daemon: `import` makes them after its last commit,
/// `watch` in the background, `thumbnails` for a whole library, `thumbnail` one of any size; `show` lists them,
/// `verify` checks them, a purge removes them. The pictures are read back by Pillow.
@Suite(
    "thumbnails and previews", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"),
    .requires(Pillow.isAvailable, "python3 with Pillow (pip install Pillow)"), ProcessBudget.endToEnd,
    .timeLimit(.minutes(10)))
struct DerivativeCommandTests {
    /// A 2000 × 1500 photo, green on its upper half and purple below, at `relative` in the sandbox.
    private func photo(_ sandbox: Sandbox, _ relative: String, shade: Int = 0) throws -> URL {
        let url = sandbox.root.appendingPathComponent(relative)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let folder = try TemporaryFolder("pillow")
        try Pillow.run(
            """
            img = Image.new('RGB', (2000, 1500), (30, \(180 + shade), 60))
            img.paste((150, 40, 170), (0, 750, 2000, 1500))
            img.save(out('p.jpg'), quality=92)
            """, in: folder)
        try FileManager.default.moveItem(atPath: folder.url("p.jpg"), toPath: url.path)
        return url
    }

    private func derivatives(_ sandbox: Sandbox, _ id: String) async throws -> [[String: Any]] {
        let shown = try await sandbox.run(["show", id, "--json"])
        #expect(shown.status == 0, "\(shown)")
        return try shown.jsonObject()["derivatives"] as? [[String: Any]] ?? []
    }

    private func near(_ seen: (Double, Double, Double), _ expected: (Double, Double, Double)) -> Bool {
        abs(seen.0 - expected.0) <= 8 && abs(seen.1 - expected.1) <= 8 && abs(seen.2 - expected.2) <= 8
    }

    @Test("import makes them; --no-derivatives and 'thumbnails' later; verify, a lost file remade; thumbnail at any size")
    func importThumbnailsVerify() async throws {
        let sandbox = try Sandbox("derivatives")
        _ = try photo(sandbox, "photos/Trip/a.jpg")
        let imported = try await sandbox.run(["import", sandbox.root.appendingPathComponent("photos").path, "--json"])
        #expect(imported.status == 0, "\(imported)")
        let summary = try imported.jsonObject()
        #expect((summary["derivatives"] as? [String: Any])?["made"] as? Int == 1, "\(imported)")
        let id = try #require((summary["items"] as? [[String: Any]])?.first?["id"] as? String)
        let made = try await derivatives(sandbox, id)
        #expect(made.map { $0["kind"] as? String } == ["thumbnail", "preview"])
        #expect(made.map { $0["mime"] as? String } == ["image/webp", "image/jpeg"])
        #expect(made.map { [$0["pixelWidth"] as? Int, $0["pixelHeight"] as? Int] } == [[512, 384], [1440, 1080]])
        let folder = try TemporaryFolder("seen")
        for derivative in made {
            let path = try #require(derivative["path"] as? String)
            #expect(path.hasPrefix(sandbox.library.appendingPathComponent("derivatives").path))
            let seen = try Pillow.read(try Data(contentsOf: URL(fileURLWithPath: path)), as: "d", in: folder)
            #expect(seen.size == (derivative["pixelWidth"] as? Int ?? 0, derivative["pixelHeight"] as? Int ?? 0))
            #expect(near(seen.mean(0, 0, 1, 0.4), (30, 180, 60)), "\(path): top \(seen.mean(0, 0, 1, 0.4))")
            #expect(near(seen.mean(0, 0.6, 1, 0.4), (150, 40, 170)), "\(path): bottom \(seen.mean(0, 0.6, 1, 0.4))")
        }
        let text = try await sandbox.run(["show", id])
        #expect(text.stdout.contains("Thumbnail  512 × 384 image/webp"), "\(text)")
        #expect(try await sandbox.run(["verify"]).status == 0)

        // Without derivatives now; `thumbnails` makes what is missing, and then nothing.
        _ = try photo(sandbox, "later/b.jpg", shade: 20)
        let lazy = try await sandbox.run(["import", "--no-derivatives", sandbox.root.appendingPathComponent("later").path, "--json"])
        let lazyID = try #require((try lazy.jsonObject()["items"] as? [[String: Any]])?.first?["id"] as? String)
        #expect(try lazy.jsonObject()["derivatives"] == nil)
        #expect(try await derivatives(sandbox, lazyID).isEmpty)
        let shownLazy = try await sandbox.run(["show", lazyID])
        #expect(shownLazy.stdout.contains("not made yet"), "\(shownLazy)")
        let thumbnails = try await sandbox.run(["thumbnails", "--json"])
        #expect(thumbnails.status == 0, "\(thumbnails)")
        #expect(try thumbnails.jsonObject()["made"] as? Int == 1, "\(thumbnails)")
        #expect(try await derivatives(sandbox, lazyID).count == 2)
        #expect(try await sandbox.run(["thumbnails", "--json"]).jsonObject()["made"] as? Int == 0)

        // A lost preview: verify says so (exit 1) and what to run; `thumbnails` makes it again.
        let lost = try #require(try await derivatives(sandbox, lazyID).last?["path"] as? String)
        try FileManager.default.removeItem(atPath: lost)
        let damaged = try await sandbox.run(["verify", "--json"])
        #expect(damaged.status == 1, "\(damaged)")
        #expect(damaged.stdout.contains("damagedDerivative") && damaged.stdout.contains("photodrop thumbnails"), "\(damaged)")
        #expect(try await sandbox.run(["thumbnails", "--json"]).jsonObject()["made"] as? Int == 1)
        #expect(try await sandbox.run(["verify"]).status == 0)
        #expect(try await sandbox.run(["thumbnails", "--rebuild", "--json"]).jsonObject()["made"] as? Int == 2)

        // photodrop is its own render helper also when its file has another name (an installed copy, a release).
        let renamed = sandbox.root.appendingPathComponent("photodrop-2.0")
        try FileManager.default.copyItem(at: try #require(PhotodropBinary.url), to: renamed)
        let copy = try await runProcess(renamed, ["--config", sandbox.config.path, "thumbnails", "--rebuild", "--json"])
        let copied = try copy.jsonObject()["made"] as? Int
        #expect(copy.status == 0 && copied == 2, "\(copy)")

        // One picture of any size, fitted or filled, in the format of -o's extension.
        let fitted = sandbox.root.appendingPathComponent("fit.webp")
        let fit = try await sandbox.run(["thumbnail", String(id.prefix(8)), "--size", "200", "-o", fitted.path])
        #expect(fit.status == 0, "\(fit)")
        let fitSeen = try Pillow.read(try Data(contentsOf: fitted), as: "fit.webp", in: folder)
        let fitBytes = try Data(contentsOf: fitted)
        #expect(fitSeen.size == (200, 150) && fitBytes.starts(with: Array("RIFF".utf8)))
        let filled = sandbox.root.appendingPathComponent("fill.jpg")
        #expect(try await sandbox.run(["thumbnail", id, "--size", "200", "--fill", "--output", filled.path]).status == 0)
        #expect(try Pillow.read(try Data(contentsOf: filled), as: "fill.jpg", in: folder).size == (200, 200))
        let large = try await sandbox.run(["thumbnail", id, "--size", "4000", "-o", filled.path])
        #expect(large.status == 0 && large.stderr.contains("2000 × 1500"), "never enlarged: \(large)")
        let badSize = try await sandbox.run(["thumbnail", id, "--size", "0", "-o", filled.path])
        #expect(badSize.status == 2 && badSize.stderr.contains("--size"), "\(badSize)")

        // A purge removes the files with the asset.
        let paths = try await derivatives(sandbox, id).compactMap { $0["path"] as? String }
        #expect(try await sandbox.run(["delete", id]).status == 0)
        #expect(paths.allSatisfy { FileManager.default.fileExists(atPath: $0) }, "kept in Recently Deleted")
        #expect(try await sandbox.run(["trash", "empty"]).status == 0)
        #expect(paths.allSatisfy { !FileManager.default.fileExists(atPath: $0) })
        #expect(try await sandbox.run(["verify"]).status == 0)
    }

    @Test("watch makes them in the background after the commit, and catches up a library that has none at start")
    func watchMakesThem() async throws {
        let sandbox = try Sandbox("derivatives-watch")
        _ = try photo(sandbox, "old/a.jpg")
        let old = try await sandbox.run(["import", "--no-derivatives", sandbox.root.appendingPathComponent("old").path, "--json"])
        let oldID = try #require((try old.jsonObject()["items"] as? [[String: Any]])?.first?["id"] as? String)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        #expect(await eventually(timeout: 30) { (try? await derivatives(sandbox, oldID).count) == 2 }, "\(daemon.log)")
        _ = try photo(sandbox, "Inbox/Trip/new.jpg", shade: 30)
        let outcome = try #require(await daemon.waitForOutcomes(1, timeout: 30).first, "\(daemon.log)")
        let newID = try #require(outcome["asset"] as? String, "\(outcome)")
        #expect(await eventually(timeout: 30) { (try? await derivatives(sandbox, newID).count) == 2 }, "\(daemon.log)")
        #expect(!daemon.log.contains("VIPS-WARNING"), "decoder messages go to the log as JSON, not raw to stderr")
        #expect(try await daemon.stop() == 0)
    }

    @Test("watch within decodeMemoryMiB: huge decodes take turns, a phone-sized photo dropped behind them does not wait")
    func watchSmallLane() async throws {
        let sandbox = try Sandbox(
            "derivatives-budget",
            settings: ["decodeMemoryMiB": 400, "metrics": ["textfile": "metrics.prom", "intervalSeconds": 1]])
        let folder = try TemporaryFolder("pillow-big")
        // Progressive 4:4:4 JPEGs of 6000 × 6000: libjpeg holds about 216 MB of coefficients for each, so that at most
        // one fits the 300 MiB large lane of a 400 MiB budget.
        try await Pillow.make(
            """
            base = Image.linear_gradient('L').resize((6000, 6000)).convert('RGB')
            for i in range(4):
                base.rotate(90 * i).save(out('big%d.jpg' % i), quality=85, progressive=True, subsampling=0)
            """, in: folder)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        try FileManager.default.createDirectory(
            at: sandbox.inbox.appendingPathComponent("Big"), withIntermediateDirectories: true)
        for i in 0..<4 {
            try FileManager.default.moveItem(
                atPath: folder.url("big\(i).jpg"), toPath: sandbox.inbox.appendingPathComponent("Big/big\(i).jpg").path)
        }
        let bigs = await daemon.waitForOutcomes(4, timeout: 60).compactMap { $0["asset"] as? String }
        #expect(bigs.count == 4, "\(daemon.log)")
        _ = try photo(sandbox, "Inbox/Phone/small.jpg")
        let outcomes = await daemon.waitForOutcomes(5, timeout: 60)
        let small = try #require(outcomes.compactMap { $0["asset"] as? String }.first { !bigs.contains($0) })
        #expect(await eventually(timeout: 60) { (try? await derivatives(sandbox, small).count) == 2 }, "\(daemon.log)")
        var bigsDone = 0
        for big in bigs where (try await derivatives(sandbox, big)).count == 2 { bigsDone += 1 }
        #expect(bigsDone < 4, "the small photo's thumbnail came while huge ones were still being decoded")
        for big in bigs {
            #expect(await eventually(timeout: 120) { (try? await derivatives(sandbox, big).count) == 2 }, "\(daemon.log)")
        }
        let metrics = try String(contentsOf: sandbox.root.appendingPathComponent("metrics.prom"), encoding: .utf8)
        #expect(metrics.contains("photodrop_decode_memory_budget_bytes 419430400"), "\(metrics)")
        #expect(metrics.contains("photodrop_decodes_waiting_for_memory 0"), "\(metrics)")
        #expect(try await daemon.stop() == 0)
    }
}
