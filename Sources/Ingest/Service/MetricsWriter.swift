import FoundationEssentials
import PhotodropSystem
import PhotodropTelemetry
import PhotodropConcurrency

/// Writes `photodrop watch`'s metrics (``WatchMetrics``) to config `metrics.textfile` every
/// `metrics.intervalSeconds` (15 s), for node_exporter's textfile collector: into a temporary file beside it, then
/// renamed over it, so that the collector never reads half a file. Mode 0644: the collector runs as its own user.
/// The file is also written once more when the daemon stops (with `photodrop_up 0`, so an alert can tell a stopped
/// daemon from a stale file).
public final class MetricsWriter: Sendable {
    private let service: WatchService
    private let logger: Logger
    private let stopped = StopFlag()

    public init(service: WatchService, logger: Logger) {
        self.service = service
        self.logger = logger
    }

    /// Writes until ``stop()`` (a last time then).
    public func run() async {
        var failed = false
        while true {
            let settings = service.config.metrics
            guard let path = settings.textfile else { return }
            // Nothing before the daemon holds the library: a second daemon that finds the lock taken must not
            // overwrite the running one's file.
            guard service.hasStarted else {
                if stopped.isRaised || Task.isCancelled { return }
                try? await Task.sleep(for: .milliseconds(100))
                continue
            }
            let last = stopped.isRaised
            var metrics = service.metrics()
            metrics.running = !last
            do {
                try MetricsWriter.write(metrics.text, to: path)
                if failed {
                    logger.info("metrics file written again", metadata: ["path": .string(path)])
                    failed = false
                }
            } catch {
                if !failed {
                    logger.warning(
                        "cannot write the metrics file (config metrics.textfile); check that its folder exists and "
                            + "photodrop may write there",
                        metadata: ["path": .string(path), "error": .string(error.description)])
                }
                failed = true
            }
            if last { return }
            for _ in 0..<(settings.intervalSeconds * 10) where !stopped.isRaised {
                try? await Task.sleep(for: .milliseconds(100))
            }
            if Task.isCancelled && !stopped.isRaised { return }
        }
    }

    /// Ends ``run()`` after one last write.
    public func stop() { stopped.raise() }

    /// Replaces `path` with `text` atomically (a hidden temporary name in the same folder, then `rename`), mode 0644
    /// whatever the umask.
    public static func write(_ text: String, to path: String) throws(SystemError) {
        let folder = try Directory.open(atPath: Path.parent(of: path))
        try folder.replaceFile(named: Path.lastComponent(of: path), with: text, mode: 0o644, exactMode: true)
    }
}
