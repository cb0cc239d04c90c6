import LibraryJSON
import Ingest
import PhotoServer
import PhotodropSystem
import Rendering
import PhotodropTelemetry
import PhotodropConfiguration

/// `photodrop serve`: the library over HTTP (``PhotoServer``) until SIGINT/SIGTERM; SIGHUP reloads config.json;
/// `--new-token` prints a token.
enum ServeCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        if context.command.flag("new-token") {
            context.print(AccessPolicy.newToken())
            return ExitStatus.success
        }
        let signals = UnixSignalSequence(trapping: .interrupt, .terminate, .hangup)
        let notifier = ServiceNotifier.fromEnvironment()
        let access: LibraryAccess
        do { access = try LibraryAccess.open(context.config) } catch {
            context.console.error("photodrop serve: \(error.description)\n")
            return ExitStatus.failure
        }
        let logs = LogControl(context.config.log)
        let logger = Logger(label: "photodrop.serve", control: logs)
        func makeServer(_ config: IngestConfig) throws(PhotoServer.Refusal) -> PhotoServer {
            try PhotoServer(
                config: config, library: access.library, status: { CatalogJSON.status(StatusReport.gather(config)) }
            ) { message in
                logger.warning(message)
            }
        }
        var config = context.config
        var server: PhotoServer
        do { server = try makeServer(config) } catch {
            context.console.error("photodrop serve: \(error.description)\n")
            return ExitStatus.usage
        }
        do { try server.start() } catch {
            context.console.error("photodrop serve: \(error.description) (serve.listen in the configuration)\n")
            return ExitStatus.failure
        }
        context.print("photodrop serve: listening on \(server.settings.host) port \(server.port)")
        context.print("Open \(server.signInURL) once in a browser to sign in; API clients send 'Authorization: Bearer TOKEN'.")
        let listening = "listening on \(server.settings.host) port \(server.port)"
        notifier?.send(["READY=1", "STATUS=" + listening])
        let watchdog = notifier.map { ServeWatchdog(notifier: $0, library: access.library) }
        watchdog?.start()
        for await signal in signals {
            guard signal == .hangup else { break }
            notifier?.send(["RELOADING=1", "STATUS=reloading config.json"])
            let outcome = reload(config, server: server, logs: logs, logger: logger, make: makeServer)
            config = outcome.config
            server = outcome.server
            notifier?.send(["READY=1", "STATUS=" + (outcome.refusal.map { "reload refused: \($0)" } ?? listening)])
        }
        notifier?.send(["STOPPING=1", "STATUS=stopping"])
        watchdog?.stop()
        server.stop()
        return ExitStatus.success
    }

    /// SIGHUP: config.json read again. Refused (the running server kept) when it is invalid, or changes a place or
    /// how serve listens (`serve.listen`, `serve.tls`, `serve.behindProxy`); otherwise the server is replaced by one
    /// with the new settings on the same address (the token read again, from `serve.tokenFile` too; upload limit;
    /// metrics file; log settings at once). Open event streams are cut; browsers reconnect by themselves.
    static func reload(
        _ old: IngestConfig, server: PhotoServer, logs: LogControl, logger: Logger,
        make: (IngestConfig) throws(PhotoServer.Refusal) -> PhotoServer
    ) -> (config: IngestConfig, server: PhotoServer, refusal: String?) {
        var new: IngestConfig
        do throws(ConfigError) {
            if let file = old.sourceFile {
                new = try IngestConfig.load(contentsOf: file)
            } else {
                new = try IngestConfig.load(explicitPath: nil)
            }
        } catch {
            logger.error(
                "reload refused: config.json is not valid; still serving with the previous config",
                metadata: ["problems": .string(error.description)])
            return (old, server, "config.json is not valid")
        }
        let fixed = ConfigReload.serveFixedChanges(from: old, to: new)
        guard fixed.isEmpty else {
            logger.error(
                "reload refused: config.json changes \(fixed.joined(separator: ", ")), which cannot change while serve "
                    + "runs; restart it ('systemctl restart photodrop-serve'). Still serving with the previous config")
            return (old, server, "\(fixed.joined(separator: ", ")) cannot change live")
        }
        // A port the system chose stays the one clients know.
        if new.serve.port == 0 { new.serve.port = server.port }
        let replacement: PhotoServer
        do { replacement = try make(new) } catch {
            logger.error(
                "reload refused: \(error.description); still serving with the previous config")
            return (old, server, error.description)
        }
        if new.log != logs.settings {
            logger.info(
                "log settings reloaded",
                metadata: ["level": .string(new.log.level.rawValue), "format": .string(new.log.format.rawValue)])
            logs.apply(new.log)
        }
        DecodeBudget.shared.setTotal(new.decodeMemoryBytes)
        server.stop()
        do {
            try replacement.start()
        } catch {
            logger.error(
                "cannot listen again after the reload: \(error.description); trying the previous config",
                metadata: [:])
            if let previous = try? make(old), (try? previous.start()) != nil { return (old, previous, error.description) }
            return (old, server, error.description)
        }
        logger.info("config.json reloaded: serving with the new settings")
        return (new, replacement, nil)
    }
}
