import Foundation
import Synchronization
import Testing

@testable import PhotoServer

/// The connection guard's rules on real sockets (socket pairs: a connection it shuts down reads end-of-file on the
/// other side), with limits small enough to reach: who is closed to make room, the header and body deadlines, the
/// count of requests per client, and suspended streams whose client left.
@Suite("ConnectionGuard: deadlines, room and limits per client", .timeLimit(.minutes(3)))
struct ConnectionGuardTests {
    /// A connected pair: the server's end (what the guard shuts down) and the client's.
    final class Pair {
        let server: Int32
        let client: Int32
        /// A stand-in for libmicrohttpd's connection pointer: any unique address.
        let connection = UnsafeMutableRawPointer.allocate(byteCount: 1, alignment: 1)

        init() throws {
            var ends: [Int32] = [0, 0]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &ends) == 0 else {
                throw POSIXError(.init(rawValue: errno) ?? .EIO)
            }
            server = ends[0]
            client = ends[1]
        }

        deinit {
            close(server)
            close(client)
            connection.deallocate()
        }

        /// Whether the server's end was shut down (the client reads end-of-file at once).
        var isShutDown: Bool {
            var poller = pollfd(fd: client, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 0) > 0 else { return false }
            var byte: UInt8 = 0
            return recv(client, &byte, 1, Int32(MSG_PEEK)) == 0
        }
    }

    /// A clock the test moves by hand: the deadlines are checked at exact instants, whatever the machine's load.
    final class HandClock: Sendable {
        private let instant = Mutex(ContinuousClock.now)
        var now: ContinuousClock.Instant { instant.withLock { $0 } }
        func advance(_ by: Duration) { instant.withLock { $0 += by } }
    }

    private func guarded(
        clock: HandClock = HandClock(), _ configure: (inout ConnectionGuard.Limits) -> Void
    ) -> ConnectionGuard {
        var limits = ConnectionGuard.Limits()
        configure(&limits)
        return ConnectionGuard(limits: limits, clock: { clock.now }, runsWatchdog: false, log: { _ in })
    }

    @Test("past its share of waiting connections, an address loses its oldest one; others keep theirs")
    func roomPerAddress() throws {
        let guardian = guarded { $0.waitingPerAddress = 3 }
        defer { guardian.stop() }
        let pairs = try (0..<4).map { _ in try Pair() }
        for pair in pairs { guardian.opened(pair.connection, socket: pair.server, address: "192.0.2.1") }
        #expect(pairs[0].isShutDown, "the oldest of the address goes")
        #expect(pairs[1...].allSatisfy { !$0.isShutDown })
        // Another address is untouched by the first one's crowd.
        let other = try Pair()
        guardian.opened(other.connection, socket: other.server, address: "192.0.2.2")
        #expect(!other.isShutDown)
        // One that sent its headers is no longer waiting, and is not the one closed next.
        #expect(guardian.requestStarted(pairs[1].connection, client: "192.0.2.1"))
        let next = try Pair()
        guardian.opened(next.connection, socket: next.server, address: "192.0.2.1")
        #expect(!pairs[1].isShutDown && !pairs[2].isShutDown && !next.isShutDown)
        #expect(guardian.counts.closedForRoom == 1)
    }

    @Test("past the waiting share of all connections, the one that waited longest goes, whatever its address")
    func roomInAll() throws {
        let guardian = guarded { $0.waitingTotal = 5 }
        defer { guardian.stop() }
        let pairs = try (0..<7).map { _ in try Pair() }
        for (index, pair) in pairs.enumerated() {
            guardian.opened(pair.connection, socket: pair.server, address: "198.51.100.\(index)")
        }
        #expect(pairs[0].isShutDown && pairs[1].isShutDown)
        #expect(pairs[2...].allSatisfy { !$0.isShutDown })
        #expect(guardian.counts.waiting == 5)
    }

    @Test("headers overdue, and a body slower than its minimum, are cut by the watchdog; an answer in progress is not")
    func deadlines() throws {
        let clock = HandClock()
        let guardian = guarded(clock: clock) {
            $0.headerDeadline = .seconds(10)
            $0.bodyWindow = .seconds(10)
            $0.bodyBytesPerWindow = 100
        }
        defer { guardian.stop() }
        let silent = try Pair()
        let slowBody = try Pair()
        let fastBody = try Pair()
        let answering = try Pair()
        for pair in [silent, slowBody, fastBody, answering] {
            guardian.opened(pair.connection, socket: pair.server, address: "203.0.113.1")
        }
        for pair in [slowBody, fastBody, answering] {
            #expect(guardian.requestStarted(pair.connection, client: "203.0.113.1"))
        }
        guardian.answering(answering.connection)
        // A second before the deadlines nothing is cut.
        for _ in 0..<9 {
            clock.advance(.seconds(1))
            guardian.received(fastBody.connection, bytes: 60)
            guardian.received(slowBody.connection, bytes: 1)
            guardian.watch()
        }
        #expect([silent, slowBody, fastBody, answering].allSatisfy { !$0.isShutDown })
        // At the deadlines: the silent one and the slow body go; the fast body (540 bytes) starts a new window.
        clock.advance(.seconds(1))
        guardian.watch()
        #expect(silent.isShutDown && slowBody.isShutDown)
        #expect(!fastBody.isShutDown && !answering.isShutDown)
        let counts = guardian.counts
        #expect(counts.cutSlowHeaders == 1 && counts.cutSlowBody == 1, "\(counts)")
        // The fast body's next window counts afresh: nothing more arrives, so it goes at the end of that window.
        clock.advance(.seconds(10))
        guardian.watch()
        #expect(fastBody.isShutDown)
        // An answered request waits for the next one's headers, under the same deadline.
        guardian.requestEnded(answering.connection, client: "203.0.113.1")
        clock.advance(.seconds(9))
        guardian.watch()
        #expect(!answering.isShutDown)
        clock.advance(.seconds(1))
        guardian.watch()
        #expect(answering.isShutDown)
    }

    @Test("requests in progress are counted per client: past the limit 429, freed when they end")
    func requestsPerClient() throws {
        let guardian = guarded { $0.requestsPerClient = 2 }
        defer { guardian.stop() }
        let pairs = try (0..<4).map { _ in try Pair() }
        for pair in pairs { guardian.opened(pair.connection, socket: pair.server, address: "127.0.0.1") }
        // Behind a proxy every connection comes from one address; the clients are the forwarded ones.
        #expect(guardian.requestStarted(pairs[0].connection, client: "203.0.113.7"))
        #expect(guardian.requestStarted(pairs[1].connection, client: "203.0.113.7"))
        #expect(!guardian.requestStarted(pairs[2].connection, client: "203.0.113.7"))
        #expect(guardian.requestStarted(pairs[3].connection, client: "203.0.113.8"))
        guardian.requestEnded(pairs[2].connection, client: nil)
        guardian.requestEnded(pairs[0].connection, client: "203.0.113.7")
        #expect(guardian.requestStarted(pairs[2].connection, client: "203.0.113.7"))
        #expect(guardian.counts.refusedBusyClient == 1)
    }

    @Test("a suspended stream is resumed when its client leaves, when a keep-alive is due, and on a wake")
    func suspendedStreams() throws {
        let clock = HandClock()
        let guardian = guarded(clock: clock) { $0.keepAlive = .seconds(15) }
        defer { guardian.stop() }
        let leaving = try Pair()
        let quiet = try Pair()
        let reasons = Mutex<[String: ConnectionGuard.ResumeReason]>([:])
        func suspended(_ pair: Pair, _ name: String) -> ConnectionGuard.SuspendedStream {
            ConnectionGuard.SuspendedStream(socket: pair.server, since: clock.now) { reason in
                reasons.withLock { $0[name] = reason }
            }
        }
        let leavingStream = suspended(leaving, "leaving")
        let quietStream = suspended(quiet, "quiet")
        #expect(guardian.streamSuspended(ObjectIdentifier(leavingStream), leavingStream))
        #expect(guardian.streamSuspended(ObjectIdentifier(quietStream), quietStream))
        // The client that leaves is noticed at the next round, long before a keep-alive.
        shutdown(leaving.client, Int32(SHUT_RDWR))
        clock.advance(.milliseconds(500))
        guardian.watch()
        #expect(reasons.withLock { $0["leaving"] } == .clientGone)
        #expect(reasons.withLock { $0["quiet"] } == nil)
        clock.advance(.seconds(14))
        guardian.watch()
        #expect(reasons.withLock { $0["quiet"] } == nil)
        clock.advance(.seconds(1))
        guardian.watch()
        #expect(reasons.withLock { $0["quiet"] } == .keepAlive)
        // Suspended again: a wake resumes it at once.
        let again = suspended(quiet, "again")
        #expect(guardian.streamSuspended(ObjectIdentifier(again), again))
        guardian.wakeStreams(.change)
        #expect(reasons.withLock { $0["again"] } == .change)
        #expect(guardian.counts.suspendedStreams == 0 && guardian.counts.streamsLeft == 1)
        // Once stopped, no stream may sleep.
        guardian.stop()
        #expect(!guardian.streamSuspended(ObjectIdentifier(again), again))
    }
}
