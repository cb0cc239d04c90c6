import Synchronization
import Testing

@testable import PhotoServer

@Suite("RateLimitedLog: a burst of each kind, then a summary", .timeLimit(.minutes(3)))
struct RateLimitedLogTests {
    @Test("lines of one kind past the burst are counted and summarised when the window ends; other kinds are untouched")
    func summarises() {
        let written = Mutex<[String]>([])
        let log = RateLimitedLog(burst: 3, window: .seconds(3600)) { line in written.withLock { $0.append(line) } }
        defer { log.stop() }
        for index in 0..<1000 { log("refused 401 GET /api/albums from 10.0.\(index % 250).\(index / 250)") }
        log("closed a connection: no complete request within 10 s from 192.0.2.1")
        #expect(written.withLock { $0.count } == 4)
        log.flush(now: .now + .seconds(3601))
        let lines = written.withLock { $0 }
        #expect(lines.count == 5, "\(lines)")
        #expect(lines.last?.hasPrefix("… 997 more like this in the last 3600 s: refused 401 GET /api/albums from 10.0.") == true, "\(lines)")
        // A new window writes again.
        log("refused 401 GET /api/albums from 10.0.0.1")
        #expect(written.withLock { $0.count } == 6)
    }

    @Test("kinds ignore numbers and addresses; an endless variety of kinds is bounded")
    func kinds() {
        #expect(RateLimitedLog.kind(of: "from 127.0.0.1 port 8080") == RateLimitedLog.kind(of: "from 10.2.3.4 port 1"))
        #expect(RateLimitedLog.kind(of: "refused 401 GET /a") != RateLimitedLog.kind(of: "refused 403 GET /a and b"))
        #expect(RateLimitedLog.grouped(52000) == "52,000" && RateLimitedLog.grouped(999) == "999")
        let count = Mutex(0)
        let log = RateLimitedLog(burst: 1, window: .seconds(3600)) { _ in count.withLock { $0 += 1 } }
        defer { log.stop() }
        for index in 0..<(RateLimitedLog.maximumKinds * 3) { log("kind \(String(index, radix: 26).map { $0.isNumber ? "x" : $0 })") }
        #expect(count.withLock { $0 } <= RateLimitedLog.maximumKinds + 1)
    }
}
