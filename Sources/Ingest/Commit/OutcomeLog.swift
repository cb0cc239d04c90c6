import PhotodropTelemetry
/// The daemon's and the importer's log line for a file outcome: one line per file, with what a person (or a log
/// pipeline reading JSON) needs: path, outcome, reason, album, asset id, duration.
enum OutcomeLog {
    /// Writes `outcome` to `logger`: `info` for stored files and duplicates, `warning` for rejected and failed ones.
    public static func write(_ outcome: FileOutcome, to logger: Logger) {
        let level: LogLevel = outcome.kind.isStored ? .info : .warning
        guard logger.isEnabled(level) else { return }
        let message: String
        switch outcome.kind {
        case .photo, .gif, .video: message = "stored"
        case .duplicate: message = "duplicate"
        case .attached: message = "attached"
        case .rejected: message = "rejected"
        case .failed: message = "failed"
        }
        let milliseconds = (outcome.elapsedMilliseconds * 10).rounded() / 10
        logger.log(
            level: level, message,
            metadata: [
                "path": .string(outcome.path), "outcome": .string(outcome.kind.rawValue),
                "reason": .string(outcome.reason ?? ""), "album": .string(outcome.album ?? ""),
                "asset": .string(outcome.assetID ?? ""), "ms": .double(milliseconds),
                "mime": .string(outcome.mime ?? ""), "bytes": .count(outcome.bytes),
                "detail": .string(outcome.message),
                "rejected_to": .string(outcome.rejectedPath ?? ""),
            ])
    }
}
