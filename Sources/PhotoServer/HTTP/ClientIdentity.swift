import FoundationEssentials
import PhotodropSystem

/// Who sent a request, for the per-client limits and the log: the connection's address, or behind a trusted reverse
/// proxy the client that proxy saw — the rightmost address of the last `X-Forwarded-For` header, the one the proxy
/// itself appended (what comes before it the client wrote, and may be forged). `X-Forwarded-For` from any other peer
/// is ignored: a client that talks to the server directly cannot choose who it is counted as.
struct ClientIdentity: Sendable {
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
        let hop = last.trimmingWhitespace()
        guard let address = Self.address(hop) else { return peer }
        return address
    }

    /// An IP address in its canonical text (IPv4-mapped IPv6 as IPv4), or nil when `text` is not one.
    static func address(_ text: String) -> String? {
        if NetworkAddress.isIPv4(text) { return text }
        return NetworkAddress.canonicalIPv6(text).map(normalized)
    }

    /// `::ffff:127.0.0.1` (how an IPv6 socket sees an IPv4 client) as `127.0.0.1`.
    static func normalized(_ address: String) -> String {
        address.lowercased().hasPrefix("::ffff:") && address.contains(".") ? String(address.dropFirst(7)) : address.lowercased()
    }
}
