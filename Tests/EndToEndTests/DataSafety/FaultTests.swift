import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// Faults produced for real, with the daemon running as an unprivileged user where permissions matter (root would
/// bypass every permission check): unreadable drops and folders, a rejected folder it may not write, a read-only
/// library, the library deleted, another process holding the write lock, FIFOs, sockets and links dropped in. In each,
/// nothing is lost, the daemon keeps running, and `photodrop status` names the problem until it is gone.
@Suite("faults: permissions, locks, special files", .serialized, .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct FaultTests {
    /// The problems `status --json` reports now.
    func problems(_ sandbox: Sandbox) async -> (status: Int32, problems: [[String: Any]]) {
        guard let result = try? await sandbox.run(["status", "--json"]) else { return (-1, []) }
        return (result.status, ((try? result.jsonObject())?["problems"] as? [[String: Any]]) ?? [])
    }

    /// Waits until `status` reports a problem with `code`; returns it.
    func waitForProblem(_ code: String, in sandbox: Sandbox, timeout: TimeInterval = 30) async -> [String: Any]? {
        var found: [String: Any]?
        await eventually(timeout: timeout) {
            let (status, problems) = await self.problems(sandbox)
            found = problems.first { $0["code"] as? String == code }
            return status == 1 && found != nil
        }
        return found
    }

    /// Warning lines of the daemon's JSON log that mention `text`.
    func warnings(_ daemon: WatchDaemon, mentioning text: String) -> Int {
        daemon.logLines.filter { ($0["level"] as? String) == "warning" && "\($0)".contains(text) }.count
    }

    func unprivilegedDaemon(_ label: String, settings: [String: Any] = [:]) async throws -> (Sandbox, WatchDaemon) {
        let sandbox = try Sandbox(label, settings: ["settleMilliseconds": 50].merging(settings) { $1 })
        try sandbox.handOverToDaemonUser()
        let daemon = try WatchDaemon(sandbox, launcher: .asUser(TestUsers.daemon.uid, TestUsers.daemon.gid))
        try await daemon.waitUntilStarted()
        return (sandbox, daemon)
    }

    @Test("EACCES on a dropped file: it waits, is reported as stuck, warned about once, and stored once readable")
    func unreadableDrop() async throws {
        try skipUnless(runningAsRoot, "needs root to run the daemon as another user")
        let (sandbox, daemon) = try await unprivilegedDaemon("eacces-file")
        let folder = try sandbox.inboxAlbum("Up")
        chmod(folder.path, 0o777)
        let secret = try sandbox.writeAsUploader("Inbox/Up/private.jpg", TinyJPEG.bytes(70), mode: 0o600)
        let stuck = await waitForProblem("stuckFiles", in: sandbox)
        #expect(stuck?["oldestPath"] as? String == "Up/private.jpg", "\(String(describing: stuck))")
        #expect(stuck?["count"] as? Int == 1)
        #expect(warnings(daemon, mentioning: "Up/private.jpg") <= 2, "warned about once, not at every retry")
        #expect(FileManager.default.fileExists(atPath: secret.path), "the file stays where it was")
        chmod(secret.path, 0o644)
        #expect(await eventually(timeout: 60) { sandbox.inboxFiles.isEmpty }, "\(daemon.log.suffix(2000))")
        let healthy = await eventually(timeout: 20) { await self.problems(sandbox).status == 0 }
        let last = await problems(sandbox)
        #expect(healthy, "\(last)")
        #expect(daemon.isRunning)
        #expect(try await daemon.stop() == 0)
        #expect(try LibraryCheck(sandbox).assetCount == 1, "\(daemon.log.suffix(3000))")
    }

    @Test("a read-only album folder: the file waits and is retried with back-off, one warning, not one every 5 s")
    func readOnlyAlbumFolder() async throws {
        try skipUnless(runningAsRoot, "needs root to run the daemon as another user")
        let (sandbox, daemon) = try await unprivilegedDaemon("eacces-folder")
        let folder = try sandbox.inboxAlbum("Locked")
        try sandbox.writeAsUploader("Inbox/Locked/a.jpg", TinyJPEG.bytes(71), mode: 0o644)
        #expect(chown(folder.path, TestUsers.uploader.uid, TestUsers.uploader.gid) == 0 && chmod(folder.path, 0o555) == 0)
        // Make the daemon look (an attribute change), then wait through several retries.
        #expect(utimes(folder.appendingPathComponent("a.jpg").path, nil) == 0)
        let stuck = await waitForProblem("stuckFiles", in: sandbox, timeout: 40)
        #expect(stuck?["oldestPath"] as? String == "Locked/a.jpg", "\(String(describing: stuck))")
        await pause(6_000_000)
        #expect(warnings(daemon, mentioning: "Locked/a.jpg") == 1, "\(daemon.log.suffix(3000))")
        chmod(folder.path, 0o777)
        #expect(await eventually(timeout: 60) { sandbox.inboxFiles.isEmpty }, "\(daemon.log.suffix(2000))")
        #expect(try await daemon.stop() == 0)
    }

    @Test("EACCES on an inbox folder: reported as unreadable; its files are taken once it is readable")
    func unreadableInboxFolder() async throws {
        try skipUnless(runningAsRoot, "needs root to run the daemon as another user")
        let sandbox = try Sandbox("eacces-inbox", settings: ["settleMilliseconds": 50])
        try sandbox.handOverToDaemonUser()
        let folder = try sandbox.inboxAlbum("Private")
        try sandbox.writeAsUploader("Inbox/Private/a.jpg", TinyJPEG.bytes(72), mode: 0o644)
        #expect(chown(folder.path, TestUsers.uploader.uid, TestUsers.uploader.gid) == 0 && chmod(folder.path, 0o700) == 0)
        let daemon = try WatchDaemon(sandbox, launcher: .asUser(TestUsers.daemon.uid, TestUsers.daemon.gid))
        try await daemon.waitUntilStarted()
        let unreadable = await waitForProblem("inboxUnreadable", in: sandbox)
        #expect((unreadable?["oldestPath"] as? String)?.hasSuffix("Private") == true, "\(String(describing: unreadable))")
        chmod(folder.path, 0o777)
        #expect(await eventually(timeout: 60) { sandbox.inboxFiles.isEmpty }, "\(daemon.log.suffix(2000))")
        let healthy = await eventually(timeout: 20) { await self.problems(sandbox).status == 0 }
        let last = await problems(sandbox)
        #expect(healthy, "\(last)")
        #expect(try await daemon.stop() == 0)
    }

    @Test("EACCES on Rejected/: a rejected file stays in the inbox, reported; quarantined once Rejected/ is writable")
    func unwritableRejected() async throws {
        try skipUnless(runningAsRoot, "needs root to run the daemon as another user")
        let sandbox = try Sandbox("eacces-rejected", settings: ["settleMilliseconds": 50])
        try sandbox.handOverToDaemonUser()
        try FileManager.default.createDirectory(at: sandbox.rejected, withIntermediateDirectories: true)
        chmod(sandbox.rejected.path, 0o755)  // root's: the daemon's user may not write it
        let daemon = try WatchDaemon(sandbox, launcher: .asUser(TestUsers.daemon.uid, TestUsers.daemon.gid))
        try await daemon.waitUntilStarted()
        try Data("a note\n".utf8).write(to: try sandbox.sharedInboxAlbum("Docs").appendingPathComponent("note.txt"))
        let problem = await waitForProblem("rejectedUnreadable", in: sandbox)
        #expect(problem?["oldestPath"] as? String == "Docs/note.txt", "\(String(describing: problem))")
        // The problem can be reported a moment before the claimed file is back in the inbox (under load).
        #expect(await eventually(timeout: 10) { sandbox.inboxFiles == ["Docs/note.txt"] }, "\(sandbox.inboxFiles)")
        #expect(chown(sandbox.rejected.path, TestUsers.daemon.uid, TestUsers.daemon.gid) == 0)
        let quarantined = sandbox.rejected.appendingPathComponent("Docs/note.txt")
        #expect(
            await eventually(timeout: 60) { FileManager.default.fileExists(atPath: quarantined.path + ".reason.json") },
            "\(sandbox.files(under: sandbox.root))\n\(daemon.log.suffix(3000))")
        #expect(sandbox.inboxFiles.isEmpty)
        #expect(try await daemon.stop() == 0)
    }

    @Test("a read-only library: drops wait, reported as stuck; stored once it is writable again; verify clean")
    func readOnlyLibrary() async throws {
        try skipUnless(runningAsRoot, "needs root to run the daemon as another user")
        let (sandbox, daemon) = try await unprivilegedDaemon("readonly-library")
        try TinyJPEG.write(count: 3, into: sandbox.sharedInboxAlbum("First"))
        #expect(await daemon.waitForOutcomes(3).count == 3)
        // Every folder of the library read-only for its owner (as a mistaken chmod -R a-w would make it).
        let folders = [sandbox.library.path] + (FileManager.default.enumerator(atPath: sandbox.library.path)?
            .compactMap { $0 as? String }.map { sandbox.library.appendingPathComponent($0).path } ?? [])
            .filter { var info = stat(); return stat($0, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR }
        for folder in folders { chmod(folder, 0o550) }
        let drops = try TinyJPEG.write(count: 5, startingAt: 80, into: sandbox.staging("more"))
        let album = try sandbox.sharedInboxAlbum("Second")
        try sandbox.move(drops, into: album)
        let stuck = await waitForProblem("stuckFiles", in: sandbox, timeout: 40)
        #expect(stuck != nil, "\(daemon.log.suffix(2000))")
        #expect(sandbox.inboxFiles.count == 5, "every drop waits in the inbox: \(sandbox.inboxFiles)")
        for folder in folders { chmod(folder, 0o750) }
        #expect(await eventually(timeout: 90) { sandbox.inboxFiles.isEmpty }, "\(daemon.log.suffix(2000))")
        #expect(try await daemon.stop() == 0)
        let library = try LibraryCheck(sandbox)
        #expect(try library.assetCount == 8)
        try await library.expectConsistent()
    }

    @Test("the library folder deleted under an unprivileged daemon: it stops, the drops stay in the inbox")
    func libraryDeletedUnprivileged() async throws {
        try skipUnless(runningAsRoot, "needs root to run the daemon as another user")
        let (sandbox, daemon) = try await unprivilegedDaemon("gone-unprivileged")
        try TinyJPEG.write(count: 2, into: sandbox.sharedInboxAlbum("Before"))
        #expect(await daemon.waitForOutcomes(2).count == 2)
        try FileManager.default.removeItem(at: sandbox.library)
        let drops = try TinyJPEG.write(count: 10, startingAt: 90, into: sandbox.sharedInboxAlbum("After"))
        #expect(await eventually(timeout: 30) { !daemon.isRunning }, "\(daemon.log.suffix(2000))")
        let left = Set(sandbox.inboxFiles)
        #expect(drops.allSatisfy { left.contains("After/" + $0.lastPathComponent) }, "\(left)")
    }

    @Test("another process holds the write lock past the busy timeout: files wait, libraryLocked, then all stored")
    func writeLockHeld() async throws {
        let helper = try #require(PhotodropBinary.sibling("catalog-history"), "catalog-history is built with the tests")
        let (sandbox, daemon) = try await watchingSandbox("hold-write", settings: ["settleMilliseconds": 50])
        try TinyJPEG.write(count: 2, into: sandbox.inboxAlbum("Before"))
        #expect(await daemon.waitForOutcomes(2).count == 2)
        let holder = Process()
        holder.executableURL = helper
        holder.arguments = ["hold-write", "--library", sandbox.library.path, "--seconds", "12"]
        let output = Pipe()
        holder.standardOutput = output
        try holder.run()
        defer { if holder.isRunning { kill(holder.processIdentifier, SIGKILL) } }
        #expect(String(decoding: output.fileHandleForReading.availableData, as: UTF8.self).contains("held"))
        let drops = try TinyJPEG.write(count: 20, startingAt: 200, into: sandbox.staging("held"))
        try sandbox.move(drops, into: try sandbox.inboxAlbum("During"))
        let locked = await waitForProblem("libraryLocked", in: sandbox, timeout: 20)
        #expect(locked != nil, "\(daemon.log.suffix(2000))")
        #expect(daemon.isRunning)
        holder.waitUntilExit()
        #expect(await eventually(timeout: 90) { sandbox.inboxFiles.isEmpty }, "\(daemon.log.suffix(2000))")
        let healthy = await eventually(timeout: 20) { await self.problems(sandbox).status == 0 }
        let last = await problems(sandbox)
        #expect(healthy, "\(last)")
        #expect(try await daemon.stop() == 0)
        let library = try LibraryCheck(sandbox)
        #expect(try library.assetCount == 22, "\(daemon.log.suffix(4000))")
        try await library.expectConsistent()
    }

    @Test("a FIFO, a socket and links dropped into a running daemon: never taken, nothing hangs, status names them")
    func specialFiles() async throws {
        let (sandbox, daemon) = try await watchingSandbox("special", settings: ["settleMilliseconds": 50])
        let album = try sandbox.inboxAlbum("Odd")
        #expect(mkfifo(album.appendingPathComponent("pipe.jpg").path, 0o666) == 0)
        let socketPath = album.appendingPathComponent("sock.jpg").path
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            for (index, byte) in socketPath.utf8.enumerated() where index < buffer.count - 1 { buffer[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        defer { close(fd) }
        let outside = try sandbox.write("Outside/secret.jpg", TinyJPEG.bytes(73))
        #expect(symlink(outside.path, album.appendingPathComponent("link.jpg").path) == 0)
        #expect(symlink("/etc", album.appendingPathComponent("etc-link").path) == 0)
        // A real photo after them is still taken: nothing hangs on the FIFO.
        try Data(TinyJPEG.bytes(74)).write(to: album.appendingPathComponent("real.jpg"))
        let outcomes = await daemon.waitForOutcomes(1)
        #expect(outcomes.count == 1 && outcomes.first?["path"] as? String == "Odd/real.jpg", "\(daemon.log)")
        await pause(1_000_000)
        #expect(daemon.isRunning)
        #expect(daemon.outcomes.count == 1, "only the real file has an outcome")
        #expect(FileManager.default.fileExists(atPath: outside.path))
        let status = await problems(sandbox)
        #expect(status.problems.contains { $0["code"] as? String == "untakeableEntries" && $0["count"] as? Int == 4 },
            "\(status)")
        #expect(try await daemon.stop() == 0)
        #expect(try LibraryCheck(sandbox).assetCount == 1)
    }
}
