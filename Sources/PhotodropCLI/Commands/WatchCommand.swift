import Ingest

/// `photodrop watch`: runs the daemon (``Ingest/WatchService``) until SIGINT/SIGTERM.
enum WatchCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        // Trap the signals before anything else: a SIGTERM during start-up then stops the daemon cleanly too.
        let signals = UnixSignalSequence(trapping: .interrupt, .terminate)
        let service = WatchService(config: context.config, logger: Logger(label: "photodrop.watch", settings: context.config.log))
        let stopping = Task {
            for await signal in signals { service.requestStop(cause: "\(signal)") }
        }
        defer { stopping.cancel() }
        do {
            try await service.run()
            return ExitStatus.success
        } catch {
            context.console.error("photodrop watch: \(error.description)\n")
            return ExitStatus.failure
        }
    }
}
