/// A successfully parsed command line: which command, with which options and arguments.
public struct ParsedCommand: Sendable, Equatable {
    /// The command words, e.g. `["album", "create"]`.
    public var path: [String]
    /// Options with values, by name (without dashes).
    public var values: [String: String]
    /// Flags that were given.
    public var flags: Set<String>
    /// Positional arguments, by their declared name.
    public var arguments: [String: [String]]
    /// The global `--config PATH`, if given.
    public var configPath: String?

    public init(
        path: [String], values: [String: String] = [:], flags: Set<String> = [], arguments: [String: [String]] = [:],
        configPath: String? = nil
    ) {
        self.path = path
        self.values = values
        self.flags = flags
        self.arguments = arguments
        self.configPath = configPath
    }

    /// `"album create"`: the key of the handler table.
    public var name: String { path.joined(separator: " ") }

    /// The value of `--name`, if given.
    public func value(_ name: String) -> String? { values[name] }

    /// Whether `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The single positional called `name`, if given.
    public func argument(_ name: String) -> String? { arguments[name]?.first }

    /// All positionals called `name` (for `PATH…`).
    public func arguments(_ name: String) -> [String] { arguments[name] ?? [] }
}

/// What the parser decided.
public enum ParseResult: Sendable, Equatable {
    /// Run this command.
    case run(ParsedCommand)
    /// `--help` was asked for: print this text to stdout and exit 0.
    case help(String)
}
