import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// `photodrop import`: exit codes, --dry-run, --json, --move, --album, re-import.
@Suite("import", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct ImportCommandTests {
    /// A source tree: `Trip/` with photos (one nested), a text file, and photos directly in the root.
    func makeTree(_ sandbox: Sandbox, name: String = "photos", rejected: Bool = true) throws -> URL {
        let tree = sandbox.root.appendingPathComponent(name)
        try TinyJPEG.write(count: 3, startingAt: 0, into: tree.appendingPathComponent("Trip"))
        try TinyJPEG.write(count: 1, startingAt: 3, into: tree.appendingPathComponent("Trip/day 2"))
        try TinyJPEG.write(count: 2, startingAt: 10, into: tree)
        if rejected { try Data("just text\n".utf8).write(to: tree.appendingPathComponent("Trip/notes.txt")) }
        return tree
    }

    @Test("exit 0 when everything is stored, 1 when something is rejected, 2 for usage and configuration errors")
    func exitCodes() async throws {
        let sandbox = try Sandbox("import-exit")
        let clean = try makeTree(sandbox, name: "clean", rejected: false)
        let ok = try await sandbox.run(["import", clean.path])
        #expect(ok.status == 0, "\(ok)")
        #expect(ok.stdout.contains("Imported 6"), "\(ok)")
        let mixed = try makeTree(sandbox, name: "mixed", rejected: true)
        let partly = try await sandbox.run(["import", mixed.path])
        #expect(partly.status == 1, "\(partly)")
        #expect(partly.stderr.contains("notes.txt"), "\(partly)")
        // A file that cannot be read as one (a named pipe, which even root cannot "read" as a photo) fails: exit 1,
        // the rest is still imported.
        let withPipe = try makeTree(sandbox, name: "with-pipe", rejected: false)
        let pipe = withPipe.appendingPathComponent("Trip/stream.jpg")
        #expect(mkfifo(pipe.path, 0o644) == 0)
        let failed = try await sandbox.run(["import", withPipe.path, "--json"])
        #expect(failed.status == 1, "\(failed)")
        let summary = try failed.jsonObject()
        #expect(summary["failed"] as? Int == 1, "\(failed)")
        #expect(summary["duplicates"] as? Int == 6, "the tree's photos are the clean tree's: \(failed)")
        let items = summary["items"] as? [[String: Any]] ?? []
        let pipeItem = items.first { ($0["path"] as? String)?.hasSuffix("stream.jpg") == true }
        #expect(pipeItem?["outcome"] as? String == "failed", "\(items)")
        #expect((pipeItem?["message"] as? String)?.contains("not a regular file") == true, "\(items)")
        #expect(FileManager.default.fileExists(atPath: pipe.path), "a failed file stays where it is")
        let missing = try await sandbox.run(["import", sandbox.root.appendingPathComponent("nope").path])
        #expect(missing.status == 2, "\(missing)")
        #expect(missing.stderr.contains("nope"), "\(missing)")
        for inside in [sandbox.root.path, sandbox.library.appendingPathComponent("originals").path] {
            let refused = try await sandbox.run(["import", "--move", inside])
            #expect(refused.status == 2 && refused.stderr.contains("library"), "\(refused)")
        }
        let noPath = try await sandbox.run(["import"])
        #expect(noPath.status == 2, "\(noPath)")
        try sandbox.writeConfig(["library": "Library", "workers": "many"])
        let badConfig = try await sandbox.run(["import", clean.path])
        #expect(badConfig.status == 2, "\(badConfig)")
        #expect(badConfig.stderr.contains("workers"), "\(badConfig)")
    }

    @Test("--json prints one object with the counts and an item per file")
    func json() async throws {
        let sandbox = try Sandbox("import-json")
        let tree = try makeTree(sandbox)
        let result = try await sandbox.run(["import", tree.path, "--json"])
        #expect(result.status == 1, "\(result)")
        let object = try result.jsonObject()
        #expect(object["imported"] as? Int == 6)
        #expect(object["duplicates"] as? Int == 0)
        #expect(object["rejected"] as? Int == 1)
        #expect(object["failed"] as? Int == 0)
        let items = try #require(object["items"] as? [[String: Any]])
        #expect(items.count == 7)
        for item in items {
            for key in ["path", "outcome", "reason", "message", "mime", "id"] {
                #expect(item.keys.contains(key), "item lacks \(key): \(item)")
            }
        }
        let note = try #require(items.first { ($0["path"] as? String)?.hasSuffix("notes.txt") == true })
        #expect(note["outcome"] as? String == "rejected")
        #expect(note["reason"] as? String == "unsupportedType")
        #expect(note["id"] is NSNull)
        let photos = items.filter { $0["outcome"] as? String == "photo" }
        #expect(photos.count == 6)
        #expect(
            photos.allSatisfy {
                ($0["id"] as? String)?.hasSuffix("/L0/001") == true && $0["mime"] as? String == "image/jpeg"
            })
        let library = try LibraryCheck(sandbox)
        #expect(try library.albums() == ["Trip": 4])
        #expect(try library.assetCount == 6)
        // Sources are kept by default, and a rejected file is only reported.
        #expect(sandbox.files(under: tree).count == 7)
        #expect(sandbox.files(under: sandbox.rejected).isEmpty)
        try await library.expectConsistent()
    }

    /// Runs only as root (with setpriv), because it needs a second user: photodrop opens sources with O_NOATIME,
    /// which Linux grants only to a file's owner, so reading another user's files must fall back to a plain open.
    @Test(
        "files owned by another user are imported and probed (O_NOATIME falls back to a plain open)",
        .requires(getuid() == 0 && FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"), "needs root and setpriv"))
    func readsAnotherUsersFiles() async throws {
        let sandbox = try Sandbox("import-owner")
        let tree = try makeTree(sandbox, rejected: false)
        #expect(chmod(sandbox.root.path, 0o755) == 0)
        guard let binary = PhotodropBinary.url else { throw HarnessError("the photodrop binary is not built") }
        let asNobody = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            [
                "--reuid=65534", "--regid=65534", "--clear-groups", binary.path, "--config", sandbox.config.path,
                "import", "--dry-run", "--json", tree.path,
            ], in: sandbox.root)
        #expect(asNobody.status == 0, "\(asNobody)")
        let summary = try asNobody.jsonObject()
        #expect(summary["imported"] as? Int == 6, "\(asNobody)")
        #expect(summary["failed"] as? Int == 0, "\(asNobody)")
        let photo = tree.appendingPathComponent("Trip").appendingPathComponent(
            try #require(sandbox.files(under: tree.appendingPathComponent("Trip")).first))
        let probed = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=65534", "--regid=65534", "--clear-groups", binary.path, "probe", "--json", photo.path],
            in: sandbox.root)
        #expect(probed.status == 0 && probed.stdout.contains("\"photo\""), "\(probed)")
    }

    @Test("--dry-run reads and judges everything and touches nothing")
    func dryRun() async throws {
        let sandbox = try Sandbox("import-dry")
        let tree = try makeTree(sandbox)
        let before = try snapshot(tree)
        let first = try await sandbox.run(["import", "--dry-run", "--json", tree.path])
        #expect(first.status == 1, "\(first)")
        let object = try first.jsonObject()
        #expect(object["imported"] as? Int == 6 && object["rejected"] as? Int == 1, "\(first)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.library.path), "--dry-run created the library")
        #expect(!FileManager.default.fileExists(atPath: sandbox.rejected.path))
        #expect(try snapshot(tree) == before)

        // Against an existing library: what is stored is reported as a duplicate of its asset, nothing changes.
        let stored = try await sandbox.run(["import", tree.appendingPathComponent("Trip").path, "--album", "Trip"])
        #expect(stored.status == 1, "\(stored)")
        let database = sandbox.library.appendingPathComponent("library.sqlite")
        let assetsBefore = try LibraryCheck(sandbox).assetCount
        let originalsBefore = sandbox.files(under: sandbox.library.appendingPathComponent("originals"))
        let databaseBefore = try databaseBytes(sandbox)
        let second = try await sandbox.run(["import", "--dry-run", tree.path])
        #expect(second.status == 1, "\(second)")
        #expect(second.stdout.components(separatedBy: "duplicate\t").count - 1 == 4, "\(second)")
        #expect(second.stdout.components(separatedBy: "new photo").count - 1 == 2, "\(second)")
        #expect(second.stdout.contains("rejected (unsupportedType)"), "\(second)")
        #expect(try LibraryCheck(sandbox).assetCount == assetsBefore)
        #expect(sandbox.files(under: sandbox.library.appendingPathComponent("originals")) == originalsBefore)
        #expect(FileManager.default.fileExists(atPath: database.path))
        #expect(try snapshot(tree) == before)
        #expect(try databaseBytes(sandbox) == databaseBefore, "--dry-run changed the database or its WAL")

        // --move too: nothing is moved, removed or written.
        let moving = try await sandbox.run(["import", "--dry-run", "--move", "--json", tree.path])
        #expect(moving.status == 1, "\(moving)")
        let summary = try moving.jsonObject()
        #expect(summary["dryRun"] as? Bool == true, "\(moving)")
        #expect(summary["duplicates"] as? Int == 4 && summary["imported"] as? Int == 2, "\(moving)")
        #expect(try snapshot(tree) == before, "--dry-run --move moved or removed a source")
        #expect(sandbox.files(under: sandbox.library.appendingPathComponent("originals")) == originalsBefore)
        #expect(try databaseBytes(sandbox) == databaseBefore, "--dry-run --move changed the database or its WAL")
        #expect(!FileManager.default.fileExists(atPath: sandbox.rejected.path))
    }

    /// The bytes of `library.sqlite` and its write-ahead log (absent counts as empty): what a run that must not
    /// write leaves exactly as it found.
    func databaseBytes(_ sandbox: Sandbox) throws -> [String: Data] {
        var result: [String: Data] = [:]
        for name in ["library.sqlite", "library.sqlite-wal"] {
            let url = sandbox.library.appendingPathComponent(name)
            result[name] = FileManager.default.fileExists(atPath: url.path) ? try Data(contentsOf: url) : Data()
        }
        return result
    }

    @Test("--move moves sources into the library, rejected files into Rejected/, and removes duplicate copies")
    func move() async throws {
        let sandbox = try Sandbox("import-move")
        let tree = try makeTree(sandbox)
        try Data(TinyJPEG.bytes(0)).write(to: tree.appendingPathComponent("Trip/copy of IMG_0.jpg"))
        let result = try await sandbox.run(["import", "--move", tree.path, "--json"])
        #expect(result.status == 1, "\(result)")
        let object = try result.jsonObject()
        #expect(object["imported"] as? Int == 6 && object["duplicates"] as? Int == 1 && object["rejected"] as? Int == 1)
        #expect(sandbox.files(under: tree).isEmpty, "left behind: \(sandbox.files(under: tree))")
        #expect(sandbox.files(under: sandbox.rejected) == ["Trip/notes.txt", "Trip/notes.txt.reason.json"])
        try await LibraryCheck(sandbox).expectConsistent()
    }

    @Test("--album puts every file into one album; a single file can be imported")
    func album() async throws {
        let sandbox = try Sandbox("import-album")
        let tree = try makeTree(sandbox, rejected: false)
        let result = try await sandbox.run(["import", tree.path, "--album", "Everything"])
        #expect(result.status == 0, "\(result)")
        let single = sandbox.root.appendingPathComponent("single.jpg")
        try Data(TinyJPEG.bytes(77)).write(to: single)
        let one = try await sandbox.run(["import", single.path])
        #expect(one.status == 0, "\(one)")
        let library = try LibraryCheck(sandbox)
        #expect(try library.albums() == ["Everything": 6])
        #expect(try library.assetCount == 7)
    }

    @Test("importing the same tree again adds nothing")
    func reimport() async throws {
        let sandbox = try Sandbox("import-again")
        let tree = sandbox.root.appendingPathComponent("many")
        for album in 0..<4 {
            try TinyJPEG.write(
                count: 150, startingAt: album * 1000, into: tree.appendingPathComponent("Album \(album)"))
        }
        let first = try await sandbox.run(["import", tree.path, "--json"])
        #expect(first.status == 0, "\(first)")
        let assets = try LibraryCheck(sandbox).assetCount
        #expect(assets == 600)
        let second = try await sandbox.run(["import", tree.path, "--json"])
        #expect(second.status == 0)
        let object = try second.jsonObject()
        #expect(object["imported"] as? Int == 0 && object["duplicates"] as? Int == 600, "\(object)")
        #expect(try LibraryCheck(sandbox).assetCount == assets)
        #expect(try LibraryCheck(sandbox).albums().values.allSatisfy { $0 == 150 })
    }

    /// Path → size and modification time of every file below `folder`.
    func snapshot(_ folder: URL) throws -> [String: String] {
        var result: [String: String] = [:]
        let sandboxFiles = FileManager.default.enumerator(atPath: folder.path)
        while let next = sandboxFiles?.nextObject() as? String {
            let attributes = try FileManager.default.attributesOfItem(atPath: folder.appendingPathComponent(next).path)
            result[next] = "\(attributes[.size] ?? 0) \(attributes[.modificationDate] ?? "")"
        }
        return result
    }
}
