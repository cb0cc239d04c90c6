import CMicroHTTPD
import FoundationEssentials
import PhotodropSystem
import Synchronization

/// Keeps slow and idle clients from holding the server: every connection is known here from its accept to its close,
/// with what it is doing, and a watchdog thread shuts down the socket of one that overstays (libmicrohttpd then sees
/// the connection end and frees it):
///
/// - A request's line and headers must all arrive within ``Limits/headerDeadline`` of the connection's accept or of
///   its previous answer (libmicrohttpd's own timeout is an idle timeout that every byte resets: a header byte every
///   10 s kept a connection forever).
/// - A body must bring ``Limits/bodyBytesPerWindow`` bytes in every ``Limits/bodyWindow`` until it is complete.
/// - Connections still waiting for their headers are never the reason a new one is refused: past
///   ``Limits/waitingPerAddress`` of one address, or past ``Limits/waitingTotal`` in all, the one that has waited
///   longest is closed instead (a real client sends its headers at once, so it is never that one).
/// - Requests in progress are counted per client (its address, or behind a trusted proxy the forwarded client):
///   past ``Limits/requestsPerClient`` a request is refused with 429.
///
/// Event streams with nothing to send are suspended (no thread, no timeout): the watchdog looks at their sockets every
/// ``Limits/tick`` and resumes one whose client has gone (so it is freed within a second), or that owes a keep-alive.
final class ConnectionGuard: @unchecked Sendable {
    // @unchecked: every mutable property is guarded by `state` (a Mutex); the thread and the limits are immutable.
    struct Limits: Sendable {
        var headerDeadline: Duration = .seconds(10)
        var bodyWindow: Duration = .seconds(10)
        var bodyBytesPerWindow = 10 * 1024
        var waitingPerAddress = 256
        var waitingTotal = 6144
        var requestsPerClient = 2048
        var keepAlive: Duration = .seconds(15)
        var tick: Duration = .milliseconds(500)
    }

    /// Counts for `/metrics`.
    struct Counts: Sendable {
        var open = 0
        var waiting = 0
        var suspendedStreams = 0
        var cutSlowHeaders = 0
        var cutSlowBody = 0
        var closedForRoom = 0
        var refusedBusyClient = 0
        var streamsLeft = 0
    }

    private enum Phase {
        /// Waiting for a request's headers since `since`; `serial` tells its entries in the queues from stale ones.
        case waiting(since: ContinuousClock.Instant, serial: UInt64)
        /// A body arriving: `bytes` of it in the window that began at `windowStart`.
        case receiving(windowStart: ContinuousClock.Instant, bytes: Int)
        /// The request is complete; its answer is being made or sent (no deadline but libmicrohttpd's idle timeout).
        case answering
        /// Shut down by the watchdog; libmicrohttpd has yet to see it.
        case closing
    }

    private struct Connection {
        let socket: Int32
        let address: String
        var phase: Phase
    }

    /// Connections waiting for headers, in the order they began to wait (stale entries are skipped).
    private struct WaitQueue {
        var entries: [(key: UInt, serial: UInt64)] = []
        var head = 0
        var live = 0

        mutating func append(_ key: UInt, _ serial: UInt64) {
            entries.append((key, serial))
            live += 1
        }

        /// Drops what was consumed once it is most of the array.
        mutating func compact() {
            if head > 1024 && head * 2 > entries.count {
                entries.removeFirst(head)
                head = 0
            }
        }

        /// Keeps only the entries of connections still waiting, once stale ones (connections that got their headers
        /// or closed) are most of it: a busy address always has one waiting, so its queue would otherwise only grow.
        mutating func prune(_ connections: [UInt: Connection]) {
            guard entries.count - head > 2 * live + 64 else { return }
            entries = entries[head...].filter { entry in
                if case .waiting(_, let serial) = connections[entry.key]?.phase { return serial == entry.serial }
                return false
            }
            head = 0
            live = entries.count
        }
    }

    private struct State {
        var connections: [UInt: Connection] = [:]
        var all = WaitQueue()
        var byAddress: [String: WaitQueue] = [:]
        var requestsByClient: [String: Int] = [:]
        var streams: [ObjectIdentifier: SuspendedStream] = [:]
        var serial: UInt64 = 0
        var counts = Counts()
        var stopped = false
    }

    /// A stream's connection while suspended, as the watchdog sees it.
    final class SuspendedStream: @unchecked Sendable {
        // @unchecked: the box's own lock guards `resume`; the rest is immutable.
        let socket: Int32
        let since: ContinuousClock.Instant
        let resume: @Sendable (_ why: ResumeReason) -> Void

        init(socket: Int32, since: ContinuousClock.Instant, resume: @escaping @Sendable (ResumeReason) -> Void) {
            self.socket = socket
            self.since = since
            self.resume = resume
        }
    }

    enum ResumeReason: Sendable { case change, keepAlive, clientGone, stopping }

    let limits: Limits
    private let state = Mutex(State())
    private let log: @Sendable (String) -> Void

