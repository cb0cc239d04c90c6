extension CommandHandlers {
    /// The commands that browse, change and check the library, and `probe`.
    static let libraryCommands: [String: CommandHandler] = [
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
        "events": EventsCommand.run,
        "verify": VerifyCommand.run,
        "status": StatusCommand.run,
    ]
}
