import CMicroHTTPD
import FoundationEssentials
import PhotodropSystem
import Synchronization

/// An HTTP server on libmicrohttpd: a few threads with an epoll set each move the bytes of every connection; answers
/// that take time are made by ``RequestWorkers`` while their connections wait suspended, and event streams with
/// nothing to send are suspended too, so a waiting connection costs a socket and a buffer, never a thread.
/// ``ConnectionGuard`` closes connections too slow with their headers or body.
///
/// Each request: its headers are checked (``RequestCensus``: what libmicrohttpd lets through, and our own limits on
/// header and target size, each answered with a status), counted for its client, screened (`screen`: a refusal before
/// any body is read), its body collected (up to ``maximumBodyBytes``) or streamed to a receiver; then answered at
/// once by `quick` (a picture kept in memory) or by `handler` on a worker.
final class HTTPServer: @unchecked Sendable {
    // @unchecked: `server` and `port` are written once in `start` (before any request) and read in `stop`; `stopping`
    // is an Atomic; the closures and helpers are immutable and Sendable.
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        /// Connections at once; lowered to what the open-file limit allows (raised to its maximum at start).
        var connectionLimit = 8192
        /// Threads moving bytes (each with its own epoll set).
        public var threads = max(2, min(ProcessInfo.processInfo.activeProcessorCount, 8))
        /// Threads making answers (catalog reads, changes, pictures made on demand).
        public var workers = 16
        /// A connection silent this long (nothing read or written) is closed.
        var idleTimeoutSeconds = 30
        var headerDeadlineSeconds = 10
        /// A body must bring at least this many bytes in every ``bodyWindowSeconds``.
        var bodyBytesPerWindow = 10 * 1024
        var bodyWindowSeconds = 10
        /// Request headers (names, values) past this get 431.
        var headerBytes = 16 * 1024
        /// A request target (path and query) past this gets 414.
        var targetBytes = 8 * 1024
        /// Query arguments past this get 431.
        var maximumArguments = 100
        /// libmicrohttpd's memory per connection (its read buffer, the request line and headers): larger than the
        /// limits above, so that a request past them reaches our checks and gets our answer.
        var connectionMemory = 128 * 1024
        /// Peers whose `X-Forwarded-For` names the client (config `serve.trustedProxies`, with `serve.behindProxy`).
        public var trustedProxies: [String] = []
        /// Silence after which an event stream sends its keep-alive.
        var keepAliveSeconds = 15
        var certificatePEM: String?
        var keyPEM: String?

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// Request bodies this server collects in memory (JSON of a mutation); uploads stream elsewhere.
    static let maximumBodyBytes = 64 * 1024

    typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Decides from the headers alone, before any body is read: a response to send at once (a refusal), or nil.
    typealias Screen = @Sendable (HTTPRequest) -> HTTPResponse?
    /// Decides, for a request the screen let through, where its body goes.
    typealias BodyRouter = @Sendable (HTTPRequest) -> BodyHandling

    private let handler: Handler
    private let quick: Screen
    private let screen: Screen
    private let bodyRouter: BodyRouter
    private let finishing: @Sendable (HTTPResponse) -> HTTPResponse
    private let log: @Sendable (String) -> Void
    private var server: UnsafeMutableRawPointer?
    private var workers: RequestWorkers?
    private var connectionGuard: ConnectionGuard?
    private var identity = ClientIdentity(trustedProxies: [])
    private var options = Options(host: "127.0.0.1", port: 0)
    private let stopping = Atomic<Bool>(false)
    /// Bumped by every ``wakeStreams()``: a stream that was about to sleep sees that it missed one.
    fileprivate let wakes = Atomic<UInt64>(0)
    /// The port it listens on (the one the system chose when asked for 0).
    public private(set) var port = 0
    /// Connections at once, after the open-file limit.
    public private(set) var connectionLimit = 0

