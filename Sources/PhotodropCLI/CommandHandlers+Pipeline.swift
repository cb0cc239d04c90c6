extension CommandHandlers {
    /// The commands that run the ingestion pipeline: `watch`, `import`.
    static let pipelineCommands: [String: CommandHandler] = [
        "watch": WatchCommand.run,
        "import": ImportCommand.run,
        "init": InitCommand.run,
    ]
}
