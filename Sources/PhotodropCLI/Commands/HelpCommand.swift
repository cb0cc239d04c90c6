import BuildInfo

/// `photodrop help [--format text|markdown|man]`: the whole command-line reference (``ReferenceFormatter``).
enum HelpCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        let parser = PhotodropCommands.parser
        let reference = ReferenceFormatter(parser: parser)
        switch context.command.value("format") ?? "text" {
        case "markdown":
            context.console.output(reference.markdown())
        case "man":
            context.console.output(reference.manPage(version: PhotodropVersion.semantic))
        default:
            let help = HelpFormatter(parser: parser)
            var text = help.help(for: parser.root, path: [])
            for (path, spec) in reference.commands() {
                text += "\n" + String(repeating: "─", count: 40) + "\n" + help.help(for: spec, path: path)
            }
            context.console.output(text)
        }
        return ExitStatus.success
    }
}
