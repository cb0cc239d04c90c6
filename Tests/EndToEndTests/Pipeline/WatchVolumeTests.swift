import Foundation
import PhotodropSystem
import TestFixtures
import Testing

/// `photodrop watch` under volume: a burst into a new folder, the real-media corpus.
@Suite("watch: bursts and the corpus", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct WatchVolumeTests {
    @Test("2,000 files moved at once into a brand-new album folder make one album with 2,000 assets")
    func burstIntoNewFolder() async throws {
        let sandbox = try Sandbox("burst")
        let source = try sandbox.staging("burst")
        let files = try TinyJPEG.write(count: 2000, into: source)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = try sandbox.inboxAlbum("Burst")
        try sandbox.move(files, into: album)
        let outcomes = await daemon.waitForOutcomes(2000, timeout: 120)
        #expect(try await daemon.stop() == 0)
        #expect(outcomes.count == 2000, "\(outcomes.count) outcomes")
        #expect(outcomes.allSatisfy { $0["outcome"] as? String == "photo" })
        let library = try LibraryCheck(sandbox)
        #expect(try library.albums() == ["Burst": 2000])
        #expect(try library.assetCount == 2000)
        // Group commit: the burst arrives together, so it is committed in a few large transactions.
        let transactions = try library.count(
            "SELECT count(DISTINCT token) FROM change_log WHERE object_type = 1 AND change_type = 0")
        #expect(transactions >= 1 && transactions <= 200, "2,000 files in \(transactions) transactions")
        #expect(sandbox.inboxFiles.isEmpty)
        try await library.expectConsistent()
    }

    @Test("files that trickle in are committed one at a time, each without waiting for a batch to fill")
    func trickleIsCommittedAtOnce() async throws {
        let sandbox = try Sandbox("trickle", settings: ["settleMilliseconds": 0])
        let source = try sandbox.staging("trickle")
        let files = try TinyJPEG.write(count: 5, into: source)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = try sandbox.inboxAlbum("Trickle")
        for (index, file) in files.enumerated() {
            try sandbox.move([file], into: album)
            // Each file is committed before the next one arrives: nothing holds it back to fill a batch.
            #expect(await eventually(timeout: 10) { daemon.outcomes.count == index + 1 }, "file \(index) not committed")
        }
        #expect(try await daemon.stop() == 0)
        let library = try LibraryCheck(sandbox)
        let transactions = try library.count(
            "SELECT count(DISTINCT token) FROM change_log WHERE object_type = 1 AND change_type = 0")
        #expect(transactions == files.count, "\(files.count) trickled files in \(transactions) transactions")
        #expect(try library.albums() == ["Trickle": files.count])
        try await library.expectConsistent()
    }

    @Test(
        "the whole dev corpus dropped in: Library and Rejected/ match EXPECTED.tsv", .requires(corpusFolder != nil, "../shared/corpus/dev is absent"))
    func corpus() async throws {
        guard let corpus = corpusFolder else { return }
        let expected = try CorpusExpectation.load(corpus)
        let sandbox = try Sandbox("corpus", settings: ["incompleteGraceSeconds": 1])
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = try sandbox.inboxAlbum("Corpus")
        for entry in expected {
            try await sandbox.tool("/bin/cp", [corpus.appendingPathComponent(entry.file).path, album.path + "/"])
        }
        let outcomes = await daemon.waitForOutcomes(expected.count, timeout: 120)
        #expect(try await daemon.stop() == 0)
        #expect(outcomes.count == expected.count, "\(daemon.log)")
        var byName: [String: [String: Any]] = [:]
        for line in outcomes {
            if let path = line["path"] as? String { byName[(path as NSString).lastPathComponent] = line }
        }
        let library = try LibraryCheck(sandbox)
        let stored = try library.storedContents()
        let rejectedFolder = sandbox.rejected.appendingPathComponent("Corpus")
        for entry in expected {
            let line = byName[entry.file]
            if entry.outcome == "rejected" {
                #expect(line?["outcome"] as? String == "rejected", "\(entry.file): \(String(describing: line))")
                #expect(stored[entry.sha256] == nil, "\(entry.file) was stored but should be rejected")
                let reasonURL = rejectedFolder.appendingPathComponent(entry.file + ".reason.json")
                let reason = (try? JSONSerialization.jsonObject(with: Data(contentsOf: reasonURL))) as? [String: Any]
                let code = reason?["code"] as? String ?? "missing"
                #expect(entry.reasons.contains(code), "\(entry.file): reason \(code), expected \(entry.reasons)")
                #expect(
                    FileManager.default.fileExists(atPath: rejectedFolder.appendingPathComponent(entry.file).path),
                    "\(entry.file) is not in Rejected/Corpus")
                for key in ["code", "message", "mime", "source", "time"] {
                    #expect(reason?[key] != nil, "\(entry.file).reason.json lacks \(key)")
                }
            } else {
                #expect(line?["outcome"] as? String == entry.outcome, "\(entry.file): \(String(describing: line))")
                #expect(stored[entry.sha256] == 1, "\(entry.file) is not stored exactly once")
            }
        }
        let accepted = expected.filter { $0.outcome != "rejected" }.count
        #expect(try library.albums() == ["Corpus": accepted])
        #expect(sandbox.inboxFiles.isEmpty, "\(sandbox.inboxFiles)")
        try await library.expectConsistent()
    }
}

/// One row of `corpus/dev/EXPECTED.tsv`.
struct CorpusExpectation {
    var file: String
    var sha256: String
    var outcome: String
    var reasons: [String]

    static func load(_ corpus: URL) throws -> [CorpusExpectation] {
        let text = try String(contentsOf: corpus.appendingPathComponent("EXPECTED.tsv"), encoding: .utf8)
        return text.split(separator: "\n").dropFirst().compactMap { line in
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3 else { return nil }
            let reasons = fields.count > 3 ? fields[3].split(separator: "|").map(String.init) : []
            return CorpusExpectation(file: fields[0], sha256: fields[1], outcome: fields[2], reasons: reasons)
        }
    }
}
