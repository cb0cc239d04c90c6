import PhotodropSystem

/// photodrop's logger, shaped like swift-log's (`Logger` with a label and a ``LogHandler``, levels, metadata), so
/// that moving to swift-log one day is a matter of imports: `Logger(label:)`, `logger.info("…", metadata: [...])`,
/// `logger[metadataKey:]`, `logLevel`. Differences: metadata is ordered (`KeyValuePairs`, so log lines keep their
/// fields in the order written) and its values are typed (``LogValue``: string, integer, number, Boolean).
///
/// Cheap by construction: a disabled level costs one comparison (message and metadata are autoclosures).
public struct Logger: Sendable {
    public typealias Level = LogLevel
    public typealias MetadataValue = LogValue
    /// The fields of one event, in order.
    public typealias Metadata = KeyValuePairs<String, LogValue>

    /// What the logger is for (`photodrop.watch`); handlers may write it.
    public let label: String
    /// Where events go.
    public var handler: any LogHandler

    /// A logger sending its events to `handler`.
    public init(label: String, handler: any LogHandler) {
        self.label = label
        self.handler = handler
    }

    /// Events below this level are dropped.
    public var logLevel: Level {
        get { handler.logLevel }
        set { handler.logLevel = newValue }
    }

    /// Metadata added to every event of this logger (a copy of the logger has its own).
    public subscript(metadataKey key: String) -> MetadataValue? {
        get { handler[metadataKey: key] }
        set { handler[metadataKey: key] = newValue }
    }

    /// Whether events of `level` are written.
    public func isEnabled(_ level: Level) -> Bool { level >= handler.logLevel }

    /// Sends one event to the handler if `level` is enabled.
    public func log(
        level: Level, _ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:],
        source: @autoclosure () -> String? = nil
    ) {
        guard isEnabled(level) else { return }
        handler.log(level: level, message: message(), metadata: metadata(), source: source() ?? label)
    }

    public func debug(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .debug, message(), metadata: metadata())
    }

    public func info(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .info, message(), metadata: metadata())
    }

    public func warning(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .warning, message(), metadata: metadata())
    }

    public func error(_ message: @autoclosure () -> String, metadata: @autoclosure () -> Metadata = [:]) {
        log(level: .error, message(), metadata: metadata())
    }
}

extension Logger {
    /// The daemon's logger: lines on stderr (or `sink`), text or JSON, filtered by `level`.
    public init(
        label: String, level: LogLevel = .info, format: LogFormat = .text, sink: LogSink = .standardError,
        clock: @escaping @Sendable () -> UTCTimestamp = { UTCTimestamp.now() }
    ) {
        self.init(label: label, handler: LineLogHandler(level: level, format: format, sink: sink, clock: clock))
    }

    /// A logger configured by the `log` section of config.json (with journald's priority prefixes when stderr is the
    /// journal).
    public init(label: String, settings: LogSettings, sink: LogSink = .standardError) {
        self.init(label: label, control: LogControl(settings), sink: sink)
    }

    /// A logger whose level and format follow `control` (a daemon's, changed on reload).
    public init(label: String, control: LogControl, sink: LogSink = .standardError) {
        self.init(label: label, handler: LineLogHandler(control: control, sink: sink))
    }

    /// A logger that writes nothing.
    public static let disabled = Logger(label: "photodrop.disabled", level: .error, sink: LogSink { _ in })
}
