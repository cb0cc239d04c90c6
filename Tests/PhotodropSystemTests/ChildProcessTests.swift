import Foundation
@testable import PhotodropSystem
import TestFixtures
import Testing

@Suite("ChildProcess: what a started program gets", .timeLimit(.minutes(1)))
struct ChildProcessTests {
    @Test("a child gets /dev/null, this process's standard error, the handed-over descriptor as 3, and nothing else")
    func descriptors() throws {
        let scratch = try TemporaryFolder("child")
        // A descriptor without close-on-exec, as a library may open one: it must not reach the child.
        let leaked = open(scratch.url("leaked.txt"), O_WRONLY | O_CREAT, 0o600)
        try #require(leaked >= 0)
        defer { close(leaked) }
        let handed = open(scratch.url("handed.txt"), O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        try #require(handed >= 0)
        let report = scratch.url("descriptors.txt")
        let child = try ChildProcess.spawn(
            "/bin/sh", arguments: ["sh", "-c", "ls -l /proc/$$/fd > '\(report)'"],
            environment: [:], handOver: FileDescriptor(owning: handed))
        let ended = child.waitForExit(graceSeconds: 20)
        #expect(ended?.status == 0)
        let listing = try String(contentsOfFile: report, encoding: .utf8)
        #expect(listing.contains("handed.txt"), "\(listing)")
        #expect(!listing.contains("leaked.txt"), "a descriptor of the parent reached the child:\n\(listing)")
        #expect(listing.contains("/dev/null"), "\(listing)")
    }

    @Test("the tests' own programs (ProcessRunner) get none of the test process's other descriptors either")
    func testProgramsToo() async throws {
        // A file a test holds open for writing must not stay open in a daemon another test started meanwhile: `watch`
        // would never take it (WatchClientTests' slow writers failed so once).
        let scratch = try TemporaryFolder("runner")
        let leaked = open(scratch.url("held-open.jpg"), O_WRONLY | O_CREAT, 0o600)
        try #require(leaked >= 0)
        defer { close(leaked) }
        let listing = try await ProcessRunner.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "ls -l /proc/$$/fd"])
        #expect(listing.status == 0, "\(listing)")
        #expect(listing.stdout.contains("/dev/null"), "\(listing)")
        #expect(!listing.stdout.contains("held-open.jpg"), "a descriptor of the test process reached the child:\n\(listing)")
    }
}
