import Foundation
import TestFixtures
import Testing

@Suite("photodrop probe", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct ProbeCommandTests {
    /// A folder of generated files: accepted ones, rejected ones, a dot file and a nested folder.
    private func mixedFolder(_ sandbox: Sandbox) throws -> URL {
        try sandbox.write(
            "Probe/a-photo.jpg", MediaFixtures.jpeg(seed: 1, width: 640, height: 480, taken: "2021:06:05 14:30:00"))
        try sandbox.write("Probe/b-image.png", MediaFixtures.png(width: 30, height: 20))
        try sandbox.write("Probe/c-anim.gif", MediaFixtures.gif(width: 8, height: 8))
        try sandbox.write("Probe/d-notes.txt", MediaFixtures.text)
        try sandbox.write("Probe/e-empty.jpg", [])
        try sandbox.write("Probe/f-cut.jpg", MediaFixtures.jpeg(seed: 2, complete: false))
        try sandbox.write("Probe/.hidden.jpg", MediaFixtures.jpeg(seed: 3))
        try sandbox.write("Probe/.cache/skipped.jpg", MediaFixtures.jpeg(seed: 4))
        try sandbox.write("Probe/Nested/g-deep.jpg", MediaFixtures.jpeg(seed: 5))
        return sandbox.root.appendingPathComponent("Probe")
    }

    @Test("--json: one object per file with path, outcome, reason, message, mime and metadata; folders recursively")
    func json() async throws {
        let sandbox = try Sandbox("probe-json")
        let folder = try mixedFolder(sandbox)
        let result = try await sandbox.run(["probe", "--json", folder.path])
        #expect(result.status == 1, "rejected files make the exit status 1\n\(result)")
        let items = try result.jsonLines()
        let byName = Dictionary(
            uniqueKeysWithValues: items.map {
                (($0["path"] as? String).map { ($0 as NSString).lastPathComponent } ?? "", $0)
            })
        #expect(
            items.compactMap { ($0["path"] as? String).map { ($0 as NSString).lastPathComponent } } == [
                "g-deep.jpg", "a-photo.jpg", "b-image.png", "c-anim.gif", "d-notes.txt", "e-empty.jpg", "f-cut.jpg",
            ], "name order (Nested sorts before a-photo.jpg), dot entries skipped, nested folders walked\n\(result)")
        let photo = try #require(byName["a-photo.jpg"])
        #expect(photo["outcome"] as? String == "photo")
        #expect(photo["reason"] is NSNull)
        #expect(photo["mime"] as? String == "image/jpeg")
        #expect(photo["pixelWidth"] as? Int == 640 && photo["pixelHeight"] as? Int == 480)
        #expect(photo["captureDate"] as? String == "2021-06-05T14:30:00.000Z")
        #expect(photo["captureDateSource"] as? String == "exif")
        #expect(photo["path"] as? String == folder.appendingPathComponent("a-photo.jpg").path)
        #expect(photo.keys.contains("message") && photo.keys.contains("isAnimated") && photo.keys.contains("location"))
        #expect(byName["b-image.png"]?["outcome"] as? String == "photo")
        #expect(byName["b-image.png"]?["mime"] as? String == "image/png")
        #expect(byName["c-anim.gif"]?["outcome"] as? String == "gif")
        for (name, reason) in [("d-notes.txt", "unsupportedType"), ("e-empty.jpg", "empty"), ("f-cut.jpg", "corrupt")] {
            #expect(byName[name]?["outcome"] as? String == "rejected", "\(name)")
            #expect(byName[name]?["reason"] as? String == reason, "\(name)")
            #expect(((byName[name]?["message"] as? String) ?? "").isEmpty == false, "\(name)")
        }
        let keys = try #require(result.stdout.split(separator: "\n").first)
        #expect(keys.hasPrefix("{\"path\":"), "path comes first: \(keys)")
        #expect(keys.contains("\"outcome\":\"photo\",\"reason\":null,\"message\":"))
    }

    @Test("text: a block per file with outcome, reason, message, MIME type and metadata; exit 0 when all accepted")
    func text() async throws {
        let sandbox = try Sandbox("probe-text")
        let photo = try sandbox.write(
            "a.jpg", MediaFixtures.jpeg(seed: 1, width: 640, height: 480, taken: "2021:06:05 14:30:00"))
        let gif = try sandbox.write("b.gif", MediaFixtures.gif())
        let result = try await sandbox.run(["probe", photo.path, gif.path])
        #expect(result.status == 0, "\(result)")
        let lines = result.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first == photo.path)
        #expect(lines.contains { $0.hasPrefix("  outcome") && $0.hasSuffix("photo") })
        #expect(lines.contains { $0.hasPrefix("  reason") && $0.hasSuffix("-") })
        #expect(lines.contains { $0.hasPrefix("  mime") && $0.contains("image/jpeg") })
        #expect(lines.contains { $0.hasPrefix("  taken") && $0.contains("2021-06-05 14:30:00 local time (zone unknown) (from exif)") })
        #expect(lines.contains { $0.hasPrefix("  pixels") && $0.contains("640×480") })
        #expect(lines.contains(gif.path))
        #expect(lines.last == "2 files probed: 2 accepted, 0 rejected", "\(result)")
        #expect(sandbox.files(under: sandbox.root).contains("a.jpg"), "probe touches nothing")
        #expect(!FileManager.default.fileExists(atPath: sandbox.library.path), "probe creates no library")
    }

    @Test("a folder is walked with the daemon's ignore rules: temporary, hidden and ignored names are counted, not probed")
    func ignoreRules() async throws {
        let sandbox = try Sandbox("probe-ignore", settings: ["ignore": ["@eaDir", "*.xmp"]])
        try sandbox.write("Probe/keep.jpg", MediaFixtures.jpeg(seed: 1))
        try sandbox.write("Probe/upload.jpg.part", MediaFixtures.jpeg(seed: 2))
        try sandbox.write("Probe/download.jpg.crdownload", MediaFixtures.jpeg(seed: 3))
        try sandbox.write("Probe/edit.jpg~", MediaFixtures.jpeg(seed: 4))
        try sandbox.write("Probe/.rsync.jpg.Ab12Cd", MediaFixtures.jpeg(seed: 5))
        try sandbox.write("Probe/keep.xmp", MediaFixtures.text)
        try sandbox.write("Probe/@eaDir/thumb.jpg", MediaFixtures.jpeg(seed: 6))
        try sandbox.write("Probe/Nested/deep.jpg", MediaFixtures.jpeg(seed: 7))
        let folder = sandbox.root.appendingPathComponent("Probe")
        let result = try await sandbox.run(["probe", folder.path])
        #expect(result.status == 0, "\(result)")
        let probed = result.stdout.split(separator: "\n").filter { $0.hasPrefix("/") }.map {
            ($0 as NSString).lastPathComponent
        }
        #expect(probed == ["deep.jpg", "keep.jpg"], "\(result)")
        #expect(
            result.stdout.contains("2 files probed: 2 accepted, 0 rejected; 6 skipped (hidden or temporary names"),
            "\(result)")
        let json = try await sandbox.run(["probe", "--json", folder.path])
        #expect(try json.jsonLines().count == 2, "\(json)")
        #expect(json.stderr.contains("6 skipped"), "\(json)")
        // A file named on the command line is probed whatever its name.
        let named = try await sandbox.run(["probe", "--json", folder.appendingPathComponent("upload.jpg.part").path])
        #expect(try named.jsonLines().first?["outcome"] as? String == "photo", "\(named)")
    }

    @Test("rejected and unreadable files: reason codes in text, outcome failed, exit 1")
    func rejectedAndMissing() async throws {
        let sandbox = try Sandbox("probe-bad")
        let notes = try sandbox.write("notes.txt", MediaFixtures.text)
        let missing = sandbox.root.appendingPathComponent("nope.jpg").path
        let result = try await sandbox.run(["probe", notes.path, missing])
        #expect(result.status == 1, "\(result)")
        #expect(result.stdout.contains("unsupportedType"))
        #expect(result.stdout.contains("failed"))
        #expect(result.stdout.contains(missing))
        #expect(result.stdout.contains("2 files probed: 0 accepted, 1 rejected, 1 unreadable"), "\(result)")
        let json = try await sandbox.run(["probe", "--json", missing])
        #expect(json.status == 1)
        let item = try #require(try json.jsonLines().first)
        #expect(item["outcome"] as? String == "failed" && item["reason"] is NSNull)
        #expect((item["message"] as? String)?.contains("No such file") == true, "\(json)")
        let empty = try await sandbox.run(["probe", sandbox.inbox.path])
        #expect(empty.status == 1 && empty.stderr.contains("no files to probe"), "\(empty)")
        let usage = try await sandbox.run(["probe"])
        #expect(usage.status == 2 && usage.stderr.contains("missing argument FILE"), "\(usage)")
    }

    @Test("the corpus: every file's outcome and reason as EXPECTED.tsv says")
    func corpus() async throws {
        try skipUnless(corpusFolder != nil, "../shared/corpus/dev is absent")
        let corpus = try #require(corpusFolder)
        let sandbox = try Sandbox("probe-corpus")
        let expected = try String(contentsOf: corpus.appendingPathComponent("EXPECTED.tsv"), encoding: .utf8)
            .split(separator: "\n").dropFirst().map { $0.split(separator: "\t", omittingEmptySubsequences: false) }
        let result = try await sandbox.run(["probe", "--json", corpus.path])
        let items = try result.jsonLines()
        var byName: [String: [String: Any]] = [:]
        for item in items {
            if let path = item["path"] as? String { byName[(path as NSString).lastPathComponent] = item }
        }
        for row in expected where row.count >= 3 {
            let name = String(row[0])
            let outcome = String(row[2])
            let item = try #require(byName[name], "\(name) was not probed")
            if outcome == "rejected" {
                let reasons = row.count > 3 ? row[3].split(separator: "|").map(String.init) : []
                #expect(item["outcome"] as? String == "rejected", "\(name): \(item)")
                if !reasons.isEmpty {
                    #expect(reasons.contains(item["reason"] as? String ?? ""), "\(name): \(item)")
                }
            } else {
                #expect(item["outcome"] as? String == outcome, "\(name): \(item)")
            }
        }
        #expect(result.status == 1, "the corpus has rejected files")
    }
}