    /// - Parameters:
    ///   - quick: answers a complete request at once, on the thread that read it, when it can without waiting for
    ///     anything (a picture kept in memory); nil sends it to `handler` on a worker.
    ///   - finishing: adds what every answer carries to the server's own refusals (429, 400, 413, 431, 414, 503).
    public init(
        screen: @escaping Screen, bodyRouter: @escaping BodyRouter = { _ in .collect },
        quick: @escaping Screen = { _ in nil }, handler: @escaping Handler,
        finishing: @escaping @Sendable (HTTPResponse) -> HTTPResponse = { $0 },
        log: @escaping @Sendable (String) -> Void
    ) {
        self.screen = screen
        self.bodyRouter = bodyRouter
        self.quick = quick
        self.handler = handler
        self.finishing = finishing
        self.log = log
    }

    /// Starts listening.
    public func start(_ options: Options) throws(HTTPServerError) {
        self.options = options
        identity = ClientIdentity(trustedProxies: options.trustedProxies)
        let files = Self.raiseOpenFileLimit()
        // Room for the library's files, the render helper's socket, the log and the files being sent.
        let limit = max(16, min(options.connectionLimit, files / 2 - 64))
        if limit < options.connectionLimit {
            log(
                "the open-file limit (\(files)) allows \(limit) connections, not \(options.connectionLimit); raise it "
                    + "(LimitNOFILE= in the service's unit, ulimit -n) for more")
        }
        connectionLimit = limit
        var limits = ConnectionGuard.Limits()
        limits.headerDeadline = .seconds(options.headerDeadlineSeconds)
        limits.bodyWindow = .seconds(options.bodyWindowSeconds)
        limits.bodyBytesPerWindow = options.bodyBytesPerWindow
        limits.waitingTotal = limit * 3 / 4
        limits.waitingPerAddress = min(256, max(8, limit / 8))
        limits.requestsPerClient = max(8, limit / 4)
        limits.keepAlive = .seconds(options.keepAliveSeconds)
        let connectionGuard = ConnectionGuard(limits: limits, log: log)
        self.connectionGuard = connectionGuard
        let workers = RequestWorkers(count: options.workers)
        self.workers = workers
        var bound: UInt16 = 0
        var message = [CChar](repeating: 0, count: 512)
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started: UnsafeMutableRawPointer? = options.host.withCString { host in
            withOptionalCString(options.certificatePEM) { certificate in
                withOptionalCString(options.keyPEM) { key in
                    var settings = pd_http_options(
                        address: host, port: UInt16(clamping: options.port), connection_limit: UInt32(limit),
                        threads: UInt32(options.threads), timeout_seconds: UInt32(options.idleTimeoutSeconds),
                        connection_memory_limit: options.connectionMemory, certificate_pem: certificate, key_pem: key)
                    return pd_http_start(
                        &settings, HTTPServer.handle, HTTPServer.completed, HTTPServer.connectionEvent,
                        HTTPServer.logged, context, &bound, &message, message.count)
                }
            }
        }
        guard let started else {
            connectionGuard.stop()
            workers.stop()
            throw HTTPServerError(
                description: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        server = started
        port = Int(bound)
    }

    /// Stops listening and closes every connection: answers being made are finished and sent first, event streams
    /// end.
    public func stop() {
        guard let server else { return }
        stopping.store(true, ordering: .sequentiallyConsistent)
        connectionGuard?.stop()
        workers?.stop()
        connectionGuard?.wakeStreams(.stopping)
        pd_http_stop(server)
        self.server = nil
    }

    deinit { stop() }

    /// Wakes every suspended event stream: it reads what is new (the library changed).
    func wakeStreams() {
        wakes.add(1, ordering: .sequentiallyConsistent)
        connectionGuard?.wakeStreams(.change)
    }

    /// What the connection guard counted (for `/metrics`).
    var connectionCounts: ConnectionGuard.Counts { connectionGuard?.counts ?? ConnectionGuard.Counts() }

    /// Jobs waiting for a worker.
    var waitingJobs: Int { workers?.waiting ?? 0 }

    /// Raises the soft limit on open files to the hard one (systemd's default soft limit is 1,024; each connection is
    /// one); returns the limit in force.
    private static func raiseOpenFileLimit() -> Int {
        SystemProcess.raiseOpenFileLimit()
    }

    /// What one request collects between the calls libmicrohttpd makes for it.
    private final class RequestState: @unchecked Sendable {
        // @unchecked: used by the connection's thread, and by one worker while the connection is suspended (the
        // suspension and the resumption order the two).
        let connection: UnsafeMutableRawPointer
        var body: [UInt8] = []
        var refused = false
        /// The client it was counted for (released when it ends); nil when it was refused for its client.
        var client: String?
        /// Where a streamed body goes; nil once it finished or was given up.
        var receiver: (any BodyReceiver)?
        /// A body refused midway: the answer, sent once the rest of the body has been read and dropped (libmicrohttpd
        /// can answer only before a body or after it; a server that closes while the client still sends makes the
        /// kernel reset the connection, and the client never sees an answer), or the connection is closed past
        /// `drainLimit`.
        var pendingRefusal: HTTPResponse?
        var drained = 0
        var drainLimit = 64 << 20
        /// The answer a worker made while the connection was suspended.
        var answer: HTTPResponse?

        init(connection: UnsafeMutableRawPointer) { self.connection = connection }
    }

    private static let handle: pd_http_handler = { context, connection, url, method, data, size, state in
        guard let context, let connection, let url, let method, let size, let state else { return 0 }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        guard let existing = state.pointee else {
            let fresh = RequestState(connection: connection)
            state.pointee = Unmanaged.passRetained(fresh).toOpaque()
            let request = HTTPRequest(
                connection: connection, method: String(cString: method), path: String(cString: url), body: [])
            return server.begin(request, fresh) ? 1 : 0
        }
        let current = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
        if size.pointee > 0 {
            server.connectionGuard?.received(connection, bytes: size.pointee)
            let piece = data.map { UnsafeRawBufferPointer(start: $0, count: size.pointee) }
            size.pointee = 0
            return server.receive(piece, current) ? 1 : 0
        }
        if let answer = current.answer {
            current.answer = nil
            return server.send(answer, on: connection) ? 1 : 0
        }
        let request = HTTPRequest(
            connection: connection, method: String(cString: method), path: String(cString: url), body: current.body,
            client: current.client)
        return server.complete(request, current) ? 1 : 0
    }

    /// The server's own refusals of a request while it stops, and of a body past ``maximumBodyBytes``.
    private var stoppingAnswer: HTTPResponse { finishing(.error(503, "the server is stopping; try again in a moment")) }
    private var bodyTooLarge: HTTPResponse {
        finishing(.error(413, "the request body is larger than \(Self.maximumBodyBytes) bytes"))
    }

    /// The request's headers are complete: checked, counted, screened, and its body routed.
    private func begin(_ request: HTTPRequest, _ state: RequestState) -> Bool {
        var request = request
        let connection = request.connection
        if stopping.load(ordering: .relaxed) {
            state.refused = true
            return send(stoppingAnswer, on: connection)
        }
        let client = identity.client(peer: request.peerAddress, forwardedFor: request.lastHeader("X-Forwarded-For"))
        guard connectionGuard?.requestStarted(connection, client: client) ?? true else {
            state.refused = true
            var busy = finishing(.error(429, "too many requests from \(client) at once; wait for some to finish"))
            busy.headers.append(("Retry-After", "1"))
            return send(busy, on: connection)
        }
        state.client = client
        request.forwardedClient = client
        var census = pd_http_census()
        pd_http_census_of(connection, &census)
        var refusal = RequestCensus(
            census, path: request.path, transferEncoding: request.header("Transfer-Encoding"), options: options
        ).refusal.map(finishing)
        if refusal == nil { refusal = screen(request) }
        if refusal == nil {
            let length = request.header("Content-Length").flatMap(Int.init)
            switch bodyRouter(request) {
            case .collect:
                if let length, length > Self.maximumBodyBytes {
                    refusal = bodyTooLarge
                }
            case .stream(let receiver):
                state.receiver = receiver
                // A declared length was accepted: a refusal midway reads the rest of it, so the client gets its answer.
                if let length { state.drainLimit = max(state.drainLimit, length) }
            case .refuse(let response): refusal = response
            }
        }
        if let refusal {
            state.refused = true
            return send(refusal, on: connection)
        }
        return true
    }

    /// A piece of the body.
    private func receive(_ piece: UnsafeRawBufferPointer?, _ state: RequestState) -> Bool {
        let count = piece?.count ?? 0
        if state.pendingRefusal != nil {
            state.drained += count
            return state.drained <= state.drainLimit
        }
        if state.refused { return true }
        if let receiver = state.receiver {
            guard let piece, let refusal = receiver.receive(piece) else { return true }
            receiver.abandon()
            state.receiver = nil
            state.pendingRefusal = refusal
            return true
        }
        if state.body.count + count > Self.maximumBodyBytes {
            state.body = []
            state.pendingRefusal = bodyTooLarge
            state.drained = count
            return true
        }
        if let piece { state.body.append(contentsOf: piece.bindMemory(to: UInt8.self)) }
        return true
    }

    /// The whole request is in: answered now, or by a worker while the connection waits.
    private func complete(_ request: HTTPRequest, _ state: RequestState) -> Bool {
        let connection = request.connection
        if let refusal = state.pendingRefusal {
            state.pendingRefusal = nil
            state.refused = true
            return send(refusal, on: connection)
        }
        if state.refused { return true }
        connectionGuard?.answering(connection)
        if let receiver = state.receiver {
            state.receiver = nil
            return later(state) { receiver.finish() }
        }
        if let answer = quick(request) { return send(answer, on: connection) }
        let handler = handler
        return later(state) { handler(request) }
    }

    /// Suspends the connection while a worker makes its answer; libmicrohttpd calls the handler again once it is
    /// resumed, which sends it.
    private func later(_ state: RequestState, _ work: @escaping @Sendable () -> HTTPResponse) -> Bool {
        guard let workers, !stopping.load(ordering: .relaxed) else {
            return send(stoppingAnswer, on: state.connection)
        }
        pd_http_suspend(state.connection)
        workers.submit {
            state.answer = work()
            pd_http_resume(state.connection)
        }
        return true
    }

    private static let completed: pd_http_completed = { context, state, _ in
        guard let context, let state else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        let finished = Unmanaged<RequestState>.fromOpaque(state).takeRetainedValue()
        // A body still streaming when the request ends: the client went away (or timed out) mid-upload.
        finished.receiver?.abandon()
        finished.receiver = nil
        server.connectionGuard?.requestEnded(finished.connection, client: finished.client)
    }

    private static let connectionEvent: pd_http_connection_event = { context, connection, started in
        guard let context, let connection else { return }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        if started != 0 {
            server.connectionGuard?.opened(
                connection, socket: pd_http_socket(connection), address: HTTPRequest.peerAddress(of: connection))
        } else {
            server.connectionGuard?.closed(connection)
        }
    }

    private static let logged: pd_http_logger = { context, message in
        guard let context, let message else { return }
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().log("libmicrohttpd: " + String(cString: message))
    }

    /// Queues `response`; false when libmicrohttpd refused it (the connection is then closed).
    private func send(_ response: HTTPResponse, on connection: UnsafeMutableRawPointer) -> Bool {
        if case .kept(let kept) = response.body {
            return pd_http_respond_kept(connection, UInt32(kept.status), kept.pointer) != 0
        }
        let headerText = HTTPResponse.headerLines(response.headers)
        let status = UInt32(response.status)
        switch response.body {
        case .bytes(let bytes):
            return bytes.withUnsafeBytes { pd_http_respond(connection, status, $0.baseAddress, $0.count, headerText) } != 0
        case .file(let descriptor, let offset, let length):
            return pd_http_respond_file(connection, status, descriptor, offset, length, headerText) != 0
        case .stream(let stream):
            let box = StreamBox(stream, connection: connection, server: self)
            let context = Unmanaged.passRetained(box).toOpaque()
            return pd_http_respond_stream(connection, status, HTTPServer.read, context, HTTPServer.finished, headerText)
                != 0
        case .kept: return false  // answered above
        }
    }

    /// One event stream's connection: reads it without blocking, suspends it when there is nothing to send, and
    /// resumes it for a change, a keep-alive, a client that left or the server's stop.
    fileprivate final class StreamBox: @unchecked Sendable {
        // @unchecked: the mutable state is guarded by `lock`.
        let stream: any HTTPStream
        let connection: UnsafeMutableRawPointer
        unowned let server: HTTPServer
        private let lock = ConditionLock()
        private var suspended = false
        private var owesKeepAlive = false
        private var clientGone = false
        private var pending: [UInt8] = []

        init(_ stream: any HTTPStream, connection: UnsafeMutableRawPointer, server: HTTPServer) {
            self.stream = stream
            self.connection = connection
            self.server = server
        }

        /// libmicrohttpd's reader: a count, -1 at the end, -2 to close; 0 after suspending the connection.
        func read(into buffer: UnsafeMutableRawBufferPointer) -> Int {
            lock.lock()
            defer { lock.unlock() }
            if clientGone { return -2 }
            if server.stopping.load(ordering: .relaxed) { return -1 }
            if pending.isEmpty {
                let wakesBefore = server.wakes.load(ordering: .sequentiallyConsistent)
                switch stream.read(into: buffer) {
                case .wrote(let count): return count
                case .end: return -1
                case .later:
                    if owesKeepAlive {
                        owesKeepAlive = false
                        pending = stream.keepAlive
                    } else {
                        return sleep(unlessWokenSince: wakesBefore)
                    }
                }
            }
            owesKeepAlive = false
            let count = min(buffer.count, pending.count)
            pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            pending.removeFirst(count)
            return count
        }

        /// Suspends the connection (with the lock held) and puts it on the watchdog's list; resumes it at once when
        /// a wake came since the stream last looked (it would otherwise sleep through that change).
        private func sleep(unlessWokenSince wakesBefore: UInt64) -> Int {
            guard let connectionGuard = server.connectionGuard else { return -1 }
            suspended = true
            pd_http_suspend(connection)
            let id = ObjectIdentifier(self)
            let accepted = connectionGuard.streamSuspended(
                id,
                ConnectionGuard.SuspendedStream(socket: pd_http_socket(connection), since: .now) { [weak self] reason in
                    self?.resume(reason)
                })
            if !accepted || server.wakes.load(ordering: .sequentiallyConsistent) != wakesBefore {
                connectionGuard.streamResumed(id)
                suspended = false
                pd_http_resume(connection)
            }
            return 0
        }

        func resume(_ reason: ConnectionGuard.ResumeReason) {
            lock.lock()
            defer { lock.unlock() }
            guard suspended else { return }
            suspended = false
            switch reason {
            case .keepAlive: owesKeepAlive = true
            case .clientGone: clientGone = true
            case .change, .stopping: break
            }
            pd_http_resume(connection)
        }
    }

    private static let read: pd_http_reader = { context, _, buffer, max in
        guard let context, let buffer else { return -2 }
        let box = Unmanaged<StreamBox>.fromOpaque(context).takeUnretainedValue()
        return box.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max))
    }

    private static let finished: pd_http_reader_done = { context in
        guard let context else { return }
        let box = Unmanaged<StreamBox>.fromOpaque(context).takeRetainedValue()
        box.server.connectionGuard?.streamResumed(ObjectIdentifier(box))
        box.stream.finish()
    }
}

/// Why the server could not start.
public struct HTTPServerError: Error, CustomStringConvertible {
    public let description: String
}

private func withOptionalCString<T>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> T) -> T {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}
