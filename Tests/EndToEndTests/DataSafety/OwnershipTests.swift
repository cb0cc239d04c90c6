import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// The data-loss issue's cases 5 and 6: a stored original belongs to the daemon's user and is read-only, whoever
/// dropped it; the library is not readable by others (a group may be given); a hard link is copied, never renamed.
@Suite("originals belong to the library: owner, modes, group, hard links", .serialized,
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct OwnershipTests {
    func status(_ path: String) -> stat {
        var info = stat()
        _ = stat(path, &info)
        return info
    }

    func storedOriginals(_ sandbox: Sandbox) -> [URL] {
        sandbox.files(under: sandbox.library.appendingPathComponent("originals")).map {
            sandbox.library.appendingPathComponent("originals").appendingPathComponent($0)
        }
    }

    @Test("a root daemon takes another user's drops over: owner root, mode 0440, also from mode 000")
    func rootTakesOver() async throws {
        try skipUnless(runningAsRoot, "needs root to drop files as another user")
        let sandbox = try Sandbox("owner-root", settings: ["settleMilliseconds": 50])
        try sandbox.handOverToDaemonUser()
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        try FileManager.default.createDirectory(at: sandbox.inboxAlbum("Up"), withIntermediateDirectories: true)
        chmod(sandbox.inbox.appendingPathComponent("Up").path, 0o777)
        try sandbox.writeAsUploader("Inbox/Up/a.jpg", TinyJPEG.bytes(60), mode: 0o666)
        try sandbox.writeAsUploader("Inbox/Up/b.jpg", TinyJPEG.bytes(61), mode: 0o000)
        #expect(await daemon.waitForOutcomes(2).count == 2, "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        let originals = storedOriginals(sandbox)
        #expect(originals.count == 2)
        for original in originals {
            let info = status(original.path)
            #expect(info.st_uid == 0, "owned by the daemon's user")
            #expect(info.st_mode & 0o7777 == 0o440, "read-only: \(String(info.st_mode & 0o7777, radix: 8))")
            #expect(info.st_nlink == 1)
        }
        #expect(status(sandbox.library.path).st_mode & 0o777 == 0o750)
        #expect(status(sandbox.library.appendingPathComponent("library.sqlite").path).st_mode & 0o777 == 0o640)
        #expect(sandbox.inboxFiles.isEmpty)
    }

    @Test("libraryGroup: folders 0750, database 0640 and originals 0440, all of that group")
    func libraryGroup() async throws {
        try skipUnless(runningAsRoot, "needs root to give files to another group")
        // "users" (gid 100) exists on every Debian system.
        let group = try #require(getgrnam("users")?.pointee.gr_gid)
        let (sandbox, daemon) = try await watchingSandbox("owner-group", settings: ["settleMilliseconds": 50, "libraryGroup": "users"])
        try TinyJPEG.write(count: 3, into: sandbox.inboxAlbum("Trip"))
        #expect(await daemon.waitForOutcomes(3).count == 3)
        #expect(try await daemon.stop() == 0)
        let folders = [sandbox.library.path, sandbox.library.appendingPathComponent("originals").path]
            + storedOriginals(sandbox).map { $0.deletingLastPathComponent().path }
        for folder in folders {
            let info = status(folder)
            #expect(info.st_gid == group && info.st_mode & 0o777 == 0o750, "\(folder)")
        }
        let database = status(sandbox.library.appendingPathComponent("library.sqlite").path)
        #expect(database.st_gid == group && database.st_mode & 0o777 == 0o640)
        for original in storedOriginals(sandbox) {
            let info = status(original.path)
            #expect(info.st_gid == group && info.st_mode & 0o7777 == 0o440, "\(original.lastPathComponent)")
        }
    }

    @Test("an unprivileged daemon copies another user's drop instead of renaming it: the uploader cannot change it")
    func unprivilegedCopies() async throws {
        try skipUnless(runningAsRoot, "needs root to run the daemon and the uploader as two other users")
        let sandbox = try Sandbox("owner-user", settings: ["settleMilliseconds": 50])
        try sandbox.handOverToDaemonUser()
        let daemon = try WatchDaemon(sandbox, launcher: .asUser(TestUsers.daemon.uid, TestUsers.daemon.gid))
        try await daemon.waitUntilStarted()
        try FileManager.default.createDirectory(at: sandbox.inbox.appendingPathComponent("Up"), withIntermediateDirectories: true)
        chmod(sandbox.inbox.appendingPathComponent("Up").path, 0o777)
        let bytes = TinyJPEG.bytes(62)
        try sandbox.writeAsUploader("Inbox/Up/mine.jpg", bytes, mode: 0o666)
        #expect(await daemon.waitForOutcomes(1).count == 1, "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        let original = try #require(storedOriginals(sandbox).first)
        let info = status(original.path)
        #expect(info.st_uid == TestUsers.daemon.uid, "the library's copy belongs to the daemon's user")
        #expect(info.st_mode & 0o7777 == 0o440)
        #expect(try Data(contentsOf: original) == Data(bytes))
        #expect(sandbox.inboxFiles.isEmpty, "the drop left the inbox")
        // The uploader cannot reach it: the library is 0750 and belongs to the daemon's user.
        let poke = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=\(TestUsers.uploader.uid)", "--regid=\(TestUsers.uploader.gid)", "--clear-groups", "--",
             "/bin/sh", "-c", "echo changed > '\(original.path)'"])
        #expect(poke.status != 0, "the uploader cannot write the stored original: \(poke)")
        #expect(try Data(contentsOf: original) == Data(bytes))
    }

    @Test("a hard link of a file outside the inbox is copied, never renamed: editing the outside file changes nothing")
    func hardLinksAreCopied() async throws {
        let sandbox = try Sandbox("hardlink", settings: ["settleMilliseconds": 50])
        let outside = try sandbox.write("Outside/private.jpg", TinyJPEG.bytes(63))
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = try sandbox.inboxAlbum("Linked")
        #expect(link(outside.path, album.appendingPathComponent("private.jpg").path) == 0)
        #expect(await daemon.waitForOutcomes(1).count == 1, "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        let original = try #require(storedOriginals(sandbox).first)
        #expect(status(original.path).st_ino != status(outside.path).st_ino, "the library has its own copy")
        #expect(status(outside.path).st_nlink == 1, "the inbox's link is gone")
        #expect(FileManager.default.fileExists(atPath: outside.path), "the file outside stays")
        let before = try Data(contentsOf: original)
        try Data(TinyJPEG.bytes(64)).write(to: outside)
        #expect(try Data(contentsOf: original) == before, "editing the outside file does not edit the original")
        try await LibraryCheck(sandbox).expectConsistent()
    }
}
