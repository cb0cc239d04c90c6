import Ingest

/// What a command's implementation gets: the parsed command line, the loaded configuration and the console.
public struct CommandContext: Sendable {
    public var command: ParsedCommand
    public var config: IngestConfig
    public var console: Console

    public init(command: ParsedCommand, config: IngestConfig, console: Console) {
        self.command = command
        self.config = config
        self.console = console
    }
}

/// A command's implementation; returns the exit status.
public typealias CommandHandler = @Sendable (CommandContext) async -> Int32

/// The exit statuses of DESIGN.md, plus one for commands this build does not implement yet.
public enum ExitStatus {
    /// Everything succeeded.
    public static let success: Int32 = 0
    /// Something was rejected or failed, or the command failed.
    public static let failure: Int32 = 1
    /// Usage or configuration error.
    public static let usage: Int32 = 2
    /// The command is declared but has no implementation in this build (`EX_SOFTWARE`).
    public static let notImplemented: Int32 = 70
}

/// The implemented commands, keyed by ``ParsedCommand/name`` (`"album create"`).
///
/// Every command of ``PhotodropCommands`` parses and has help, but the command bodies need the catalog
/// (PhotoCatalog) and the probe (MediaProbe), which are built separately; a command without an entry here answers
/// with ``ExitStatus/notImplemented`` and says so, instead of printing made-up results.
public enum CommandHandlers {
    public static let available: [String: CommandHandler] = pipelineCommands.merging(libraryCommands) { first, _ in
        first
    }
}
