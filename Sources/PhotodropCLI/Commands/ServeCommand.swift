import Ingest
import PhotoServer
import PhotodropSystem

/// `photodrop serve`: the library over HTTP (``PhotoServer``) until SIGINT/SIGTERM; `--new-token` prints a token.
enum ServeCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        if context.command.flag("new-token") {
            context.print(AccessPolicy.newToken())
            return ExitStatus.success
        }
        let signals = UnixSignalSequence(trapping: .interrupt, .terminate)
        let notifier = ServiceNotifier.fromEnvironment()
        let access: LibraryAccess
        do { access = try LibraryAccess.open(context.config) } catch {
            context.console.error("photodrop serve: \(error.description)\n")
            return ExitStatus.failure
        }
        let logger = Logger(label: "photodrop.serve", settings: context.config.log)
        let server: PhotoServer
        do {
            server = try PhotoServer(config: context.config, library: access.library) { message in
                logger.warning("libmicrohttpd: \(message)")
            }
        } catch {
            context.console.error("photodrop serve: \(error.description)\n")
            return ExitStatus.usage
        }
        do { try server.start() } catch {
            context.console.error("photodrop serve: \(error.description) (serve.listen in the configuration)\n")
            return ExitStatus.failure
        }
        context.print("photodrop serve: listening on \(server.settings.host) port \(server.port)")
        context.print("Open \(server.signInURL) once in a browser to sign in; API clients send 'Authorization: Bearer TOKEN'.")
        notifier?.send(["READY=1", "STATUS=listening on \(server.settings.host) port \(server.port)"])
        let watchdog = notifier.map { ServeWatchdog(notifier: $0, library: access.library) }
        watchdog?.start()
        for await _ in signals { break }
        notifier?.send(["STOPPING=1", "STATUS=stopping"])
        watchdog?.stop()
        server.stop()
        return ExitStatus.success
    }
}

