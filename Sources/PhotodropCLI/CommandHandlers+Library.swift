extension CommandHandlers {
    /// The commands that browse, change and check the library, and `probe`.
    static let libraryCommands: [String: CommandHandler] = [:]
}
