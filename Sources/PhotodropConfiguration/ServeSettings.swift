import FoundationEssentials
import PhotodropSystem

/// How `photodrop serve` listens and whom it answers (config `serve`).
public struct ServeSettings: Sendable, Equatable {
    /// The address to listen on: an IPv4 or IPv6 literal. Default `127.0.0.1`.
    public var host: String
    /// The port; 0 takes any free one (tests). Default 8377.
    public var port: Int
    /// The secret every request but the login must carry (`serve.token`), at least 16 characters.
    public var token: String?
    /// A file holding the token on its first line (`serve.tokenFile`), so that the secret can live outside a
    /// read-only `/etc`; resolved against the config file's folder.
    public var tokenFile: String?
    /// PEM files of the certificate chain and its key (`serve.tls.certificate`, `serve.tls.key`): HTTPS.
    public var certificateFile: String?
    public var keyFile: String?
    /// A TLS reverse proxy is in front (`serve.behindProxy`): a non-loopback address without TLS of its own is
    /// allowed, and cookies are marked `Secure`.
    public var behindProxy: Bool
    /// With ``behindProxy``: the addresses of the proxies whose `X-Forwarded-For` names the client, for the limits per
    /// client and the log (`serve.trustedProxies`). Default loopback (a proxy on the same machine).
    public var trustedProxies: [String]
    /// The largest upload body accepted (`serve.maxUploadBytes`). Default 4 GiB.
    public var maxUploadBytes: Int64
    /// Memory for small pictures kept whole, ready to send (`serve.pictureCacheMiB`). Default 64; 0 sends every
    /// picture from its file.
    public var pictureCacheMiB: Int

    public static let defaultPort = 8377
    /// The shortest token accepted: a guessable secret is no secret.
    public static let minimumTokenLength = 16

    public init() {
        host = "127.0.0.1"
        port = Self.defaultPort
        token = nil
        tokenFile = nil
        certificateFile = nil
        keyFile = nil
        behindProxy = false
        trustedProxies = ["127.0.0.1", "::1"]
        maxUploadBytes = 4 << 30
        pictureCacheMiB = 64
    }

    /// Whether `token` can be the server's token: at least ``minimumTokenLength`` printable ASCII characters, no
    /// spaces (it travels in a header and a URL).
    public static func isAcceptableToken(_ token: String) -> Bool {
        token.utf8.count >= minimumTokenLength && token.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// Whether `text` is an IPv4 or IPv6 address.
    public static func isIPAddress(_ text: String) -> Bool {
        NetworkAddress.isIPv4(text) || NetworkAddress.isIPv6(text)
    }

    /// Whether ``host`` is a loopback address (127.0.0.0/8, ::1), reachable from this machine only.
    public var isLoopback: Bool { host.hasPrefix("127.") || host == "::1" }

    /// Whether the server speaks TLS itself.
    public var usesTLS: Bool { certificateFile != nil && keyFile != nil }

    /// `HOST:PORT` as a URL's authority (`[::1]:8377` for IPv6).
    public var authority: String { (host.contains(":") ? "[\(host)]" : host) + ":\(port)" }

    /// Parses `HOST:PORT`, `[IPv6]:PORT`; the host must be an IP literal (or `localhost`, read as 127.0.0.1).
    public static func parseListen(_ text: String) -> (host: String, port: Int)? {
        var host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return nil
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else { return nil }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        if host == "localhost" { host = "127.0.0.1" }
        guard let port = Int(portText), (0...65_535).contains(port), !host.isEmpty else { return nil }
        let literal = String(host)
        guard isIPAddress(literal) else { return nil }
        return (literal, port)
    }
}
