import Foundation
import TestFixtures
import Testing

/// Wrong folders in config.json are refused before anything is created: a path whose parent is missing, a `~` that no
/// shell expanded, a library on a disk that /etc/fstab mounts but that is not mounted, an inbox the daemon's user cannot
/// write.
@Suite(
    "configured folders: only the last folder is created, unmounted disks and unwritable inboxes refused",
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd,
    .timeLimit(.minutes(5)))
struct ConfiguredFolderTests {
    /// Everything below the sandbox root, relative, sorted (to show that nothing was created).
    func tree(_ sandbox: Sandbox) -> [String] {
        (FileManager.default.subpaths(atPath: sandbox.root.path) ?? []).sorted()
    }

    @Test("a library whose parent is missing, and a ~ path, are refused; nothing is created")
    func missingParentAndTilde() async throws {
        let sandbox = try Sandbox("folders-parent", settings: ["library": "no/such/dir/Library"])
        let before = tree(sandbox)
        let watch = try await sandbox.run(["watch"], timeout: 30)
        #expect(watch.status == 1, "\(watch)")
        #expect(watch.stderr.contains("no/such/dir") && watch.stderr.contains("mkdir -p"), "\(watch)")
        #expect(tree(sandbox) == before, "nothing was created")
        let imported = try await sandbox.run(["import", sandbox.inbox.path], timeout: 30)
        #expect(imported.status == 2 && imported.stderr.contains("no/such/dir"), "\(imported)")
        #expect(tree(sandbox) == before)

        try sandbox.writeConfig(["library": "Library", "inbox": "~/Inbx", "rejected": "Rejected"])
        let tilde = try await sandbox.run(["watch"], timeout: 30)
        #expect(tilde.status == 2, "\(tilde)")
        #expect(tilde.stderr.contains("\"inbox\"") && tilde.stderr.contains("does not expand"), "\(tilde)")
        #expect(!FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("~").path))
        #expect(!FileManager.default.fileExists(atPath: sandbox.library.path))
    }

    @Test("a missing last folder is created and said: import prints it, watch logs it")
    func lastFolderCreated() async throws {
        let sandbox = try Sandbox("folders-last", settings: ["library": "Photos/Library"])
        try FileManager.default.createDirectory(
            at: sandbox.root.appendingPathComponent("Photos"), withIntermediateDirectories: true)
        try sandbox.write("Inbox/a.jpg", TinyJPEG.bytes(1))
        let imported = try await sandbox.run(["import", sandbox.inbox.path], timeout: 60)
        #expect(imported.status == 0, "\(imported)")
        #expect(imported.stderr.contains("Creating the library folder") && imported.stderr.contains("Photos/Library"))

        let fresh = try Sandbox("folders-watch", settings: ["inbox": "Drops"])
        try FileManager.default.removeItem(at: fresh.inbox)
        let daemon = try WatchDaemon(fresh)
        try await daemon.waitUntilStarted()
        #expect(daemon.log.contains("creating the inbox") && daemon.log.contains("Drops"), "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
    }

    @Test(
        "a library on a disk /etc/fstab mounts, with nothing mounted, is refused; once mounted it is used",
        .requires(runningAsRoot && toolExists("/usr/bin/unshare"), "root and unshare (util-linux), for a mount namespace"))
    func unmountedDisk() async throws {
        let sandbox = try Sandbox("folders-fstab", settings: ["library": "disk/Library"])
        let disk = sandbox.root.appendingPathComponent("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let fstab = sandbox.root.appendingPathComponent("fstab")
        // The disk's mount point as fstab names it, a space in the path written as fstab writes it.
        try "UUID=0000-1111 / ext4 defaults 0 1\ntmpfs \(disk.path.replacingOccurrences(of: " ", with: "\\040")) tmpfs defaults 0 0\n"
            .write(to: fstab, atomically: true, encoding: .utf8)
        func inNamespace(mounting: Bool) -> Launcher {
            // A private mount namespace in which /etc/fstab is the test's; with `mounting`, a tmpfs really is
            // mounted on the disk's folder there.
            let mount = mounting ? "mount -t tmpfs tmpfs '\(disk.path)' && " : ""
            return Launcher(
                executable: URL(fileURLWithPath: "/usr/bin/unshare"),
                arguments: [
                    "--mount", "--propagation", "private", "/bin/sh", "-c",
                    "mount --bind '\(fstab.path)' /etc/fstab && \(mount)exec \"$@\"", "sh",
                ])
        }
        let refused = try await sandbox.run(["import", sandbox.inbox.path], timeout: 60, launcher: inNamespace(mounting: false))
        #expect(refused.status == 2, "\(refused)")
        #expect(refused.stderr.contains("nothing is mounted there") && refused.stderr.contains(disk.path), "\(refused)")
        #expect((try FileManager.default.contentsOfDirectory(atPath: disk.path)).isEmpty, "nothing was written on the root disk")

        try sandbox.write("Inbox/a.jpg", TinyJPEG.bytes(1))
        let mounted = try await sandbox.run(
            ["import", sandbox.inbox.path, "--json"], timeout: 60, launcher: inNamespace(mounting: true))
        #expect(mounted.status == 0, "\(mounted)")
        #expect((try FileManager.default.contentsOfDirectory(atPath: disk.path)).isEmpty, "it went onto the tmpfs")
    }

    @Test(
        "an inbox the daemon's user cannot write: the message names the inbox and the user; nothing is created",
        .requires(runningAsRoot && toolExists("/usr/bin/setpriv"), "root and setpriv, to run photodrop as another user"))
    func unwritableInbox() async throws {
        let sandbox = try Sandbox("folders-inbox")
        try sandbox.handOverToDaemonUser()
        // The inbox belongs to root and only root may write it.
        #expect(chown(sandbox.inbox.path, 0, 0) == 0 && chmod(sandbox.inbox.path, 0o755) == 0)
        let (uid, gid) = TestUsers.daemon
        let before = tree(sandbox)
        let watch = try await sandbox.run(["watch"], timeout: 30, launcher: .asUser(uid, gid))
        #expect(watch.status == 1, "\(watch)")
        #expect(watch.stderr.contains("the inbox") && watch.stderr.contains("uid \(uid)"), "\(watch)")
        #expect(!watch.stderr.contains("cannot open or recover the library"), "\(watch)")
        #expect(tree(sandbox) == before, "no library, lock or status file was created")
    }
}
