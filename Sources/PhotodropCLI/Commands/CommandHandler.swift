import Ingest
import PhotodropConfiguration

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

/// The exit statuses of the command line.
public enum ExitStatus {
    /// Everything succeeded.
    public static let success: Int32 = 0
    /// Something was rejected or failed, or the command failed.
    public static let failure: Int32 = 1
    /// Usage or configuration error.
    public static let usage: Int32 = 2
}

/// Every command's implementation, keyed by ``ParsedCommand/name`` (`"album create"`). A test checks that these are
/// exactly the commands ``PhotodropCommands`` declares.
public enum CommandHandlers {
    public static let available: [String: CommandHandler] = [
        "watch": WatchCommand.run,
        "import": ImportCommand.run,
        "init": InitCommand.run,
        "help": HelpCommand.run,
        "migrate": MigrateCommand.run,
        "probe": ProbeCommand.run,
        "albums": BrowseCommands.albums,
        "assets": BrowseCommands.assets,
        "show": BrowseCommands.show,
        "album create": ChangeCommands.createAlbum,
        "album rename": ChangeCommands.renameAlbum,
        "album delete": ChangeCommands.deleteAlbum,
        "favorite": ChangeCommands.favorite,
        "remove": ChangeCommands.remove,
        "delete": ChangeCommands.delete,
        "restore": ChangeCommands.restore,
        "trash list": TrashCommands.list,
        "trash empty": TrashCommands.empty,
        "events": EventsCommand.run,
        "verify": VerifyCommand.run,
        "backup": BackupCommand.run,
        "thumbnails": ThumbnailCommands.thumbnails,
        "thumbnail": ThumbnailCommands.thumbnail,
        "status": StatusCommand.run,
        "serve": ServeCommand.run,
    ]
}
