import BuildInfo
import Ingest
import Rendering
import PhotodropConfiguration

/// The `photodrop` program: parse, print help or a usage error, load the configuration, run the command.
public enum PhotodropCommandLine {
    /// Runs one command line (without the program name) and returns the exit status.
    ///
    /// - Usage errors and configuration errors: message on stderr, status 2.
    /// - `--help`: help on stdout, status 0; the configuration is not read.
    /// - `--version`: `photodrop VERSION (commit …)` on stdout, status 0.
    public static func run(
        _ arguments: [String], handlers: [String: CommandHandler] = CommandHandlers.available,
        console: Console = .standard, currentDirectory: String? = nil
    ) async -> Int32 {
        // `photodrop --version` (alone, after `--config FILE`, or before any command): the version and the commit of
        // this build. The configuration is not read.
        var leading = arguments[...]
        while let first = leading.first, first == "--config" || first.hasPrefix("--config=") {
            leading = leading.dropFirst(first == "--config" ? 2 : 1)
        }
        if leading.first == "--version" || leading.first == "-V" {
            console.output("photodrop \(PhotodropVersion.description)\n")
            return ExitStatus.success
        }
        let command: ParsedCommand
        do {
            switch try PhotodropCommands.parser.parse(arguments) {
            case .help(let text):
                console.output(text)
                return ExitStatus.success
            case .run(let parsed):
                command = parsed
            }
        } catch {
            console.error(error.description)
            return ExitStatus.usage
        }
        let config: IngestConfig
        do {
            config = try IngestConfig.load(explicitPath: command.configPath, currentDirectory: currentDirectory)
        } catch {
            console.error("photodrop: configuration error:\n\(error.description)\n")
            return ExitStatus.usage
        }
        // The decodes of this process share one memory budget; the automatic one is the default already.
        if config.decodeMemoryMiB > 0 { DecodeBudget.shared.setTotal(config.decodeMemoryBytes) }
        guard let handler = handlers[command.name] else {
            // Only a test's own table can miss a declared command (see CommandHandlers).
            console.error("photodrop \(command.name): no handler for this command in the table given\n")
            return ExitStatus.failure
        }
        return await handler(CommandContext(command: command, config: config, console: console))
    }
}
