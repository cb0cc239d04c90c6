/// How and how much a process logs (`log` in the configuration file).
public struct LogSettings: Sendable, Equatable {
    public var format: LogFormat
    public var level: LogLevel

    public init(format: LogFormat = .text, level: LogLevel = .info) {
        self.format = format
        self.level = level
    }
}
