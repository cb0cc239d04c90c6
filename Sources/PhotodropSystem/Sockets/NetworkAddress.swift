import Glibc

/// Numeric internet addresses.
public enum NetworkAddress {
    /// Whether `text` is an IPv4 address in dotted form (`inet_pton(AF_INET)`).
    public static func isIPv4(_ text: String) -> Bool {
        var address = in_addr()
        return inet_pton(AF_INET, text, &address) == 1
    }

    /// Whether `text` is an IPv6 address (`inet_pton(AF_INET6)`).
    public static func isIPv6(_ text: String) -> Bool {
        var address = in6_addr()
        return inet_pton(AF_INET6, text, &address) == 1
    }

    /// An IPv6 address in its canonical text (`inet_ntop`: lowercase, zeros compressed); nil when `text` is not one.
    public static func canonicalIPv6(_ text: String) -> String? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
        var buffer = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &address, &buffer, socklen_t(buffer.count)) != nil else { return nil }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
