import Ingest

/// `photodrop watch`: runs the daemon (``Ingest/WatchService``) until SIGINT/SIGTERM.
enum WatchCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        let logger = Logger(settings: context.config.log)
        do {
            try await WatchService(config: context.config, logger: logger).run()
            return ExitStatus.success
        } catch {
            context.console.error("photodrop watch: \(error.description)\n")
            return ExitStatus.failure
        }
    }
}
