import FoundationEssentials
import PhotodropSystem

/// Who may do what: every request but the login carries the token (an `Authorization: Bearer` header, or the
/// session cookie the login sets); the `Host` header must be a name this server answers to (DNS rebinding); a
/// mutation sent by a browser (cookie) must come from this server's own pages (`Origin`, CSRF).
public struct AccessPolicy: Sendable {
    /// The session cookie's name.
    static let cookieName = "photodrop_session"

    private let token: [UInt8]
    /// The key that signs session cookies: derived from the token (SHA-256), so the token itself never sits in a
    /// cookie, and a new token ends every session.
    private let sessionKey: [UInt8]
    /// `Host` values accepted (lowercased); nil accepts any (a TLS name or a proxy's public name).
    private let hosts: Set<String>?
    /// Cookies get `Secure` (HTTPS, or a TLS proxy in front).
    let secureCookies: Bool
    /// The scheme of this server's pages as a browser sees them (`Origin`): https under TLS or behind the TLS proxy.
    public let scheme: String
    /// A session ends after this long without a request, and this long after its sign-in at most.
    static let sessionIdle: TimeInterval = 7 * 86_400
    static let sessionLifetime: TimeInterval = 30 * 86_400
    /// A session's cookie is sent again (with the time of use renewed) once it is this old.
    static let sessionRenewal: TimeInterval = 3_600

    public init(token: String, host: String, acceptsAnyHost: Bool, secureCookies: Bool) {
        self.token = Array(token.utf8)
        self.sessionKey = Self.digest(Array(("photodrop session\u{0}" + token).utf8))
        self.secureCookies = secureCookies
        self.scheme = secureCookies ? "https" : "http"
        if acceptsAnyHost {
            hosts = nil
        } else {
            // Names only: the port is whatever the server bound (any, in tests); DNS rebinding needs a foreign name.
            hosts = ["localhost", "127.0.0.1", "[::1]", host.contains(":") ? "[\(host.lowercased())]" : host.lowercased()]
        }
    }

    private static func digest(_ bytes: [UInt8]) -> [UInt8] {
        // libcrypto's SHA-256 cannot fail on memory it was given; an empty key then matches no cookie (see isSession).
        (try? SHA256.digest(of: bytes).bytes) ?? []
    }

    /// HMAC-SHA256 (RFC 2104) of `message` under the session key.
    private func signature(_ message: String) -> [UInt8] {
        var key = sessionKey + [UInt8](repeating: 0, count: 64 - sessionKey.count)
        let inner = Self.digest(key.map { $0 ^ 0x36 } + Array(message.utf8))
        key = key.map { $0 ^ 0x5C }
        return Self.digest(key + inner)
    }

    public enum Decision: Equatable, Sendable {
        /// Allowed; `byCookie` when by the session cookie (its renewal is ``renewedCookie(_:authorization:now:)``).
        case allowed(byCookie: Bool)
        case refused(status: Int, message: String)
    }

    /// What a session cookie says, once its signature is checked.
    enum Session: Equatable {
        case valid(signedIn: Date, lastUsed: Date)
        case expired(String)
        case forged
    }

