import Foundation
import PhotodropSystem
import TestFixtures
import Testing

@testable import Ingest
import PhotodropTelemetry
import PhotodropConcurrency
import PhotodropConfiguration

/// The pieces of running as a service that need no daemon: the notify datagram, the stall rule, reload's key
/// rules, the Prometheus text and journald's priority prefix.
@Suite("Service support", .timeLimit(.minutes(3)))
struct ServiceSupportTests {
    @Test func notifierSendsOneDatagramToARealSocket() throws {
        let folder = try TemporaryFolder("notify")
        let path = folder.path + "/notify.sock"
        let receiver = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue), 0)
        #expect(receiver >= 0)
        defer { close(receiver) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in path.utf8.enumerated() { bytes[index] = byte }
        }
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(receiver, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        #expect(bound == 0)
        let notifier = try #require(ServiceNotifier(socketPath: path, watchdogInterval: .seconds(4)))
        #expect(notifier.send(["READY=1", "STATUS=two\nlines"]))
        var buffer = [UInt8](repeating: 0, count: 256)
        let count = recv(receiver, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        #expect(count > 0)
        #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self) == "READY=1\nSTATUS=two lines")
        #expect(ServiceNotifier.extendTimeout(.seconds(30)) == "EXTEND_TIMEOUT_USEC=30000000")
        // Not a socket path: no notifier.
        #expect(ServiceNotifier(socketPath: "relative/path") == nil)
    }

    @Test func anActivityWithoutProgressIsAStallAndOneThatAdvancesIsNot() {
        let progress = WorkProgress()
        let wedged = progress.begin("reading wedged.jpg")
        let hashing = progress.begin("reading big.mov")
        usleep(300_000)
        progress.advance(hashing, detail: "64 of 5000 MiB")
        let now = ContinuousClock.now
        // Both began 300 ms ago; only the one that made no progress since is stalled at a 200 ms limit.
        #expect(progress.stalled(limit: .milliseconds(200), at: now)?.what == "reading wedged.jpg")
        #expect(progress.stalled(limit: .seconds(20), at: now) == nil)
        // Both count as long waits; the older is named, with how far it got.
        #expect(progress.longest(over: .milliseconds(200), at: now)?.what == "reading wedged.jpg")
        progress.end(wedged)
        #expect(progress.stalled(limit: .milliseconds(200), at: now) == nil)
        #expect(progress.longest(over: .milliseconds(200), at: now)?.detail == "64 of 5000 MiB")
        progress.end(hashing)
        #expect(progress.count == 0)
    }

    @Test func reloadRefusesPlacesAndNamesWhatChangesLive() {
        let old = IngestConfig(baseDirectory: "/srv/photodrop")
        var new = old
        new.settleMilliseconds = 5000
        new.ignore = ["*.tmp"]
        new.workers = old.workerCount + 1
        #expect(ConfigReload.fixedChanges(from: old, to: new).isEmpty)
        #expect(ConfigReload.liveChanges(from: old, to: new) == ["ignore", "settleMilliseconds", "workers"])
        new.inbox = "/elsewhere/Inbox"
        new.libraryGroup = LibraryGroup(name: "users", id: 100)
        #expect(ConfigReload.fixedChanges(from: old, to: new) == ["inbox", "libraryGroup"])
        #expect(ConfigReload.liveChanges(from: old, to: old).isEmpty)
    }

    @Test func prometheusTextEscapesLabelsAndWritesHistogramsCumulatively() {
        var histogram = LatencyHistogram(bounds: [0.01, 0.1])
        histogram.observe(.milliseconds(5))
        histogram.observe(.milliseconds(50))
        histogram.observe(.seconds(2))
        var text = PrometheusText()
        text.family("x_total", type: "counter", help: "a\nb")
        text.sample("x_total", ["reason": "say \"hi\"\\\n"], 3)
        text.histogram("x_seconds", help: "h", histogram)
        #expect(
            text.text == """
                # HELP x_total a\\nb
                # TYPE x_total counter
                x_total{reason="say \\"hi\\"\\\\\\n"} 3
                # HELP x_seconds h
                # TYPE x_seconds histogram
                x_seconds_bucket{le="0.01"} 1
                x_seconds_bucket{le="0.1"} 2
                x_seconds_bucket{le="+Inf"} 3
                x_seconds_sum 2.055
                x_seconds_count 3

                """)
    }

    @Test func textLinesUnderJournaldCarryAPriorityAndNoTimestamp() {
        let lines = Locked<[String]>([])
        let sink = LogSink { line in lines.withLock { $0.append(line) } }
        let journal = LogControl(IngestConfig.Log(format: .text, level: .info), journal: true)
        let logger = Logger(label: "t", control: journal, sink: sink)
        logger.warning("cannot look at a file", metadata: ["path": .string("Trip/a.jpg")])
        logger.info("stored")
        logger.debug("not written")
        // A reload that lowers the level applies to the same logger at once.
        journal.apply(IngestConfig.Log(format: .text, level: .debug))
        logger.debug("written now")
        journal.apply(IngestConfig.Log(format: .json, level: .error))
        logger.error("json again")
        let written = lines.value
        #expect(written.count == 4)
        #expect(written[0] == "<4>warning cannot look at a file path=Trip/a.jpg\n")
        #expect(written[1] == "<6>info    stored\n")
        #expect(written[2] == "<7>debug   written now\n")
        #expect(written[3].hasPrefix("{\"time\":"))  // JSON lines are unchanged under journald
        // Not the journal: the usual timestamp.
        let plain = Locked<[String]>([])
        Logger(label: "t", control: LogControl(IngestConfig.Log(), journal: false), sink: LogSink { line in
            plain.withLock { $0.append(line) }
        }).info("stored")
        #expect(plain.value.first?.hasPrefix("20") == true)
        #expect(!LogControl.stderrIsJournal(environment: ["JOURNAL_STREAM": "1:2"]))
        #expect(!LogControl.stderrIsJournal(environment: [:]))
    }
}
