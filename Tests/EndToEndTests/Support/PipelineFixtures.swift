import Foundation
import PhotodropSystem
import TestFixtures
import PhotoCatalog
import Testing

/// Tiny valid JPEGs written byte by byte: SOI, JFIF, a comment that makes each one distinct, tables, a 64×48 frame,
/// a short scan and EOI. Enough for MediaProbe to accept them as photos; a few hundred bytes each.
enum TinyJPEG {
    static func bytes(_ index: Int, scanBytes: Int = 200) -> [UInt8] {
        SyntheticJPEG.bytes(seed: index, scanBytes: scanBytes)
    }

    /// Writes `count` distinct JPEGs named `IMG_<n>.jpg` into `folder`; returns their paths.
    @discardableResult
    static func write(count: Int, startingAt first: Int = 0, into folder: URL) throws -> [URL] {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return try (first..<(first + count)).map { index in
            let url = folder.appendingPathComponent("IMG_\(index).jpg")
            try Data(bytes(index)).write(to: url)
            return url
        }
    }
}

/// Reads a sandbox's library the way a careful person would check it: rows against files.
struct LibraryCheck {
    let sandbox: Sandbox
    let database: Database

    init(_ sandbox: Sandbox) throws {
        self.sandbox = sandbox
        self.database = try Database(
            path: sandbox.library.appendingPathComponent("library.sqlite").path, mode: .readOnly)
    }

    func count(_ sql: String) throws -> Int { Int(try database.int64(sql) ?? 0) }

    var assetCount: Int { get throws { try count("SELECT count(*) FROM assets WHERE deleted_date IS NULL") } }
    var journalCount: Int { get throws { try count("SELECT count(*) FROM journal") } }

    /// Album title → number of member assets.
    func albums() throws -> [String: Int] {
        var result: [String: Int] = [:]
        for (title, members) in try database.rows(
            "SELECT a.title, (SELECT count(*) FROM album_assets m WHERE m.album_id = a.id) FROM albums a",
            row: { ($0.string(0), $0.int(1)) })
        {
            #expect(result[title] == nil, "two albums are titled \(title)")
            result[title] = members
        }
        return result
    }

    /// SHA-256 → how many resources store it.
    func storedContents() throws -> [String: Int] {
        var result: [String: Int] = [:]
        for sha in try database.rows("SELECT sha256 FROM resources", row: { $0.string(0) }) {
            result[sha, default: 0] += 1
        }
        return result
    }

    /// `PRAGMA integrity_check`.
    func integrity() throws -> String {
        try database.firstRow("PRAGMA integrity_check") { $0.string(0) } ?? "no answer"
    }

    /// Every resource row has its file, every file in `originals/` has its row, nothing waits in `recovered/`, the
    /// database is intact, and `photodrop verify --deep` (every original re-hashed) agrees.
    func expectConsistent(sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let verify = try await sandbox.run(["verify", "--deep"])
        #expect(verify.status == 0, "photodrop verify --deep: \(verify)", sourceLocation: sourceLocation)
        let rows = Set(try database.rows("SELECT path FROM resources", row: { $0.string(0) }))
        let files = Set(
            sandbox.files(under: sandbox.library.appendingPathComponent("originals")).map { "originals/" + $0 })
        #expect(
            rows.subtracting(files).isEmpty, "originals missing on disk: \(rows.subtracting(files).sorted().prefix(5))",
            sourceLocation: sourceLocation)
        #expect(
            files.subtracting(rows).isEmpty, "orphan originals: \(files.subtracting(rows).sorted().prefix(5))",
            sourceLocation: sourceLocation)
        let recovered = sandbox.files(under: sandbox.library.appendingPathComponent("recovered"))
        #expect(
            recovered.isEmpty, "files parked in Library/recovered: \(recovered.prefix(5))",
            sourceLocation: sourceLocation)
        #expect(try integrity() == "ok", sourceLocation: sourceLocation)
    }
}

/// SHA-256 of a file, via the catalog's hasher.
func sha256(of url: URL) throws -> String {
    sha256Hex(try Data(contentsOf: url))
}

extension WatchDaemon {
    /// Log lines that report a file's outcome (`stored`, `duplicate`, `rejected`, `failed`).
    var outcomes: [[String: Any]] {
        logLines.filter { ($0["outcome"] as? String) != nil }
    }