    /// Whether the `Host` header names this server.
    func acceptsHost(_ host: String?) -> Bool {
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
    func isToken(_ candidate: String) -> Bool { Self.same(Array(candidate.utf8), token) }

    /// A session cookie's value: `v1.SIGNED-IN.LAST-USED.SIGNATURE` (Unix seconds, HMAC-SHA256 in hex).
    func sessionValue(signedIn: Date, lastUsed: Date) -> String {
        let message = "v1.\(Int64(signedIn.timeIntervalSince1970)).\(Int64(lastUsed.timeIntervalSince1970))"
        return message + "." + signature(message).map { String($0, radix: 16).leftPadded(2) }.joined()
    }

    /// The session `candidate` holds at `now`: signed with this token's key, within its idle time and lifetime.
    func session(_ candidate: String, now: Date = Date()) -> Session {
        let parts = candidate.split(separator: ".", omittingEmptySubsequences: false)
        guard !sessionKey.isEmpty, parts.count == 4, parts[0] == "v1", let signedIn = Int64(parts[1]),
            let lastUsed = Int64(parts[2]), parts[3].utf8.count == 64
        else { return .forged }
        let expected = signature("v1.\(signedIn).\(lastUsed)").map { String($0, radix: 16).leftPadded(2) }.joined()
        guard Self.same(Array(parts[3].utf8), Array(expected.utf8)) else { return .forged }
        let now = now.timeIntervalSince1970
        if now - Double(signedIn) > Self.sessionLifetime {
            return .expired("the session began more than 30 days ago: sign in again with /?token=TOKEN")
        }
        if now - Double(lastUsed) > Self.sessionIdle {
            return .expired("the session was unused for more than 7 days: sign in again with /?token=TOKEN")
        }
        return .valid(
            signedIn: Date(timeIntervalSince1970: Double(signedIn)), lastUsed: Date(timeIntervalSince1970: Double(lastUsed)))
    }

    /// Equal bytes, compared in a time that does not depend on where they differ.
    private static func same(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for index in 0..<a.count { difference |= a[index] ^ b[index] }
        return difference == 0
    }

    /// The decision for a request from its method and headers.
    public func decide(
        method: String, host: String?, origin: String?, authorization: String?, cookie: String?, now: Date = Date()
    ) -> Decision {
        guard acceptsHost(host) else {
            return .refused(status: 421, message: "this server does not answer to the host name '\(host ?? "")'")
        }
        var byCookie = false
        if let authorization, authorization.hasPrefix("Bearer ") {
            guard isToken(String(authorization.dropFirst(7))) else {
                return .refused(status: 401, message: "the bearer token is not this server's token")
            }
        } else if let cookie {
            switch session(cookie, now: now) {
            case .valid:
                byCookie = true
            case .expired(let why): return .refused(status: 401, message: why)
            case .forged:
                return .refused(
                    status: 401,
                    message: "the session is not one of this server's (or its token changed): sign in with /?token=TOKEN")
            }
        } else {
            return .refused(
                status: 401,
                message: "sign in first: open /?token=TOKEN once in the browser, or send 'Authorization: Bearer TOKEN'")
        }
        let mutates = !["GET", "HEAD", "OPTIONS"].contains(method)
        if mutates {
            // A browser sends Origin with every cross-site request that changes something; a request carrying the
            // cookie must come from this server's own pages: the same scheme, host and port.
            if let origin {
                guard sameOrigin(origin, host: host) else {
                    return .refused(status: 403, message: "a change from another site (Origin \(origin)) is refused")
                }
            } else if byCookie {
                return .refused(status: 403, message: "a change made with the session cookie must carry an Origin header")
            }
        }
        return .allowed(byCookie: byCookie)
    }

    /// The `Set-Cookie` value that renews a valid session cookie's time of use, once it is older than
    /// ``sessionRenewal`` (nil otherwise, or for a request with a bearer token).
    func renewedCookie(_ cookie: String?, authorization: String?, now: Date = Date()) -> String? {
        guard authorization == nil, let cookie, case .valid(let signedIn, let lastUsed) = session(cookie, now: now),
            now.timeIntervalSince(lastUsed) > Self.sessionRenewal
        else { return nil }
        return sessionCookie(signedIn: signedIn, now: now)
    }

    /// Whether `origin` (`scheme://host[:port]`) is this server as the request's `Host` names it: the scheme is this
    /// server's, the host the same name, and the port the same (a missing one is the scheme's default).
    func sameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host else { return false }
        let lowered = origin.lowercased()
        guard lowered.hasPrefix(scheme + "://") else { return false }
        let defaultPort = scheme == "https" ? "443" : "80"
        func split(_ authority: Substring) -> (name: String, port: String)? {
            guard !authority.isEmpty, !authority.contains("/"), !authority.contains("@") else { return nil }
            let name = Self.name(ofHost: String(authority))
            let rest = authority.dropFirst(name.count)
            if rest.isEmpty { return (name, defaultPort) }
            guard rest.first == ":", rest.count > 1, rest.dropFirst().allSatisfy(\.isNumber) else { return nil }
            return (name, String(Int(rest.dropFirst()) ?? -1))
        }
        guard let theirs = split(lowered.dropFirst(scheme.count + 3)), let ours = split(host.lowercased()[...]) else {
            return false
        }
        return theirs == ours
    }

    /// The `Set-Cookie` value that starts a browser session (or renews its time of use): valid for the session's
    /// lifetime in the browser; the server ends it sooner when unused (``sessionIdle``).
    func sessionCookie(signedIn: Date? = nil, now: Date = Date()) -> String {
        // Whole seconds, as the cookie stores them: a fresh sign-in gets the whole lifetime.
        let start = (signedIn ?? now).timeIntervalSince1970.rounded(.down)
        let remaining = max(0, Int(Self.sessionLifetime) - Int(now.timeIntervalSince1970.rounded(.down) - start))
        return "\(Self.cookieName)=\(sessionValue(signedIn: signedIn ?? now, lastUsed: now)); Path=/; Max-Age=\(remaining); "
            + "HttpOnly; SameSite=Strict" + (secureCookies ? "; Secure" : "")
    }

    /// A new random token: 32 bytes from the system's generator, as 43 URL-safe base64 characters.
    public static func newToken() -> String {
        // Swift's system generator reads getrandom(2): the kernel's cryptographic source.
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return Data(bytes).base64EncodedString().replacing("+", with: "-")
            .replacing("/", with: "_").replacing("=", with: "")
    }
}

extension String {
    /// The string with `"0"` in front up to `width` characters.
    func leftPadded(_ width: Int) -> String { count >= width ? self : String(repeating: "0", count: width - count) + self }
}
