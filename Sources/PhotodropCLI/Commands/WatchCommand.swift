import BuildInfo
import Ingest
import PhotodropSystem
import Rendering
import PhotodropTelemetry
import PhotodropConfiguration

/// `photodrop watch`: runs the daemon (``Ingest/WatchService``) until SIGINT/SIGTERM; SIGHUP reloads config.json.
enum WatchCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        // Trap the signals before anything else: a SIGTERM during start-up then stops the daemon cleanly too.
        let signals = UnixSignalSequence(trapping: .interrupt, .terminate, .hangup)
        let logs = LogControl(context.config.log)
        let logger = Logger(label: "photodrop.watch", control: logs)
        var options = WatchService.Options()
        options.notifier = ServiceNotifier.fromEnvironment()
        options.version = PhotodropVersion.description
        let service = WatchService(config: context.config, logger: logger, options: options)
        let metrics = context.config.metrics.textfile.map { _ in
            MetricsWriter(service: service, logger: logger)
        }
        let metricsTask = metrics.map { writer in Task { await writer.run() } }
        let stopping = Task {
            for await signal in signals {
                if signal == .hangup {
                    reload(service, logs: logs, context: context, logger: logger)
                } else {
                    service.requestStop(cause: "\(signal)")
                }
            }
        }
        defer {
            stopping.cancel()
            metricsTask?.cancel()
        }
        var status = ExitStatus.success
        do {
            try await service.run()
        } catch {
            context.console.error("photodrop watch: \(error.description)\n")
            status = error.isConfiguration ? ExitStatus.usage : ExitStatus.failure
        }
        if service.hasStarted {
            // A last write that says the daemon is down (never by a daemon that did not get the library's lock).
            metrics?.stop()
            await metricsTask?.value
        }
        return status
    }

    /// SIGHUP: config.json read again (the file it came from, else the same rule as at start); log settings apply at
    /// once, the rest through ``WatchService/requestReload(_:)``. An invalid file changes nothing.
    static func reload(_ service: WatchService, logs: LogControl, context: CommandContext, logger: Logger) {
        let new: IngestConfig
        do {
            if let file = service.config.sourceFile {
                new = try IngestConfig.load(contentsOf: file)
            } else {
                new = try IngestConfig.load(explicitPath: context.command.configPath)
            }
        } catch {
            logger.error(
                "reload refused: config.json is not valid; still running on the previous config",
                metadata: ["problems": .string(error.description)])
            service.refuseReload("config.json is not valid")
            return
        }
        if case .refused = service.requestReload(new) { return }
        DecodeBudget.shared.setTotal(new.decodeMemoryBytes)
        if new.log != logs.settings {
            // Said under the old settings, so that a higher level does not swallow the line.
            logger.info(
                "log settings reloaded",
                metadata: ["level": .string(new.log.level.rawValue), "format": .string(new.log.format.rawValue)])
            logs.apply(new.log)
        }
    }
}
