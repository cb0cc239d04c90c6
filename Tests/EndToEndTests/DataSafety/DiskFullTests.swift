import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// ENOSPC for real: the library on a small tmpfs, mounted in a private mount namespace (`unshare -m`, so that
/// nothing leaks into the machine's mounts and the mount goes with the daemon), filled up in the middle of a burst.
/// The drops that do not fit wait in the inbox; once space is freed, every one is stored and `verify --deep` is clean.
@Suite("disk full", .serialized, .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct DiskFullTests {
    static let namespaceTools = ["/usr/bin/unshare", "/usr/bin/nsenter"].allSatisfy(toolExists)

    @Test("the library's file system fills up mid-burst: nothing is lost, everything is stored once space is freed")
    func libraryDiskFull() async throws {
        try skipUnless(runningAsRoot && Self.namespaceTools, "needs root, unshare and nsenter to mount a private tmpfs")
        let binary = try #require(PhotodropBinary.url)
        let sandbox = try Sandbox("enospc", settings: ["settleMilliseconds": 50, "library": "Disk/Library"])
        let disk = sandbox.root.appendingPathComponent("Disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: true)
        let launcher = Launcher(
            executable: URL(fileURLWithPath: "/usr/bin/unshare"),
            arguments: [
                "-m", "--propagation", "private", "/bin/sh", "-c",
                "mount -t tmpfs -o size=8m tmpfs '\(disk.path)' && exec \"$0\" \"$@\"",
            ])
        let daemon = try WatchDaemon(sandbox, launcher: launcher)
        try await daemon.waitUntilStarted()
        let pid = daemon.pid
        // The daemon's view of the tmpfs, from outside its namespace.
        let diskInside = "/proc/\(pid)/root" + disk.path
        /// Runs photodrop inside the daemon's mount namespace.
        func inside(_ arguments: [String]) async throws -> RunResult {
            try await runProcess(
                URL(fileURLWithPath: "/usr/bin/nsenter"),
                ["-t", String(pid), "-m", "--", binary.path, "--config", sandbox.config.path] + arguments, timeout: 120)
        }

        try TinyJPEG.write(count: 5, into: sandbox.inboxAlbum("Before"))
        #expect(await daemon.waitForOutcomes(5).count == 5, "\(daemon.log)")

        // Fill the tmpfs but for 150 KB.
        var space = statvfs()
        #expect(statvfs(diskInside, &space) == 0, "the namespace's tmpfs is reachable")
        let free = Int(space.f_bavail) * Int(space.f_frsize)
        let filler = diskInside + "/filler"
        let fd = open(filler, O_CREAT | O_WRONLY, 0o644)
        #expect(fd >= 0)
        let block = [UInt8](repeating: 0xAB, count: 64 << 10)
        var written = 0
        while written < free - 150_000 {
            let count = block.withUnsafeBytes { write(fd, $0.baseAddress, min($0.count, free - 150_000 - written)) }
            if count <= 0 { break }
            written += count
        }
        close(fd)

        // A burst of 60 photos of about 40 KB: a few fit, the rest cannot be stored.
        let drops = (0..<60).map { index in
            SyntheticJPEG.bytes(seed: 300 + index, scanBytes: 40_000)
        }
        let staging = try sandbox.staging("burst")
        var urls: [URL] = []
        for (index, bytes) in drops.enumerated() {
            let url = staging.appendingPathComponent("IMG_\(index).jpg")
            try Data(bytes).write(to: url)
            urls.append(url)
        }
        try sandbox.move(urls, into: try sandbox.inboxAlbum("Burst"))
        let reported = await eventually(timeout: 60) {
            let result = try? await inside(["status", "--json"])
            let problems = ((try? result?.jsonObject())?["problems"] as? [[String: Any]]) ?? []
            return problems.contains { $0["code"] as? String == "stuckFiles" }
        }
        #expect(reported, "status reports stuck files\n\(daemon.log.suffix(3000))")
        #expect(daemon.isRunning)
        #expect(!sandbox.inboxFiles.isEmpty, "files wait in the inbox")

        // Space again: everything is stored.
        #expect(unlink(filler) == 0)
        let drained = await eventually(timeout: 120) { sandbox.inboxFiles.isEmpty && sandbox.stagedFiles.isEmpty }
        await pause(500_000)
        #expect(drained, "\(sandbox.inboxFiles.prefix(5))\n\(daemon.log.suffix(3000))")
        let assets = try await inside(["assets", "--json"])
        #expect(assets.stdout.split(separator: "\n").count == 65, "\(assets.stdout.split(separator: "\n").count) assets")
        let verify = try await inside(["verify", "--deep"])
        #expect(verify.status == 0, "\(verify)")
        #expect(try await daemon.stop() == 0)
    }
}