    /// Waits until the daemon logged that it started (its start-up scan follows at once).
    func waitUntilStarted(timeout: TimeInterval = 30) async throws {
        let started = await eventually(timeout: timeout) {
            log.contains("photodrop watch started") || !isRunning
        }
        guard started, isRunning else { throw HarnessError("photodrop watch did not start\n\(log)") }
    }

    /// Waits until `count` outcomes were logged (or the timeout passes); returns the outcome lines.
    @discardableResult
    func waitForOutcomes(_ count: Int, timeout: TimeInterval = 60) async -> [[String: Any]] {
        var lines: [[String: Any]] = []
        await eventually(timeout: timeout) {
            lines = outcomes
            return lines.count >= count || !isRunning
        }
        return lines
    }
}

extension Sandbox {
    /// A folder of the sandbox outside the inbox, on the same file system (for `mv`).
    func staging(_ name: String) throws -> URL {
        let url = root.appendingPathComponent("staging-\(name)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// The inbox folder of `album`, created if needed.
    func inboxAlbum(_ album: String) throws -> URL {
        let url = inbox.appendingPathComponent(album)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Renames each file into `folder` (one `rename(2)` per file, as `mv` on one filesystem does).
    func move(_ files: some Sequence<URL>, into folder: URL) throws {
        for file in files {
            guard rename(file.path, folder.appendingPathComponent(file.lastPathComponent).path) == 0 else {
                throw HarnessError("rename of \(file.path) into \(folder.path) failed: errno \(errno)")
            }
        }
    }

    /// Files left in the inbox (dot-entries such as `.photodrop` skipped).
    var inboxFiles: [String] { files(under: inbox) }

    /// Files in the claim staging folder.
    var stagedFiles: [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: inbox.appendingPathComponent(".photodrop/claimed").path))
            ?? []
    }

    /// Runs a tool (`/bin/cp`, `/usr/bin/rsync` …) in the sandbox and expects success.
    func tool(_ path: String, _ arguments: [String], sourceLocation: SourceLocation = #_sourceLocation) async throws {
        let result = try await runProcess(URL(fileURLWithPath: path), arguments, in: root, timeout: 60)
        #expect(result.status == 0, "\(path) \(arguments): \(result)", sourceLocation: sourceLocation)
    }
}

/// Whether a tool is installed (rsync, tar).
func toolExists(_ path: String) -> Bool { FileManager.default.isExecutableFile(atPath: path) }

/// Whether the tests run as root: tests that need a second user (`setpriv`), mounts or namespaces need it.
var runningAsRoot: Bool { getuid() == 0 }


/// The users of the permission tests: the daemon's and an uploader's (no entries in /etc/passwd are needed).
enum TestUsers {
    static let daemon: (uid: uid_t, gid: gid_t) = (4242, 4242)
    static let uploader: (uid: uid_t, gid: gid_t) = (4343, 4343)
}

extension Sandbox {
    /// Prepares the sandbox for a daemon that runs as ``TestUsers/daemon`` (root only): the sandbox root and the
    /// rejected folder belong to it, the inbox is writable by everyone (uploaders of other users drop files there).
    func handOverToDaemonUser() throws {
        let (uid, gid) = TestUsers.daemon
        #expect(chown(root.path, uid, gid) == 0 && chmod(root.path, 0o755) == 0)
        #expect(chmod(config.path, 0o644) == 0)
        #expect(chown(inbox.path, uid, gid) == 0 && chmod(inbox.path, 0o777) == 0)
    }

    /// An inbox folder anybody may write (uploaders of several users, a daemon of its own user), created if needed.
    func sharedInboxAlbum(_ album: String) throws -> URL {
        let url = try inboxAlbum(album)
        #expect(chmod(url.path, 0o777) == 0)
        return url
    }

    /// Writes `bytes` as a file of ``TestUsers/uploader`` with `mode`.
    @discardableResult
    func writeAsUploader(_ relativePath: String, _ bytes: [UInt8], mode: mode_t = 0o644) throws -> URL {
        let url = try write(relativePath, bytes)
        let (uid, gid) = TestUsers.uploader
        #expect(chown(url.path, uid, gid) == 0 && chmod(url.path, mode) == 0)
        return url
    }
}

/// A sandbox with a running `photodrop watch` that has started.
func watchingSandbox(
    _ label: String, settings: [String: Any] = [:], launcher: Launcher? = nil
) async throws -> (Sandbox, WatchDaemon) {
    let sandbox = try Sandbox(label, settings: settings)
    let daemon = try WatchDaemon(sandbox, launcher: launcher)
    try await daemon.waitUntilStarted()
    return (sandbox, daemon)
}
