import CMicroHTTPD

/// One request as the handler sees it: method, path (percent-decoded by libmicrohttpd), headers and query
/// arguments looked up on demand, and the body when it was small enough to be collected.
struct HTTPRequest: @unchecked Sendable {
    // @unchecked: `connection` is used by the thread that reads the connection, or by the one worker that makes the
    // answer while the connection is suspended (libmicrohttpd leaves a suspended connection alone).
    let connection: UnsafeMutableRawPointer
    public let method: String
    public let path: String
    public let body: [UInt8]
    /// Who the request is counted for: the peer, or behind a trusted proxy the client it forwarded (``ClientIdentity``).
    public var client: String { forwardedClient ?? peerAddress }
    var forwardedClient: String?

    init(connection: UnsafeMutableRawPointer, method: String, path: String, body: [UInt8], client: String? = nil) {
        self.connection = connection
        self.method = method
        self.path = path
        self.body = body
        self.forwardedClient = client
    }

    /// A request header's value (names are case-insensitive); the first of several of one name.
    public func header(_ name: String) -> String? {
        pd_http_header(connection, name).map { String(cString: $0) }
    }

    /// The last header of this name (a proxy appends its own after the client's).
    func lastHeader(_ name: String) -> String? {
        pd_http_last_header(connection, name).map { String(cString: $0) }
    }

    /// A query argument's value, percent-decoded; "" for an argument without a value.
    public func argument(_ name: String) -> String? {
        pd_http_argument(connection, name).map { String(cString: $0) }
    }

    /// The IP address of the peer (a proxy's, behind one).
    var peerAddress: String { Self.peerAddress(of: connection) }

    static func peerAddress(of connection: UnsafeMutableRawPointer) -> String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard pd_http_client_address(connection, &buffer, buffer.count) == 0 else { return "?" }
        return ClientIdentity.normalized(
            String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// The value of cookie `name`.
    public func cookie(_ name: String) -> String? {
        guard let header = header("Cookie") else { return nil }
        for part in header.split(separator: ";") {
            let pair = part.trimmingCharacters(in: " ")
            if pair.hasPrefix(name + "=") { return String(pair.dropFirst(name.count + 1)) }
        }
        return nil
    }
}

extension Substring {
    func trimmingCharacters(in set: Character) -> Substring {
        var text = self
        while text.first == set { text.removeFirst() }
        while text.last == set { text.removeLast() }
        return text
    }
}
