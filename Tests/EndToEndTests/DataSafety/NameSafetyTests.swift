import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// The data-loss issue's cases 7 and 8, and names with newlines: rejected files keep a usable name, nothing is written
/// through a link under `Rejected/`, and names that are not UTF-8 or hold newlines come out of every JSON writer in
/// escapes that give the original bytes back.
@Suite("names: long, not UTF-8, with newlines; links under Rejected/", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct NameSafetyTests {
    /// Creates a file whose name is `bytes` in `folder` (through the raw bytes, which Foundation cannot name).
    func writeFile(named bytes: [UInt8], in folder: URL, contents: [UInt8]) throws {
        let path = Array(folder.path.utf8) + [UInt8(ascii: "/")] + bytes + [0]
        let fd = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY | O_EXCL, 0o644) }
        }
        #expect(fd >= 0, "create \(bytes)")
        _ = contents.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
        close(fd)
    }

    /// The raw names in `folder` (bytes).
    func rawNames(in folder: URL) -> [[UInt8]] {
        guard let directory = opendir(folder.path) else { return [] }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: 256) { Array(UnsafeBufferPointer(start: $0, count: strlen(UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self)))) }
            }
            if name != [46] && name != [46, 46] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    @Test("a 255-byte name keeps its extension in Rejected/, and its clash suffix and .reason.json fit")
    func longNames() async throws {
        let (sandbox, daemon) = try await watchingSandbox("long-names", settings: ["settleMilliseconds": 50])
        let album = try sandbox.inboxAlbum("Docs")
        // 251 bytes of stem + ".pdf" = 255; and one with multi-byte characters (é is 2 bytes) that must not be cut
        // in half.
        let plain = String(repeating: "L", count: 251) + ".pdf"
        let accented = String(repeating: "é", count: 125) + "x.pdf"
        #expect(plain.utf8.count == 255 && accented.utf8.count == 255)
        for name in [plain, accented] {
            try Data("not a photo\n".utf8).write(to: album.appendingPathComponent(name))
        }
        #expect(await daemon.waitForOutcomes(2).count == 2)
        // The same long name again: its clash suffix must fit too.
        try Data("another document\n".utf8).write(to: album.appendingPathComponent(plain))
        #expect(await daemon.waitForOutcomes(3).count == 3)
        #expect(try await daemon.stop() == 0)
        let rejected = try FileManager.default.contentsOfDirectory(atPath: sandbox.rejected.appendingPathComponent("Docs").path)
        let files = rejected.filter { !$0.hasSuffix(".reason.json") }
        #expect(files.count == 3, "\(rejected)")
        for file in files {
            #expect(file.hasSuffix(".pdf"), "the extension is kept: \(file)")
            #expect(file.utf8.count + ".reason.json".utf8.count <= 255, "\(file.utf8.count) bytes")
            #expect(rejected.contains(file + ".reason.json"), "its reason is beside it")
        }
        #expect(files.contains { $0.hasPrefix("é") && $0.unicodeScalars.allSatisfy { $0 != "\u{FFFD}" } })
        #expect(files.contains { $0.contains(" (2).pdf") }, "\(files)")
        #expect(sandbox.inboxFiles.isEmpty)
    }

    @Test("names that are not UTF-8: taken, stored or rejected under their own bytes, \\udcXX in every JSON")
    func namesThatAreNotUTF8() async throws {
        let (sandbox, daemon) = try await watchingSandbox("latin1", settings: ["settleMilliseconds": 50])
        let album = try sandbox.inboxAlbum("Trip")
        let photoName = Array("M".utf8) + [0xFC] + Array("nchen.jpg".utf8)
        let noteName = Array("caf".utf8) + [0xE9] + Array(".txt".utf8)
        try writeFile(named: photoName, in: album, contents: TinyJPEG.bytes(40))
        try writeFile(named: noteName, in: album, contents: Array("a note\n".utf8))
        // Foundation's JSON parser refuses lone surrogates (Python's and jq's read them), so the lines are counted
        // as text here.
        let finished = await eventually(timeout: 30) {
            daemon.log.split(separator: "\n").filter { $0.contains("\"outcome\":") }.count >= 2
        }
        #expect(try await daemon.stop() == 0)
        #expect(finished, "\(daemon.log)")
        // The JSON log carries the names as surrogate escapes (Python: json.loads, then os.fsencode).
        #expect(daemon.log.contains("Trip/M\\udcfcnchen.jpg"), "\(daemon.log)")
        #expect(daemon.log.contains("Trip/caf\\udce9.txt"))
        // The rejected note keeps its exact bytes, and its reason.json says where it came from, escaped.
        let rejectedFolder = sandbox.rejected.appendingPathComponent("Trip")
        #expect(rawNames(in: rejectedFolder).contains(noteName))
        let reasonName = noteName + Array(".reason.json".utf8)
        #expect(rawNames(in: rejectedFolder).contains(reasonName))
        // Copied to a plain name, since Foundation cannot name the file.
        let reasonCopy = sandbox.root.appendingPathComponent("reason-copy.json")
        let rawPath = Array(rejectedFolder.path.utf8) + [UInt8(ascii: "/")] + reasonName + [0]
        let input = rawPath.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY) }
        }
        #expect(input >= 0)
        var bytes = [UInt8](repeating: 0, count: 4096)
        let count = read(input, &bytes, bytes.count)
        close(input)
        try Data(bytes[0..<max(0, count)]).write(to: reasonCopy)
        let reasonText = try String(contentsOf: reasonCopy, encoding: .utf8)
        #expect(reasonText.contains("caf\\udce9.txt"), "\(reasonText)")
        // And Python gives the original bytes back from it: json.loads, then os.fsencode (surrogateescape).
        let python = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"),
            [
                "python3", "-c",
                "import json, os, sys; print(os.fsencode(json.load(open(sys.argv[1]))['source']).hex())",
                reasonCopy.path,
            ])
        #expect(python.status == 0, "\(python)")
        let expected = (Array(sandbox.inbox.appendingPathComponent("Trip").path.utf8) + [UInt8(ascii: "/")] + noteName)
            .map { String(format: "%02x", $0) }.joined()
        #expect(python.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == expected, "\(python)")
        // The photo is an asset whose original name round-trips.
        let assets = try await sandbox.run(["assets", "--json"])
        #expect(assets.stdout.contains("\"originalFilename\":\"M\\udcfcnchen.jpg\""), "\(assets.stdout)")
        #expect(try LibraryCheck(sandbox).assetCount == 1)
        #expect(sandbox.inboxFiles.isEmpty)
    }

    @Test("a name with a newline: one log line, valid JSON in reason.json and in --json output")
    func newlines() async throws {
        let (sandbox, daemon) = try await watchingSandbox("newline", settings: ["settleMilliseconds": 50, "log": ["format": "text", "level": "info"]])
        let album = try sandbox.inboxAlbum("Lines")
        try Data("text\n".utf8).write(to: album.appendingPathComponent("two\nlines.txt"))
        try Data(TinyJPEG.bytes(41)).write(to: album.appendingPathComponent("photo\nname.jpg"))
        #expect(await eventually(timeout: 30) { sandbox.inboxFiles.isEmpty })
        await pause(300_000)
        #expect(try await daemon.stop() == 0)
        let lines = daemon.log.split(separator: "\n")
        #expect(lines.contains { $0.contains("two\\nlines.txt") }, "escaped in the text log: \(daemon.log)")
        #expect(!lines.contains { $0.hasPrefix("lines.txt") }, "no line was split")
        let folder = sandbox.rejected.appendingPathComponent("Lines")
        let reasonData = try Data(contentsOf: folder.appendingPathComponent("two\nlines.txt.reason.json"))
        let reason = try #require(try JSONSerialization.jsonObject(with: reasonData) as? [String: Any])
        #expect((reason["source"] as? String)?.hasSuffix("Lines/two\nlines.txt") == true)
        let assets = try await sandbox.run(["assets", "--json"]).jsonLines()
        #expect(assets.map { $0["originalFilename"] as? String } == ["photo\nname.jpg"])
        let probe = try await sandbox.run(["probe", "--json", folder.appendingPathComponent("two\nlines.txt").path])
        #expect(try probe.jsonLines().first?["path"] as? String == folder.appendingPathComponent("two\nlines.txt").path)
    }

    @Test("Rejected/<Album> replaced by a link to another folder: nothing is written through it; the file waits")
    func linkUnderRejected() async throws {
        let sandbox = try Sandbox("rejected-link", settings: ["settleMilliseconds": 50])
        let elsewhere = sandbox.root.appendingPathComponent("Elsewhere")
        try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: sandbox.rejected, withIntermediateDirectories: true)
        #expect(symlink(elsewhere.path, sandbox.rejected.appendingPathComponent("Docs").path) == 0)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        try Data("not a photo\n".utf8).write(to: try sandbox.inboxAlbum("Docs").appendingPathComponent("note.txt"))
        var problems: [[String: Any]] = []
        let reported = await eventually(timeout: 20) {
            let status = try? await sandbox.run(["status", "--json"])
            problems = ((try? status?.jsonObject())?["problems"] as? [[String: Any]]) ?? []
            return status?.status == 1 && problems.contains { $0["code"] as? String == "rejectedUnreadable" }
        }
        #expect(reported, "status reports it: \(problems)\n\(daemon.log.suffix(1500))")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere.path).isEmpty, "nothing written outside")
        // Back in the inbox between retries (a retry claims it for a moment, and puts it back when it fails again).
        #expect(await eventually(timeout: 10) { sandbox.inboxFiles == ["Docs/note.txt"] }, "the file stays in the inbox")
        // The link replaced by a real folder: the next retry quarantines the file.
        #expect(unlink(sandbox.rejected.appendingPathComponent("Docs").path) == 0)
        #expect(await eventually(timeout: 30) { sandbox.inboxFiles.isEmpty }, "\(daemon.log.suffix(1500))")
        #expect(try await daemon.stop() == 0)
        #expect(FileManager.default.fileExists(atPath: sandbox.rejected.appendingPathComponent("Docs/note.txt").path))
    }
}
