import CMicroHTTPD

/// One request as the handler sees it: method, path (percent-decoded by libmicrohttpd), headers and query
/// arguments looked up on demand, and the body when it was small enough to be collected.
public struct HTTPRequest: @unchecked Sendable {
    // @unchecked: `connection` is only used on the connection's own thread, during the handler's call.
    let connection: UnsafeMutableRawPointer
    public let method: String
    public let path: String
    public let body: [UInt8]

    /// A request header's value (names are case-insensitive).
    public func header(_ name: String) -> String? {
        pd_http_header(connection, name).map { String(cString: $0) }
    }

    /// A query argument's value, percent-decoded; "" for an argument without a value.
    public func argument(_ name: String) -> String? {
        pd_http_argument(connection, name).map { String(cString: $0) }
    }

    /// The client's IP address.
    public var clientAddress: String {
        var buffer = [CChar](repeating: 0, count: 64)
        guard pd_http_client_address(connection, &buffer, buffer.count) == 0 else { return "?" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
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