    private let clock: @Sendable () -> ContinuousClock.Instant

    /// - Parameters:
    ///   - clock: the time the rules are measured by (tests pass a clock they move by hand).
    ///   - runsWatchdog: whether a thread calls ``watch()`` every `limits.tick` (tests call it themselves).
    init(
        limits: Limits, clock: @escaping @Sendable () -> ContinuousClock.Instant = { .now }, runsWatchdog: Bool = true,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.limits = limits
        self.clock = clock
        self.log = log
        guard runsWatchdog else { return }
        SystemThread.start(name: "photodrop.serve.watchdog") { [weak self] in
            while let guardian = self, !guardian.state.withLock({ $0.stopped }) {
                SystemThread.sleep(seconds: Double(limits.tick / .microseconds(1)) / 1e6)
                guardian.watch()
            }
        }
    }

    func stop() { state.withLock { $0.stopped = true } }

    var counts: Counts {
        state.withLock { state in
            var counts = state.counts
            counts.open = state.connections.count
            counts.waiting = state.all.live
            counts.suspendedStreams = state.streams.count
            return counts
        }
    }

    /// POLLRDHUP (the peer closed its end), which Glibc's Swift module leaves out (it needs _GNU_SOURCE).

    private static func key(_ connection: UnsafeMutableRawPointer) -> UInt { UInt(bitPattern: connection) }

    // MARK: Events from the server's threads

    /// A connection was accepted: it waits for its first request's headers. Makes room when its address, or all, have
    /// too many waiting.
    func opened(_ connection: UnsafeMutableRawPointer, socket: Int32, address: String) {
        let now = clock()
        state.withLock { state in
            state.serial += 1
            let key = Self.key(connection)
            state.connections[key] = Connection(
                socket: socket, address: address, phase: .waiting(since: now, serial: state.serial))
            enqueue(&state, key: key, address: address, serial: state.serial)
            if (state.byAddress[address]?.live ?? 0) > limits.waitingPerAddress {
                closeOldestWaiting(&state, address: address)
            }
            if state.all.live > limits.waitingTotal { closeOldestWaiting(&state, address: nil) }
        }
    }

    /// The connection's socket is about to be closed.
    func closed(_ connection: UnsafeMutableRawPointer) {
        state.withLock { state in
            guard let gone = state.connections.removeValue(forKey: Self.key(connection)) else { return }
            if case .waiting = gone.phase { dequeued(&state, address: gone.address) }
        }
    }

    /// A request's headers are complete: its body, if any, comes next. False when `client` has too many requests in
    /// progress (answer 429); otherwise ``requestEnded(_:client:)`` must follow.
    func requestStarted(_ connection: UnsafeMutableRawPointer, client: String) -> Bool {
        let now = clock()
        return state.withLock { state in
            let key = Self.key(connection)
            if let current = state.connections[key] {
                state.connections[key]?.phase = .receiving(windowStart: now, bytes: 0)
                if case .waiting = current.phase { dequeued(&state, address: current.address) }
            }
            let busy = state.requestsByClient[client, default: 0]
            guard busy < limits.requestsPerClient else {
                state.counts.refusedBusyClient += 1
                return false
            }
            state.requestsByClient[client] = busy + 1
            return true
        }
    }

    /// `count` more bytes of the request's body arrived.
    func received(_ connection: UnsafeMutableRawPointer, bytes count: Int) {
        state.withLock { state in
            let key = Self.key(connection)
            if case .receiving(let start, let bytes) = state.connections[key]?.phase {
                state.connections[key]?.phase = .receiving(windowStart: start, bytes: bytes + count)
            }
        }
    }

    /// The request is complete (its answer is being made or sent).
    func answering(_ connection: UnsafeMutableRawPointer) {
        state.withLock { state in
            let key = Self.key(connection)
            if case .receiving = state.connections[key]?.phase { state.connections[key]?.phase = .answering }
        }
    }

    /// The request is over: the connection waits for the next one's headers (keep-alive). `client` is nil when
    /// ``requestStarted(_:client:)`` refused it.
    func requestEnded(_ connection: UnsafeMutableRawPointer, client: String?) {
        let now = clock()
        state.withLock { state in
            if let client {
                let left = state.requestsByClient[client, default: 1] - 1
                state.requestsByClient[client] = left > 0 ? left : nil
            }
            let key = Self.key(connection)
            guard let current = state.connections[key] else { return }
            switch current.phase {
            case .closing, .waiting: return
            case .receiving, .answering:
                state.serial += 1
                state.connections[key]?.phase = .waiting(since: now, serial: state.serial)
                enqueue(&state, key: key, address: current.address, serial: state.serial)
            }
        }
    }

