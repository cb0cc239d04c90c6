import CMicroHTTPD
import Foundation
import Synchronization

/// An HTTP server on libmicrohttpd (one thread per connection), handing each request to `handler` once its body is
/// in: a body larger than ``maximumBodyBytes`` is refused with 413 before it is read. Headers larger than the
/// connection's memory limit get 431 from libmicrohttpd itself; idle connections are closed after the timeout.
public final class HTTPServer: @unchecked Sendable {
    // @unchecked: `server` is written once in `start` and read in `stop`; the handler is immutable.
    public struct Options: Sendable {
        public var host: String
        public var port: Int
        public var connectionLimit = 256
        public var connectionsPerClient = 64
        public var idleTimeoutSeconds = 30
        public var headerBytes = 16 * 1024
        public var certificatePEM: String?
        public var keyPEM: String?

        public init(host: String, port: Int) {
            self.host = host
            self.port = port
        }
    }

    /// Request bodies this server collects in memory (JSON of a mutation); uploads stream elsewhere.
    public static let maximumBodyBytes = 64 * 1024

    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse
    /// Decides from the headers alone, before any body is read: a response to send at once (a refusal), or nil.
    public typealias Screen = @Sendable (HTTPRequest) -> HTTPResponse?
    /// Decides, for a request the screen let through, where its body goes.
    public typealias BodyRouter = @Sendable (HTTPRequest) -> BodyHandling

    private let handler: Handler
    private let screen: Screen
    private let bodyRouter: BodyRouter
    private let log: @Sendable (String) -> Void
    private var server: UnsafeMutableRawPointer?
    /// The port it listens on (the one the system chose when asked for 0).
    public private(set) var port = 0

    public init(
        screen: @escaping Screen, bodyRouter: @escaping BodyRouter = { _ in .collect }, handler: @escaping Handler,
        log: @escaping @Sendable (String) -> Void
    ) {
        self.screen = screen
        self.bodyRouter = bodyRouter
        self.handler = handler
        self.log = log
    }

