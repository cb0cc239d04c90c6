import Foundation
import PhotodropSystem

/// Who may do what: every request but the login carries the token (an `Authorization: Bearer` header, or the
/// session cookie the login sets); the `Host` header must be a name this server answers to (DNS rebinding); a
/// mutation sent by a browser (cookie) must come from this server's own pages (`Origin`, CSRF).
public struct AccessPolicy: Sendable {
    /// The session cookie's name.
    public static let cookieName = "photodrop_session"

    private let token: [UInt8]
    /// The cookie's value: derived from the token (SHA-256), so the token itself never sits in a cookie, and a new
    /// token ends every session.
    public let sessionValue: String
    /// `Host` values accepted (lowercased); nil accepts any (a TLS name or a proxy's public name).
    private let hosts: Set<String>?
    /// Cookies get `Secure` (HTTPS, or a TLS proxy in front).
    public let secureCookies: Bool

    public init(token: String, host: String, acceptsAnyHost: Bool, secureCookies: Bool) {
        self.token = Array(token.utf8)
        self.sessionValue = Self.digest("photodrop session\u{0}" + token)
        self.secureCookies = secureCookies
        if acceptsAnyHost {
            hosts = nil
        } else {
            // Names only: the port is whatever the server bound (any, in tests); DNS rebinding needs a foreign name.
            hosts = ["localhost", "127.0.0.1", "[::1]", host.contains(":") ? "[\(host.lowercased())]" : host.lowercased()]
        }
    }

    private static func digest(_ text: String) -> String {
        do {
            var hasher = try SHA256()
            try Array(text.utf8).withUnsafeBytes { try hasher.update($0) }
            return try hasher.finalize().description
        } catch {
            // libcrypto's SHA-256 cannot fail on memory it was given; a session then never matches.
            return "unavailable"
        }
    }

    public enum Decision: Equatable, Sendable {
        case allowed(byCookie: Bool)
        case refused(status: Int, message: String)
    }

    /// Whether the `Host` header names this server.
    public func acceptsHost(_ host: String?) -> Bool {
        guard let hosts else { return true }
        guard let host else { return false }
        return hosts.contains(Self.name(ofHost: host.lowercased()))
    }

    /// The name part of a `Host` header: `[::1]` of `[::1]:8377`, `localhost` of `localhost:8377`.
    static func name(ofHost host: String) -> String {
        if host.hasPrefix("["), let close = host.firstIndex(of: "]") { return String(host[...close]) }
        if let colon = host.lastIndex(of: ":"), host[host.index(after: colon)...].allSatisfy(\.isNumber) {
            return String(host[..<colon])
        }
        return host
    }

    /// Whether `candidate` is the token (compared in constant time).
    public func isToken(_ candidate: String) -> Bool { Self.same(Array(candidate.utf8), token) }

    /// Whether a session cookie's value is the current one (constant time).
    public func isSession(_ candidate: String) -> Bool { Self.same(Array(candidate.utf8), Array(sessionValue.utf8)) }

    /// Equal bytes, compared in a time that does not depend on where they differ.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// The decision for a request from its method and headers.
    public func decide(
        method: String, host: String?, origin: String?, authorization: String?, cookie: String?
    ) -> Decision {
        guard acceptsHost(host) else {
            return .refused(status: 421, message: "this server does not answer to the host name '\(host ?? "")'")
        }
        var byCookie = false
        if let authorization, authorization.hasPrefix("Bearer ") {
            guard isToken(String(authorization.dropFirst(7))) else {
                return .refused(status: 401, message: "the bearer token is not this server's token")
            }
        } else if let cookie, isSession(cookie) {
            byCookie = true
        } else {
            return .refused(
                status: 401,
                message: "sign in first: open /?token=TOKEN once in the browser, or send 'Authorization: Bearer TOKEN'")
        }
        let mutates = !["GET", "HEAD", "OPTIONS"].contains(method)
        if mutates {
            // A browser sends Origin with every cross-site request that changes something; a request carrying the
            // cookie must come from this server's own pages.
            if let origin {
                guard let host, origin.lowercased().hasSuffix("://" + host.lowercased()) else {
                    return .refused(status: 403, message: "a change from another site (Origin \(origin)) is refused")
                }
            } else if byCookie {
                return .refused(status: 403, message: "a change made with the session cookie must carry an Origin header")
            }
        }
        return .allowed(byCookie: byCookie)
    }

    /// The `Set-Cookie` value that starts a browser session.
    public var sessionCookie: String {
        "\(Self.cookieName)=\(sessionValue); Path=/; HttpOnly; SameSite=Strict" + (secureCookies ? "; Secure" : "")
    }

    /// A new random token: 32 bytes from the system's generator, as 43 URL-safe base64 characters.
    public static func newToken() -> String {
        // Swift's system generator reads getrandom(2): the kernel's cryptographic source.
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
    }
}
