import LibraryJSON

/// What a handler answers: a status, headers and a body of bytes, of a file's range, or of a stream.
struct HTTPResponse: Sendable {
    enum Body: Sendable {
        case bytes([UInt8])
        /// `length` bytes of the open file from `offset`; the server closes the descriptor.
        case file(descriptor: Int32, offset: UInt64, length: UInt64)
        /// A body of unknown length, produced as it goes (server-sent events).
        case stream(any HTTPStream)
        /// A whole answer made earlier (status and headers included: those of this response are not sent).
        case kept(KeptResponse)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body

    public init(status: Int, headers: [(String, String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A text answer.
    public static func text(_ status: Int, _ text: String, type: String = "text/plain; charset=utf-8") -> HTTPResponse {
        HTTPResponse(status: status, headers: [("Content-Type", type)], body: .bytes(Array(text.utf8)))
    }

    /// An error as JSON: `{"error": message}`.
    public static func error(_ status: Int, _ message: String) -> HTTPResponse {
        json(status, .object([("error", .string(message))]))
    }

    /// A JSON answer.
    public static func json(_ status: Int, _ value: JSONNode, headers: [(String, String)] = []) -> HTTPResponse {
        HTTPResponse(
            status: status, headers: [("Content-Type", "application/json")] + headers,
            body: .bytes(Array(value.text.utf8)))
    }

    /// The headers as "Name: value" lines for libmicrohttpd. A header with a line break would split the answer: it is
    /// never sent (checked on the bytes; Foundation's String.contains cost more than the rest of a picture's answer).
    static func headerLines(_ headers: [(String, String)]) -> String {
        var text = ""
        for (name, value) in headers where !name.utf8.contains(10) && !value.utf8.contains(10) {
            text += "\(name): \(value)\n"
        }
        return text
    }

    /// The header's value, if set.
    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }
}

/// A streamed body (server-sent events), read by the server's threads whenever the client can take more: `read` never
/// blocks. With nothing to send it answers `.later`, and the connection is suspended (no thread waits for it) until
/// the server's streams are woken (``HTTPServer/wakeStreams()``, on every change of the library), until
/// ``keepAlive`` is due after a silence, or until the client goes. `finish` runs once when the connection is over.
protocol HTTPStream: AnyObject, Sendable {
    func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamStep
    /// Sent after ``HTTPServer/Options/keepAliveSeconds`` of silence (proxies close silent connections).
    var keepAlive: [UInt8] { get }
    func finish()
}

/// What a stream's ``HTTPStream/read(into:)`` did.
enum StreamStep: Sendable, Equatable {
    /// Filled this many bytes (at least one).
    case wrote(Int)
    /// Nothing to send now.
    case later
    /// The stream is over.
    case end
}