    /// A stream with nothing to send was suspended; the watchdog resumes it when its client leaves or a keep-alive is
    /// due. ``streamResumed(_:)`` takes it off the list. Never calls the stream back (its caller holds its lock).
    /// False when the server is stopping (the stream must not sleep then).
    func streamSuspended(_ id: ObjectIdentifier, _ stream: SuspendedStream) -> Bool {
        state.withLock { state in
            if !state.stopped { state.streams[id] = stream }
            return !state.stopped
        }
    }

    func streamResumed(_ id: ObjectIdentifier) {
        _ = state.withLock { $0.streams.removeValue(forKey: id) }
    }

    /// Every suspended stream (a change happened, or the server stops).
    func wakeStreams(_ reason: ResumeReason) {
        let streams = state.withLock { state in
            let all = Array(state.streams.values)
            state.streams.removeAll(keepingCapacity: true)
            return all
        }
        for stream in streams { stream.resume(reason) }
    }

    // MARK: The watchdog

    /// One round of the watchdog: cuts overdue headers and slow bodies, resumes streams whose client left or whose
    /// keep-alive is due.
    func watch() {
        let now = clock()
        var gone: [SuspendedStream] = []
        var due: [SuspendedStream] = []
        var cut: [String] = []
        state.withLock { state in
            // Headers overdue: the queue is in waiting order, so only its front needs looking at.
            while state.all.head < state.all.entries.count {
                let (key, serial) = state.all.entries[state.all.head]
                guard let connection = state.connections[key], case .waiting(let since, let current) = connection.phase,
                    current == serial
                else {
                    state.all.head += 1
                    continue
                }
                guard now - since >= limits.headerDeadline else { break }
                state.all.head += 1
                shutDown(&state, key: key, connection)
                state.counts.cutSlowHeaders += 1
                cut.append("no complete request within \(limits.headerDeadline) from \(connection.address)")
            }
            state.all.compact()
            // Bodies too slow.
            for (key, connection) in state.connections {
                guard case .receiving(let start, let bytes) = connection.phase, now - start >= limits.bodyWindow else {
                    continue
                }
                if bytes < limits.bodyBytesPerWindow {
                    shutDown(&state, key: key, connection)
                    state.counts.cutSlowBody += 1
                    cut.append("a request body slower than \(limits.bodyBytesPerWindow) bytes in \(limits.bodyWindow) from \(connection.address)")
                } else {
                    state.connections[key]?.phase = .receiving(windowStart: now, bytes: 0)
                }
            }
            // Suspended streams: a client that left (its socket reports a hang-up), or a keep-alive due.
            if !state.streams.isEmpty {
                let entries = Array(state.streams)
                let gonePeers = ForeignSocket.peersGone(entries.map(\.value.socket))
                for (index, entry) in entries.enumerated() {
                    if gonePeers[index] {
                        state.streams[entry.key] = nil
                        state.counts.streamsLeft += 1
                        gone.append(entry.value)
                    } else if now - entry.value.since >= limits.keepAlive {
                        state.streams[entry.key] = nil
                        due.append(entry.value)
                    }
                }
            }
        }
        for stream in gone { stream.resume(.clientGone) }
        for stream in due { stream.resume(.keepAlive) }
        for message in cut { log("closed a connection: \(message)") }
    }

    // MARK: Helpers (with the state locked)

    private func enqueue(_ state: inout State, key: UInt, address: String, serial: UInt64) {
        state.all.append(key, serial)
        state.byAddress[address, default: WaitQueue()].append(key, serial)
    }

    /// A connection left the waiting phase (its entries in the queues go stale).
    private func dequeued(_ state: inout State, address: String) {
        state.all.live -= 1
        state.all.prune(state.connections)
        if var queue = state.byAddress.removeValue(forKey: address) {
            queue.live -= 1
            if queue.live > 0 {
                queue.prune(state.connections)
                queue.compact()
                state.byAddress[address] = queue
            }
        }
    }

    /// Closes the connection that has waited longest for its headers: of `address`, or of all when nil.
    private func closeOldestWaiting(_ state: inout State, address: String?) {
        while true {
            let entry: (key: UInt, serial: UInt64)
            if let address {
                guard var queue = state.byAddress[address], queue.head < queue.entries.count else { return }
                entry = queue.entries[queue.head]
                queue.head += 1
                state.byAddress[address] = queue
            } else {
                guard state.all.head < state.all.entries.count else { return }
                entry = state.all.entries[state.all.head]
                state.all.head += 1
            }
            guard let connection = state.connections[entry.key],
                case .waiting(_, let serial) = connection.phase, serial == entry.serial
            else { continue }
            shutDown(&state, key: entry.key, connection)
            state.counts.closedForRoom += 1
            return
        }
    }

    /// Ends the connection: libmicrohttpd sees its socket shut down and closes it (the record goes at its close).
    private func shutDown(_ state: inout State, key: UInt, _ connection: Connection) {
        state.connections[key]?.phase = .closing
        if case .waiting = connection.phase { dequeued(&state, address: connection.address) }
        // The socket is still open: libmicrohttpd reports the close (and takes the record) before it closes it.
        ForeignSocket.shutDown(connection.socket)
    }
}
