import FoundationEssentials
import LibraryJSON
import PhotoCatalog
import PhotoImageManager
import PhotodropSystem
import Rendering
import PhotodropConfiguration
import Uploads

/// `photodrop serve`: the library over HTTP (the API, media, live events) for the settings of config `serve`.
/// Refuses to start without a token, and on an address other than loopback without TLS or a TLS proxy in front.
public final class PhotoServer: Sendable {
    public let settings: ServeSettings
    public let token: String
    private let http: HTTPServer
    private let feed: ChangeFeed
    private let pool: RenderPool
    private let uploads: UploadSettings
    private let api: LibraryAPI
    private let log: @Sendable (String) -> Void
    private let limitedLog: RateLimitedLog

    /// Why the server must not start (exit status 2): a missing token, an exposed address without TLS.
    public struct Refusal: Error, CustomStringConvertible {
        public let description: String
    }

    /// Checks the settings and prepares the server over `library`; nothing listens until ``start()``. `status` makes
    /// the body of `/api/status` (the daemon's and the folders' state, which the command line gathers).
    public init(
        config: IngestConfig, library: PhotoLibrary, status: @escaping @Sendable () -> JSONNode,
        log write: @escaping @Sendable (String) -> Void
    ) throws(Refusal) {
        let settings = config.serve
        self.settings = settings
        let limited = RateLimitedLog(write: write)
        self.limitedLog = limited
        let log: @Sendable (String) -> Void = { limited($0) }
        self.log = log
        token = try Self.token(settings)
        if !settings.isLoopback && !settings.usesTLS && !settings.behindProxy {
            throw Refusal(
                description:
                    "serve.listen is \(settings.authority), which other machines can reach, and there is no TLS: the "
                    + "token and your photos would cross the network in clear text. Set serve.tls.certificate and "
                    + "serve.tls.key (PEM files), or serve.behindProxy: true when a TLS reverse proxy is in front, or "
                    + "listen on 127.0.0.1.")
        }
        let policy = AccessPolicy(
            token: token, host: settings.host,
            // Under TLS (serve's own, or a proxy's in front of it, which is usually on this machine and reaches serve on
            // loopback) the certificate names the host: a rebound name fails in the browser. Without TLS, on an address
            // of its own, only the names of that address are answered.
            acceptsAnyHost: settings.usesTLS || settings.behindProxy,
            secureCookies: settings.usesTLS || settings.behindProxy)
        pool = RenderPool(size: 1)
        let uploads = UploadSettings(
            inbox: FolderRoot(path: config.inbox), rejected: config.rejected, ignore: IgnoreRules(patterns: config.ignore),
            maximumBytes: settings.maxUploadBytes)
        self.uploads = uploads
        feed = ChangeFeed(library: library)
        let api = LibraryAPI(
            library: library,
            images: CachingImageManager(
                library: library, pool: pool, memoryLimit: settings.pictureCacheMiB << 20,
                largestPicture: PictureCache.largestKeptPicture),
            maker: DerivativeMaker(library: library, pool: pool), policy: policy, events: feed,
            uploads: uploads, watchMetricsFile: config.metrics.textfile, log: log, status: status)
        self.api = api
        let http = HTTPServer(
            screen: { api.screen($0) }, bodyRouter: { api.bodyHandling($0) }, quick: { api.quick($0) },
            handler: { api.handle($0) }, finishing: { api.secured($0) }, log: log)
        self.http = http
        // Every change seen wakes the event streams waiting for one.
        feed.onChange { [weak http] in http?.wakeStreams() }
        api.connections = { [weak http] in http.map { ($0.connectionCounts, $0.connectionLimit, $0.waitingJobs) } }
    }

    /// Starts listening; the port is known afterwards (``port``).
    public func start() throws(HTTPServerError) {
        var options = HTTPServer.Options(host: settings.host, port: settings.port)
        if settings.behindProxy { options.trustedProxies = settings.trustedProxies }
        if settings.usesTLS, let certificate = settings.certificateFile, let key = settings.keyFile {
            guard let certificatePEM = try? String(contentsOfFile: certificate, encoding: .utf8),
                let keyPEM = try? String(contentsOfFile: key, encoding: .utf8)
            else {
                throw HTTPServerError(
                    description: "cannot read serve.tls.certificate (\(certificate)) or serve.tls.key (\(key))")
            }
            options.certificatePEM = certificatePEM
            options.keyPEM = keyPEM
        }
        // Uploads a crash or a kill cut short leave hidden files in the inbox's upload folder: never taken, so removed.
        let removed = InboxUpload.removeAbandoned(in: uploads.inbox)
        if removed > 0 { log("removed \(removed) unfinished uploads left by an earlier serve") }
        api.warmUp()
        try http.start(options)
    }

    /// The port it listens on.
    public var port: Int { http.port }

    /// The address a browser opens once to sign in.
    public var signInURL: String {
        var host = settings.host.contains(":") ? "[\(settings.host)]" : settings.host
        if settings.host == "0.0.0.0" || settings.host == "::" {
            // Every address of this machine: its name is what another machine types.
            host = SystemProcess.hostName
        }
        return "\(settings.usesTLS ? "https" : "http")://\(host):\(port)/?token=\(token)"
    }

    /// Stops listening, ends the event streams and the render helper.
    public func stop() {
        feed.stop()
        http.stop()
        pool.stop()
        limitedLog.stop()
    }

    /// The token from `serve.token` or the first line of `serve.tokenFile`.
    static func token(_ settings: ServeSettings) throws(Refusal) -> String {
        if let token = settings.token { return token }
        guard let file = settings.tokenFile else {
            throw Refusal(
                description:
                    "serve needs a token: every request must carry it, on loopback too (any local user and any web "
                    + "page can reach loopback). Run 'photodrop serve --new-token' and put the result in serve.token, "
                    + "or in a file named by serve.tokenFile.")
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
            throw Refusal(description: "cannot read serve.tokenFile (\(file)); is it there, and readable by this user?")
        }
        let token = text.split(whereSeparator: \.isNewline).first.map { String($0).trimmingWhitespace() } ?? ""
        guard ServeSettings.isAcceptableToken(token) else {
            throw Refusal(
                description:
                    "serve.tokenFile (\(file)) must hold a token of at least \(ServeSettings.minimumTokenLength) "
                    + "printable characters on its first line; 'photodrop serve --new-token' prints one")
        }
        return token
    }
}
