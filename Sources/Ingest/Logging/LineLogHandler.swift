import PhotodropSystem

/// The handler of photodrop's logs: one line per event, as text or JSON lines (`log.format`), into a ``LogSink``
/// (stderr), with timestamps formatted with integer arithmetic (``UTCTimestamp``) and a line in one `write(2)`.
///
/// Text: `2025-06-01T12:34:56.789Z info    stored path="Trip 1/IMG_1.jpg" outcome=photo` — field values are
/// quoted when they contain spaces, quotes, `=` or control characters, and newlines are escaped, so a file name can
/// never forge a second line. JSON: `{"time":"…","level":"info","message":"stored","path":"Trip 1/IMG_1.jpg",…}`.
/// The logger's own metadata comes after the event's fields; the label is not written.
public struct LineLogHandler: LogHandler {
    public var logLevel: LogLevel
    /// Text or JSON lines.
    public let format: LogFormat
    private let sink: LogSink
    private let clock: @Sendable () -> UTCTimestamp
    private var ownMetadata: [(key: String, value: LogValue)] = []

    /// A handler writing to `sink`; `clock` is injectable for tests.
    public init(
        level: LogLevel = .info, format: LogFormat = .text, sink: LogSink = .standardError,
        clock: @escaping @Sendable () -> UTCTimestamp = { UTCTimestamp.now() }
    ) {
        self.logLevel = level
        self.format = format
        self.sink = sink
        self.clock = clock
    }

    public subscript(metadataKey key: String) -> LogValue? {
        get { ownMetadata.last { $0.key == key }?.value }
        set {
            ownMetadata.removeAll { $0.key == key }
            if let newValue { ownMetadata.append((key, newValue)) }
        }
    }

    public func log(level: LogLevel, message: String, metadata: Logger.Metadata, source: String) {
        sink.write(
            LineLogHandler.line(
                format: format, time: clock(), level: level, message: message,
                fields: metadata, extra: ownMetadata))
    }

    /// One formatted line, newline included.
    public static func line(
        format: LogFormat, time: UTCTimestamp, level: LogLevel, message: String, fields: Logger.Metadata,
        extra: [(key: String, value: LogValue)] = []
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
            for (key, value) in extra {
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
            for (key, value) in extra {
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