    /// Starts listening.
    public func start(_ options: Options) throws(HTTPServerError) {
        var bound: UInt16 = 0
        var message = [CChar](repeating: 0, count: 512)
        let context = Unmanaged.passUnretained(self).toOpaque()
        let started: UnsafeMutableRawPointer? = options.host.withCString { host in
            withOptionalCString(options.certificatePEM) { certificate in
                withOptionalCString(options.keyPEM) { key in
                    var settings = pd_http_options(
                        address: host, port: UInt16(clamping: options.port),
                        connection_limit: UInt32(options.connectionLimit),
                        per_ip_connection_limit: UInt32(options.connectionsPerClient),
                        timeout_seconds: UInt32(options.idleTimeoutSeconds),
                        connection_memory_limit: options.headerBytes, certificate_pem: certificate, key_pem: key)
                    return pd_http_start(
                        &settings, HTTPServer.handle, HTTPServer.completed, HTTPServer.logged, context, &bound,
                        &message, message.count)
                }
            }
        }
        guard let started else {
            throw HTTPServerError(
                description: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        server = started
        port = Int(bound)
    }

    /// Stops listening and closes every connection, waiting for their threads.
    public func stop() {
        if let server { pd_http_stop(server) }
        server = nil
    }

    deinit { stop() }

    /// What one request collects between the calls libmicrohttpd makes for it.
    private final class RequestState {
        var body: [UInt8] = []
        var refused = false
        /// Where a streamed body goes; nil once it finished or was given up.
        var receiver: (any BodyReceiver)?
        /// A streamed body refused midway: the answer, sent once the rest of the body has been read and dropped (a
        /// server that answers and closes while the client still sends makes the kernel reset the connection, and
        /// the client never sees the answer), or at once past ``drainLimit``.
        var pendingRefusal: HTTPResponse?
        var drained = 0
    }

    /// How much of a refused streamed body is read and dropped so that the client gets the answer.
    static let drainLimit = 64 << 20

    private static let handle: pd_http_handler = { context, connection, url, method, data, size, state in
        guard let context, let connection, let url, let method, let size, let state else { return 0 }
        let server = Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue()
        let request = HTTPRequest(
            connection: connection, method: String(cString: method), path: String(cString: url), body: [])
        guard let existing = state.pointee else {
            // Headers complete: a refusal now keeps the body from being read at all.
            let fresh = RequestState()
            state.pointee = Unmanaged.passRetained(fresh).toOpaque()
            var refusal = server.screen(request)
            if refusal == nil {
                switch server.bodyRouter(request) {
                case .collect:
                    if let length = request.header("Content-Length").flatMap(Int.init), length > maximumBodyBytes {
                        refusal = .error(413, "the request body is larger than \(maximumBodyBytes) bytes")
                    }
                case .stream(let receiver): fresh.receiver = receiver
                case .refuse(let response): refusal = response
                }
            }
            if let refusal {
                fresh.refused = true
                return server.send(refusal, on: connection) ? 1 : 0
            }
            return 1
        }
        let collected = Unmanaged<RequestState>.fromOpaque(existing).takeUnretainedValue()
        if let refusal = collected.pendingRefusal {
            collected.drained += size.pointee
            if size.pointee > 0 && collected.drained <= drainLimit {
                size.pointee = 0
                return 1
            }
            size.pointee = 0
            collected.pendingRefusal = nil
            collected.refused = true
            return server.send(refusal, on: connection) ? 1 : 0
        }
        if let receiver = collected.receiver {
            if size.pointee > 0 {
                let refusal = data.flatMap { receiver.receive(UnsafeRawBufferPointer(start: $0, count: size.pointee)) }
                size.pointee = 0
                guard let refusal else { return 1 }
                receiver.abandon()
                collected.receiver = nil
                collected.pendingRefusal = refusal
                return 1
            }
            collected.receiver = nil
            return server.send(receiver.finish(), on: connection) ? 1 : 0
        }
        if size.pointee > 0 {
            if !collected.refused {
                if collected.body.count + size.pointee > maximumBodyBytes {
                    collected.refused = true
                    size.pointee = 0
                    return server.send(.error(413, "the request body is larger than \(maximumBodyBytes) bytes"), on: connection)
                        ? 1 : 0
                }
                if let data {
                    collected.body.append(
                        contentsOf: UnsafeRawBufferPointer(start: data, count: size.pointee).bindMemory(to: UInt8.self))
                }
            }
            size.pointee = 0
            return 1
        }
        if collected.refused { return 1 }
        let complete = HTTPRequest(connection: connection, method: request.method, path: request.path, body: collected.body)
        return server.send(server.handler(complete), on: connection) ? 1 : 0
    }

    private static let completed: pd_http_completed = { _, state, _ in
        guard let state else { return }
        let finished = Unmanaged<RequestState>.fromOpaque(state).takeRetainedValue()
        // A body still streaming when the request ends: the client went away (or timed out) mid-upload.
        finished.receiver?.abandon()
        finished.receiver = nil
    }

    private static let logged: pd_http_logger = { context, message in
        guard let context, let message else { return }
        Unmanaged<HTTPServer>.fromOpaque(context).takeUnretainedValue().log(String(cString: message))
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
            let context = Unmanaged.passRetained(StreamBox(stream)).toOpaque()
            return pd_http_respond_stream(connection, status, HTTPServer.read, context, HTTPServer.finished, headerText)
                != 0
        case .kept: return false  // answered above
        }
    }

    private final class StreamBox {
        let stream: any HTTPStream
        init(_ stream: any HTTPStream) { self.stream = stream }
    }

    private static let read: pd_http_reader = { context, _, buffer, max in
        guard let context, let buffer else { return -2 }
        let box = Unmanaged<StreamBox>.fromOpaque(context).takeUnretainedValue()
        guard let count = box.stream.read(into: UnsafeMutableRawBufferPointer(start: buffer, count: max)) else {
            return -1
        }
        return count
    }

    private static let finished: pd_http_reader_done = { context in
        guard let context else { return }
        let box = Unmanaged<StreamBox>.fromOpaque(context).takeRetainedValue()
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
