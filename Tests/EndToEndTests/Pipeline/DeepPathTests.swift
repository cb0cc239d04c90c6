import Foundation
import TestFixtures
import Testing

/// Folders nested so deep that their path is longer than the kernel resolves in one call (`PATH_MAX`, 4096 bytes):
/// photodrop opens everything by descriptor, a part of the path at a time, so such a file is taken like any other.
@Suite(
    "Deep folders: paths over 4096 bytes are scanned, watched and taken",
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd,
    .timeLimit(.minutes(5)))
struct DeepPathTests {
    /// Makes `levels` folders of 200-byte names below `base`, one inside the other, by descriptor (a path that long
    /// cannot be named in one call), and writes `bytes` into a file at the bottom; returns the bytes of the path.
    static func makeDeep(below base: URL, levels: Int, file: String, bytes: [UInt8]) throws -> Int {
        var fd = open(base.path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw HarnessError("open \(base.path): errno \(errno)") }
        var length = base.path.utf8.count
        for level in 0..<levels {
            let name = String(format: "level%02d-", level) + String(repeating: "x", count: 192)
            guard mkdirat(fd, name, 0o755) == 0 || errno == EEXIST else { throw HarnessError("mkdirat: errno \(errno)") }
            let next = openat(fd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            close(fd)
            guard next >= 0 else { throw HarnessError("openat: errno \(errno)") }
            fd = next
            length += 1 + name.utf8.count
        }
        defer { close(fd) }
        // Written under a temporary name and renamed, as upload tools do, so that a watcher sees it finished.
        let temporary = openat(fd, ".\(file).part", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
        guard temporary >= 0 else { throw HarnessError("openat file: errno \(errno)") }
        let written = bytes.withUnsafeBytes { write(temporary, $0.baseAddress, $0.count) }
        close(temporary)
        guard written == bytes.count, renameat(fd, ".\(file).part", fd, file) == 0 else {
            throw HarnessError("write/rename: errno \(errno)")
        }
        return length + 1 + file.utf8.count
    }

    @Test("import and the start-up scan take a file below a 5,000-byte path; watch takes one dropped there later")
    func deepFolders() async throws {
        let sandbox = try Sandbox("deep-paths")
        let trip = sandbox.inbox.appendingPathComponent("Trip")
        try FileManager.default.createDirectory(at: trip, withIntermediateDirectories: true)
        let length = try Self.makeDeep(below: trip, levels: 24, file: "first.jpg", bytes: TinyJPEG.bytes(1))
        #expect(length > 4096)

        let dryRun = try await sandbox.run(["import", "--dry-run", "--json", sandbox.inbox.path])
        #expect(dryRun.status == 0, "\(dryRun)")
        #expect((try dryRun.jsonObject()["imported"] as? Int) == 1, "\(dryRun)")

        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let first = await daemon.waitForOutcomes(1, timeout: 30)
        #expect(first.first?["outcome"] as? String == "photo", "\(daemon.log)")
        // A second file dropped while watch runs, in a new folder at the bottom: seen through inotify.
        _ = try Self.makeDeep(below: trip, levels: 25, file: "second.jpg", bytes: TinyJPEG.bytes(2))
        let both = await daemon.waitForOutcomes(2, timeout: 30)
        #expect(both.count == 2 && both.allSatisfy { $0["outcome"] as? String == "photo" }, "\(daemon.log)")
        #expect(both.allSatisfy { $0["album"] as? String == "Trip" }, "\(both)")
        #expect(!daemon.log.contains("File name too long"), "\(daemon.log)")
        #expect(try await daemon.stop() == 0)
        let assets = try await sandbox.run(["assets", "--json"])
        #expect(try assets.jsonLines().count == 2, "\(assets)")
    }
}
