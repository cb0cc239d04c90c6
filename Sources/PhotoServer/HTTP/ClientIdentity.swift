import Foundation

/// Who sent a request, for the per-client limits and the log: the connection's address, or behind a trusted reverse
/// proxy the client that proxy saw — the rightmost address of the last `X-Forwarded-For` header, the one the proxy
/// itself appended (what comes before it the client wrote, and may be forged). `X-Forwarded-For` from any other peer
/// is ignored: a client that talks to the server directly cannot choose who it is counted as.
public struct ClientIdentity: Sendable {
    /// Addresses of the proxies whose `X-Forwarded-For` is believed (config `serve.trustedProxies`); empty: none.
    public let trustedProxies: Set<String>

    public init(trustedProxies: [String]) {
        self.trustedProxies = Set(trustedProxies.map(Self.normalized))
    }

    /// The client of a request from `peer` carrying `forwardedFor` (the last `X-Forwarded-For` header), which is
    /// not looked up at all when no proxy is trusted (every request asks).
    public func client(peer: String, forwardedFor: @autoclosure () -> String?) -> String {
        guard !trustedProxies.isEmpty, trustedProxies.contains(Self.normalized(peer)), let forwardedFor = forwardedFor(),
            let last = forwardedFor.split(separator: ",").last
        else { return peer }
        let hop = last.trimmingCharacters(in: .whitespaces)
        guard let address = Self.address(hop) else { return peer }
        return address
    }

    /// An IP address in its canonical text (IPv4-mapped IPv6 as IPv4), or nil when `text` is not one.
    static func address(_ text: String) -> String? {
        var v4 = in_addr()
        if inet_pton(AF_INET, text, &v4) == 1 { return text }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, text, &v6) == 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &v6, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return normalized(String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }

    /// `::ffff:127.0.0.1` (how an IPv6 socket sees an IPv4 client) as `127.0.0.1`.
    static func normalized(_ address: String) -> String {
        address.lowercased().hasPrefix("::ffff:") && address.contains(".") ? String(address.dropFirst(7)) : address.lowercased()
    }
}
