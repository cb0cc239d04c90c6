import PhotodropSystem

/// The daemon's log: one line per event on stderr, as text or JSON lines (`log.format`), filtered by `log.level`.
///
/// Cheap by construction: a disabled level costs one comparison (the message is an autoclosure), timestamps are
/// formatted with integer arithmetic (``UTCTimestamp``), and a line is one `write(2)`.
///
/// Text: `2025-06-01T12:34:56.789Z info    stored path="Trip 1/IMG_1.jpg" outcome=photo` — field values are
/// quoted when they contain spaces, quotes, `=` or control characters, and newlines are escaped, so a file name can
/// never forge a second line. JSON: `{"time":"…","level":"info","message":"stored","path":"Trip 1/IMG_1.jpg",…}`.
public struct Logger: Sendable {
    /// Lines below this level are dropped.
    public let level: LogLevel
    /// Text or JSON lines.
    public let format: LogFormat
    private let sink: LogSink
    private let clock: @Sendable () -> UTCTimestamp

    /// A logger writing to `sink` (stderr by default); `clock` is injectable for tests.
    public init(
        level: LogLevel = .info, format: LogFormat = .text, sink: LogSink = .standardError,
        clock: @escaping @Sendable () -> UTCTimestamp = { UTCTimestamp.now() }
    ) {
        self.level = level
        self.format = format
        self.sink = sink
        self.clock = clock
    }

    /// A logger configured by the `log` section of config.json.
    public init(settings: IngestConfig.Log, sink: LogSink = .standardError) {
        self.init(level: settings.level, format: settings.format, sink: sink)
    }

    /// A logger that writes nothing.
    public static let disabled = Logger(level: .error, sink: LogSink { _ in })

    /// Whether lines of `level` are written.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= self.level }

    /// Writes one line if `level` is enabled.
    public func log(
        _ level: LogLevel, _ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, LogValue> = [:]
    ) {
        guard isEnabled(level) else { return }
        sink.write(Logger.line(format: format, time: clock(), level: level, message: message(), fields: fields))
    }

    public func debug(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.debug, message(), fields)
    }

    public func info(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.info, message(), fields)
    }

    public func warning(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.warning, message(), fields)
    }

    public func error(_ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, LogValue> = [:]) {
        log(.error, message(), fields)
    }

    /// One formatted line, newline included.
    public static func line(
        format: LogFormat, time: UTCTimestamp, level: LogLevel, message: String, fields: KeyValuePairs<String, LogValue>
    ) -> String {
        switch format {
        case .json:
            var writer = JSONWriter(capacity: 256)
            writer.beginObject()
            writer.member("time", time.iso8601)
            writer.member("level", level.rawValue)
            writer.member("message", message)
            for (key, value) in fields {
                writer.key(key)
                value.write(to: &writer)
            }
            writer.endObject()
            return writer.text + "\n"
        case .text:
            var line = time.iso8601
            line += " "
            line += level.rawValue
            line += String(repeating: " ", count: 8 - level.rawValue.count)
            appendEscapedText(message, to: &line)
            for (key, value) in fields {
                line += " "
                line += key
                line += "="
                appendTextValue(value, to: &line)
            }
            line += "\n"
            return line
        }
    }

    private static func appendTextValue(_ value: LogValue, to line: inout String) {
        guard case .string(let text) = value else {
            line += value.description
            return
        }
        let needsQuotes =
            text.isEmpty
            || text.utf8.contains { $0 <= 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "=") || $0 == 0x7F }
        if needsQuotes {
            JSONWriter.appendQuoted(text, to: &line)
        } else {
            line += text
        }
    }

    /// Messages are free text; only control characters are escaped so that one event stays one line.
    private static func appendEscapedText(_ text: String, to line: inout String) {
        guard text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) else {
            line += text
            return
        }
        // A file name that is not UTF-8 shows its stray bytes as \xFC.
        let text = FileNameEncoding.displayText(text)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                line += "\\x" + (scalar.value < 0x10 ? "0" : "") + String(scalar.value, radix: 16)
            default: line.unicodeScalars.append(scalar)
            }
        }
    }
}
