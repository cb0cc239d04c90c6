import PhotodropSystem

/// The handler of photodrop's logs: one line per event, as text or JSON lines (`log.format`), into a ``LogSink``
/// (stderr), with timestamps formatted with integer arithmetic (``UTCTimestamp``) and a line in one `write(2)`.
///
/// Text: `2025-06-01T12:34:56.789Z info    stored path="Trip 1/IMG_1.jpg" outcome=photo` — field values are
/// quoted when they contain spaces, quotes, `=` or control characters, and newlines are escaped, so a file name can
/// never forge a second line. JSON: `{"time":"…","level":"info","message":"stored","path":"Trip 1/IMG_1.jpg",…}`.
/// The logger's own metadata comes after the event's fields; the label is not written.
///
/// Under journald (``LogControl/journal``), text lines start with a `<N>` syslog priority and carry no timestamp
/// (the journal keeps its own): `<4>warning cannot look at a file path=…`.
public struct LineLogHandler: LogHandler {
    private var ownLevel: LogLevel
    private let ownFormat: LogFormat
    /// Settings shared with the daemon's other loggers, changed on reload (nil: fixed ones).
    private let control: LogControl?
    private let sink: LogSink
    private let clock: @Sendable () -> UTCTimestamp
    private var ownMetadata: [(key: String, value: LogValue)] = []

    /// A handler writing to `sink`; `clock` is injectable for tests.
    public init(
        level: LogLevel = .info, format: LogFormat = .text, sink: LogSink = .standardError,
        clock: @escaping @Sendable () -> UTCTimestamp = { UTCTimestamp.now() }
    ) {
        self.ownLevel = level
        self.ownFormat = format
        self.control = nil
        self.sink = sink
        self.clock = clock
    }

    /// A handler whose level and format are `control`'s (a daemon's, changed on reload).
    public init(
        control: LogControl, sink: LogSink = .standardError,
        clock: @escaping @Sendable () -> UTCTimestamp = { UTCTimestamp.now() }
    ) {
        self.ownLevel = control.level
        self.ownFormat = control.format
        self.control = control
        self.sink = sink
        self.clock = clock
    }

    public var logLevel: LogLevel {
        get { control?.level ?? ownLevel }
        set {
            ownLevel = newValue
            control?.level = newValue
        }
    }

    /// Text or JSON lines.
    public var format: LogFormat { control?.format ?? ownFormat }

    public subscript(metadataKey key: String) -> LogValue? {
        get { ownMetadata.last { $0.key == key }?.value }
        set {
            ownMetadata.removeAll { $0.key == key }
            if let newValue { ownMetadata.append((key, newValue)) }
        }
    }

    public func log(level: LogLevel, message: String, metadata: Logger.Metadata, source: String) {
        let format = self.format
        if format == .text, control?.journal == true {
            sink.write(
                "<\(LogControl.priority(of: level))>"
                    + LineLogHandler.textLine(level: level, message: message, fields: metadata, extra: ownMetadata))
            return
        }
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
            return time.iso8601 + " " + textLine(level: level, message: message, fields: fields, extra: extra)
        }
    }

    /// A text line after its timestamp: level, message, fields, newline.
    static func textLine(
        level: LogLevel, message: String, fields: Logger.Metadata, extra: [(key: String, value: LogValue)]
    ) -> String {
        var line = level.rawValue
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
