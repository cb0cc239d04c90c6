import Foundation
import Ingest
import PhotodropSystem
import TestFixtures
import Testing

@testable import PhotodropCLI

@Suite("ProgressRenderer", .timeLimit(.minutes(3)))
struct ProgressRendererTests {
    @Test func fullLineWithBarRateAndETA() {
        let line = ProgressRenderer.render(
            ProgressSnapshot(
                filesDone: 1234, filesTotal: 10_000, bytesDone: 512_300_000, bytesTotal: 2_100_000_000,
                elapsed: .seconds(6)),
            width: 120)
        #expect(line.hasPrefix("[=========>"))
        #expect(line.contains("] 1,234/10,000 files  512 MB/2.10 GB  85.4 MB/s  206 files/s  ETA 0:19"))
        #expect(line.count <= 120)
    }

    @Test func unknownTotalsHaveNoBarAndNoETA() {
        let line = ProgressRenderer.render(
            ProgressSnapshot(filesDone: 50, filesTotal: nil, bytesDone: 5_000, bytesTotal: nil, elapsed: .seconds(2)),
            width: 80)
        #expect(line == "50 files  5.00 KB  2.50 KB/s  25 files/s")
    }

    @Test func theStartShowsNoRateYet() {
        let line = ProgressRenderer.render(
            ProgressSnapshot(filesDone: 0, filesTotal: 10, bytesDone: 0, bytesTotal: 100, elapsed: .milliseconds(50)),
            width: 80)
        #expect(line == "[>                                       ] 0/10 files  0 B/100 B")
    }

    @Test func doneIsAFullBar() {
        let line = ProgressRenderer.render(
            ProgressSnapshot(filesDone: 3, filesTotal: 3, bytesDone: 3_000, bytesTotal: 3_000, elapsed: .seconds(1)),
            width: 120)
        #expect(line.hasPrefix("[========================================] 3/3 files"))
        #expect(line.hasSuffix("ETA 0:00"))
    }

    @Test(arguments: [20, 40, 60, 80, 200])
    func neverWiderThanTheTerminal(_ width: Int) {
        let line = ProgressRenderer.render(
            ProgressSnapshot(
                filesDone: 123_456, filesTotal: 1_000_000, bytesDone: 987_654_321_000, bytesTotal: 9_876_543_210_000,
                elapsed: .seconds(3_600)),
            width: width)
        #expect(line.count <= width)
        #expect(line.contains("[") == (width >= 100))
    }

    @Test func units() {
        #expect(ProgressRenderer.grouped(0) == "0")
        #expect(ProgressRenderer.grouped(1_234_567) == "1,234,567")
        #expect(ProgressRenderer.bytes(999) == "999 B")
        #expect(ProgressRenderer.bytes(1_500) == "1.50 KB")
        #expect(ProgressRenderer.bytes(12_345_678) == "12.3 MB")
        #expect(ProgressRenderer.bytes(1_210_000_000) == "1.21 GB")
        #expect(ProgressRenderer.duration(75) == "1:15")
        #expect(ProgressRenderer.duration(3725) == "1:02:05")
    }

    @Test func noTerminalMeansNoProgressObject() throws {
        let folder = try TemporaryFolder("progress")
        let fd = open(folder.url("out"), O_CREAT | O_WRONLY, 0o644)
        defer { close(fd) }
        #expect(TerminalProgress(fileDescriptor: fd) == nil)
        var ends: [Int32] = [0, 0]
        #expect(pipe(&ends) == 0)
        #expect(TerminalProgress(fileDescriptor: ends[1]) == nil)
        close(ends[0])
        close(ends[1])
    }

    @Test func aTerminalGetsCarriageReturnLines() throws {
        // A pseudo-terminal stands in for a real one. posix_openpt and friends are not imported by Swift's Glibc
        // module, so this is what they do: open /dev/ptmx, unlock (TIOCSPTLCK), ask the number (TIOCGPTN).
        let master = open("/dev/ptmx", O_RDWR | O_NOCTTY)
        try #require(master >= 0)
        defer { close(master) }
        var unlock: Int32 = 0
        var number: UInt32 = 0
        #expect(ioctl(master, 0x4004_5431, &unlock) == 0)  // TIOCSPTLCK
        #expect(ioctl(master, 0x8004_5430, &number) == 0)  // TIOCGPTN
        let slave = open("/dev/pts/\(number)", O_RDWR | O_NOCTTY)
        try #require(slave >= 0)
        defer { close(slave) }
        #expect(TerminalProgress(fileDescriptor: slave, environment: ["TERM": "dumb"]) == nil)
        let progress = try #require(TerminalProgress(fileDescriptor: slave, minimumInterval: .seconds(60)))
        let snapshot = ProgressSnapshot(
            filesDone: 1, filesTotal: 2, bytesDone: 10, bytesTotal: 20, elapsed: .seconds(1))
        progress.update(snapshot)
        progress.update(snapshot)  // throttled: not drawn again within a minute
        progress.update(snapshot, force: true)
        progress.finish()
        // A pty hands out what has arrived so far: read until the last line is there (or a second passes quietly).
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        var text = ""
        while !(text.components(separatedBy: "1/2 files").count - 1 == 2 && text.hasSuffix("\r\u{1B}[K")) {
            var ready = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            guard poll(&ready, 1, 1000) == 1 else { break }
            let count = read(master, &buffer, buffer.count)
            guard count > 0 else { break }
            bytes += buffer[0..<count]
            text = String(decoding: bytes, as: UTF8.self)
        }
        #expect(text.components(separatedBy: "1/2 files").count - 1 == 2)
        #expect(text.hasPrefix("\r[") && text.hasSuffix("\r\u{1B}[K"))
    }
}
