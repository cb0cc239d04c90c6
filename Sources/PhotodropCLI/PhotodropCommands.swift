/// The command table of DESIGN.md ("Command line"): the contract that tests and scripts rely on.
public enum PhotodropCommands {
    private static let json = OptionSpec.flag("json", help: "Print JSON instead of text (field names are stable).")

    /// `--config PATH`, accepted before or after the command.
    public static let config = OptionSpec.value(
        "config", "PATH",
        help:
            "The configuration file. Default: ./config.json if it exists, else built-in defaults (Library, Inbox and Rejected in the current folder). Relative paths in the file are relative to the file."
    )

    /// The whole tree.
    public static let root = CommandSpec(
        "photodrop",
        summary:
            "a headless photo library for servers: files dropped into Inbox/<Album>/ are checked by content and filed into the library's albums.",
        subcommands: [
            CommandSpec(
                "watch",
                summary: "Run the daemon: watch the inbox and file everything dropped into it, until SIGINT/SIGTERM.",
                discussion:
                    "The inbox is scanned at start, so files that arrived while photodrop was not running are taken too. Each first-level folder of the inbox is an album; files directly in the inbox join the library without an album. On SIGINT or SIGTERM photodrop stops taking new files, finishes those in flight and exits 0."
            ),
            CommandSpec(
                "import", summary: "Import files and folders in one batch.",
                discussion:
                    "A folder is read like an inbox: its first-level subfolders become albums and files directly in it join the library without an album, unless --album puts everything into one album. Sources are kept (copied, or reflinked where the file system can) unless --move. A progress bar is shown on a terminal. Exit status 0 when nothing was rejected or failed, 1 otherwise, 2 for usage or configuration errors.",
                positionals: [PositionalSpec("PATH", .oneOrMore, help: "Files or folders to import.")],
                options: [
                    .value("album", "NAME", help: "Put every imported file into this album."),
                    .flag("move", help: "Move the sources into the library instead of copying them."),
                    .flag("dry-run", help: "Report what would happen, touching nothing."),
                    .flag("json", help: "Print one summary object: imported, duplicates, rejected, failed, items."),
                ]),
            CommandSpec(
                "probe", summary: "Show what photodrop would do with each file, touching nothing.",
                positionals: [PositionalSpec("FILE", .oneOrMore, help: "Files to examine.")],
                options: [json]),
            CommandSpec("albums", summary: "List the albums and smart albums.", options: [json]),
            CommandSpec(
                "assets", summary: "List assets.",
                options: [
                    .value("album", "NAME", help: "Only assets in the album with this title."),
                    .value("kind", "KIND", help: "Only photos, GIFs or videos.", allowed: ["photo", "gif", "video"]),
                    .flag("favorites", help: "Only favourites."),
                    json,
                ]),
            CommandSpec(
                "show", summary: "Show one asset.",
                positionals: [PositionalSpec("ID", help: "The asset's identifier.")], options: [json]),
            CommandSpec(
                "album", summary: "Create, rename or delete albums.",
                subcommands: [
                    CommandSpec(
                        "create", summary: "Create an album.",
                        positionals: [PositionalSpec("NAME", help: "The album's title.")]),
                    CommandSpec(
                        "rename", summary: "Rename an album.",
                        positionals: [
                            PositionalSpec("ID", help: "The album's identifier."),
                            PositionalSpec("NAME", help: "The new title."),
                        ]),
                    CommandSpec(
                        "delete", summary: "Delete an album; its assets stay in the library.",
                        positionals: [PositionalSpec("ID", help: "The album's identifier.")]),
                ]),
            CommandSpec(
                "favorite", summary: "Mark an asset as a favourite.",
                positionals: [PositionalSpec("ID", help: "The asset's identifier.")],
                options: [.flag("off", help: "Remove the favourite mark instead.")]),
            CommandSpec(
                "remove", summary: "Remove an asset from an album (it stays in the library).",
                positionals: [PositionalSpec("ID", help: "The asset's identifier.")],
                options: [.value("from", "ALBUM", help: "The album's identifier or title.", required: true)]),
            CommandSpec(
                "delete", summary: "Delete an asset (it moves to Recently Deleted).",
                positionals: [PositionalSpec("ID", help: "The asset's identifier.")]),
            CommandSpec(
                "events", summary: "Print the library's change history as JSON lines.",
                options: [
                    .value("since", "TOKEN", help: "Only changes after this change token."),
                    .flag("follow", help: "Keep printing new changes as they happen, also those of other processes."),
                    json,
                ]),
            CommandSpec(
                "verify", summary: "Check the catalog against the files: missing originals, orphan files.",
                options: [
                    .flag("deep", help: "Also re-hash every original and report SHA-256 mismatches."),
                    json,
                ]),
            CommandSpec("status", summary: "Show counts and the daemon's health.", options: [json]),
        ])

    /// The parser for the whole table.
    public static let parser = ArgumentParser(root: root, globalOptions: [config])
}
