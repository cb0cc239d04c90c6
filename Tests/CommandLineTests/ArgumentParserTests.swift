import Foundation
import TestFixtures
import Testing

@testable import Ingest
@testable import PhotodropCLI

@Suite("ArgumentParser with the photodrop command table", .timeLimit(.minutes(3)))
struct ArgumentParserTests {
    let parser = PhotodropCommands.parser

    func parsed(_ line: String) throws -> ParsedCommand {
        switch try parser.parse(split(line)) {
        case .run(let command): return command
        case .help(let text):
            Issue.record("expected a command, got help:\n\(text)")
            return ParsedCommand(path: [])
        }
    }

    func split(_ line: String) -> [String] { line.split(separator: " ").map(String.init) }

    /// Every form of the README's command table parses into the right command.
    @Test(arguments: [
        ("watch", ParsedCommand(path: ["watch"])),
        ("--config /etc/pd.json watch", ParsedCommand(path: ["watch"], configPath: "/etc/pd.json")),
        ("watch --config=conf.json", ParsedCommand(path: ["watch"], configPath: "conf.json")),
        (
            "import a b c --album Trip --move --dry-run --json",
            ParsedCommand(
                path: ["import"], values: ["album": "Trip"], flags: ["move", "dry-run", "json"],
                arguments: ["PATH": ["a", "b", "c"]])
        ),
        (
            "import --album=Trip a",
            ParsedCommand(path: ["import"], values: ["album": "Trip"], arguments: ["PATH": ["a"]])
        ),
        ("import -- --weird-name", ParsedCommand(path: ["import"], arguments: ["PATH": ["--weird-name"]])),
        (
            "probe x.jpg y.mov --json",
            ParsedCommand(path: ["probe"], flags: ["json"], arguments: ["FILE": ["x.jpg", "y.mov"]])
        ),
        ("albums --json", ParsedCommand(path: ["albums"], flags: ["json"])),
        (
            "assets --album Trip --kind video --favorites --json",
            ParsedCommand(path: ["assets"], values: ["album": "Trip", "kind": "video"], flags: ["favorites", "json"])
        ),
        ("assets", ParsedCommand(path: ["assets"])),
        ("show A1B2 --json", ParsedCommand(path: ["show"], flags: ["json"], arguments: ["ID": ["A1B2"]])),
        ("album create Summer", ParsedCommand(path: ["album", "create"], arguments: ["NAME": ["Summer"]])),
        (
            "album rename A1 Winter",
            ParsedCommand(path: ["album", "rename"], arguments: ["ID": ["A1"], "NAME": ["Winter"]])
        ),
        ("album delete A1", ParsedCommand(path: ["album", "delete"], arguments: ["ID": ["A1"]])),
        ("favorite X9", ParsedCommand(path: ["favorite"], arguments: ["ID": ["X9"]])),
        ("favorite X9 --off", ParsedCommand(path: ["favorite"], flags: ["off"], arguments: ["ID": ["X9"]])),
        (
            "remove X9 --from Trip",
            ParsedCommand(path: ["remove"], values: ["from": "Trip"], arguments: ["ID": ["X9"]])
        ),
        ("--config c.json delete X9", ParsedCommand(path: ["delete"], arguments: ["ID": ["X9"]], configPath: "c.json")),
        (
            "events --since 42 --follow --json",
            ParsedCommand(path: ["events"], values: ["since": "42"], flags: ["follow", "json"])
        ),
        ("verify --deep --json", ParsedCommand(path: ["verify"], flags: ["deep", "json"])),
        ("status", ParsedCommand(path: ["status"])),
    ])
    func theDesignTableParses(_ line: String, _ expected: ParsedCommand) throws {
        #expect(try parsed(line) == expected)
    }

    @Test func accessorsReadTheParsedValues() throws {
        let command = try parsed("import a b --album Trip --move")
        #expect(command.name == "import")
        #expect(command.arguments("PATH") == ["a", "b"])
        #expect(command.argument("PATH") == "a")
        #expect(command.value("album") == "Trip")
        #expect(command.flag("move") && !command.flag("json"))
        #expect(try parsed("album create X").name == "album create")
    }

    /// Every bad command line names what is wrong and says what would be right.
    @Test(arguments: [
        ("", "no command given"),
        ("imprt x", "unknown command 'imprt'. Did you mean 'import'?"),
        ("stauts", "unknown command 'stauts'. Did you mean 'status'?"),
        ("frobnicate", "unknown command 'frobnicate'"),
        ("create Summer", "unknown command 'create'. Did you mean 'album create'?"),
        ("album", "missing subcommand: one of create, rename, delete"),
        ("album crate X", "unknown subcommand of 'album' 'crate'. Did you mean 'create'?"),
        ("import", "missing argument PATH"),
        ("import a --albm Trip", "unknown option '--albm'. Did you mean '--album'?"),
        ("import a --album", "option '--album' needs a value (NAME)"),
        ("import a --album --move", "option '--album' needs a value (NAME)"),
        ("import a --album=", "needs a non-empty value"),
        ("import a --album A --album B", "option '--album' given twice"),
        ("import a --move=yes", "option '--move' takes no value"),
        ("import a -json", "unknown option '-json'. Did you mean '--json'?"),
        ("import a -x", "unknown option '-x'"),
        (
            "assets --kind vidio",
            "'vidio' is not a valid value for '--kind'; use one of photo, gif, video. Did you mean 'video'?"
        ),
        ("show", "missing argument ID"),
        ("show A B", "unexpected argument 'B'"),
        ("status extra", "unexpected argument 'extra'; 'status' takes no arguments"),
        ("album rename A1", "missing argument NAME"),
        ("remove X9", "missing option --from ALBUM"),
        ("favorite", "missing argument ID"),
        ("events --since", "option '--since' needs a value (TOKEN)"),
        ("watch --config", "option '--config' needs a value (PATH)"),
        ("--config a watch --config b", "option '--config' given twice"),
        ("verify --deeep", "Did you mean '--deep'?"),
        ("albums --jsno", "Did you mean '--json'?"),
    ])
    func usageErrorsNameTheBadArgument(_ line: String, _ fragment: String) {
        do {
            let result = try parser.parse(split(line))
            Issue.record("expected a usage error for '\(line)', got \(result)")
        } catch {
            #expect(error.message.contains(fragment), "'\(line)': \(error.message)")
            #expect(error.description.contains("Usage: photodrop"))
            #expect(error.description.contains("--help' for more."))
        }
    }

    @Test func usageErrorsShowTheCommandsUsage() {
        do {
            let result = try parser.parse(["import", "a", "--albm", "x"])
            Issue.record("expected a usage error for --albm, got \(result)")
        } catch {
            #expect(
                error.description == """
                    photodrop import: unknown option '--albm'. Did you mean '--album'?
                    Usage: photodrop import PATH… [--album NAME] [--move] [--dry-run] [--no-derivatives] [--json]
                    Run 'photodrop import --help' for more.

                    """)
        }
    }

    /// `--help` works for every command, generated from the declarations, and wins over other mistakes.
    @Test(arguments: [
        ("--help", "Usage: photodrop [--config PATH] COMMAND …"),
        ("-h", "Commands:"),
        ("watch --help", "Usage: photodrop watch"),
        ("import --help", "Usage: photodrop import PATH… [--album NAME] [--move] [--dry-run] [--no-derivatives] [--json]"),
        ("probe -h", "Usage: photodrop probe FILE… [--json]"),
        ("albums --help", "Usage: photodrop albums [--json]"),
        ("assets --help", "Usage: photodrop assets [--album NAME] [--kind photo|gif|video] [--favorites] [--json]"),
        ("show --help", "Usage: photodrop show ID [--json]"),
        ("album --help", "photodrop album rename ID NAME"),
        ("album create --help", "Usage: photodrop album create NAME"),
        ("album rename --help", "Usage: photodrop album rename ID NAME"),
        ("album delete --help", "Usage: photodrop album delete ID"),
        ("favorite --help", "Usage: photodrop favorite ID [--off]"),
        ("remove --help", "Usage: photodrop remove ID --from ALBUM"),
        ("delete --help", "Usage: photodrop delete ID"),
        ("events --help", "Usage: photodrop events [--since TOKEN] [--follow] [--json]"),
        ("verify --help", "Usage: photodrop verify [--deep] [--library PATH] [--compare] [--json]"),
        ("backup --help", "Usage: photodrop backup DEST [--json]"),
        ("status --help", "Usage: photodrop status [--json]"),
        ("import --albm x --help", "Usage: photodrop import"),
        ("--config x.json remove --help", "Usage: photodrop remove ID --from ALBUM"),
    ])
    func helpForEveryCommand(_ line: String, _ fragment: String) throws {
        guard case .help(let text) = try parser.parse(split(line)) else {
            Issue.record("expected help for '\(line)'")
            return
        }
        #expect(text.contains(fragment), "\(text)")
        #expect(text.contains("--config PATH"))
        #expect(text.hasSuffix("\n"))
        for row in text.split(separator: "\n") { #expect(row.count <= 100, "too long: \(row)") }
    }

    @Test func theTopLevelHelpListsEveryCommandOfTheDesign() throws {
        guard case .help(let text) = try parser.parse(["--help"]) else { return }
        for usage in [
            "watch", "import PATH…", "probe FILE…", "albums", "assets", "show ID", "album create NAME",
            "album rename ID NAME", "album delete ID", "favorite ID", "remove ID --from ALBUM", "delete ID", "events",
            "verify", "status", "thumbnails", "thumbnail ID",
        ] {
            #expect(text.contains("\n  \(usage) "), "missing \(usage)")
        }
        #expect(text.contains("Exit status: 0"))
    }

    @Test func helpDoesNotHideAMistypedCommand() {
        #expect(throws: UsageError.self) { try parser.parse(["imprt", "--help"]) }
    }

    @Test func aGenericTreeWithOptionalAndVariadicPositionals() throws {
        let root = CommandSpec(
            "tool", summary: "test",
            subcommands: [
                CommandSpec(
                    "copy", summary: "copy",
                    positionals: [
                        PositionalSpec("SOURCE", .oneOrMore, help: "sources"),
                        PositionalSpec("TARGET", help: "target"),
                    ]),
                CommandSpec("log", summary: "log", positionals: [PositionalSpec("COUNT", .optional, help: "count")]),
            ])
        let parser = ArgumentParser(root: root, globalOptions: [])
        #expect(
            try parser.parse(["copy", "a", "b", "c"])
                == .run(ParsedCommand(path: ["copy"], arguments: ["SOURCE": ["a", "b"], "TARGET": ["c"]])))
        #expect(throws: UsageError.self) { try parser.parse(["copy", "a"]) }
        #expect(try parser.parse(["log"]) == .run(ParsedCommand(path: ["log"])))
        #expect(try parser.parse(["log", "5"]) == .run(ParsedCommand(path: ["log"], arguments: ["COUNT": ["5"]])))
        #expect(throws: UsageError.self) { try parser.parse(["log", "5", "6"]) }
    }
}

@Suite("photodrop command line, run in-process", .timeLimit(.minutes(3)))
struct PhotodropCommandLineTests {
    final class Output: Sendable {
        let out = Locked("")
        let err = Locked("")
        var console: Console {
            Console(
                output: { [out] text in out.withLock { $0 += text } },
                error: { [err] text in err.withLock { $0 += text } })
        }
    }

    @Test func helpGoesToStdoutWithStatusZeroWithoutReadingTheConfig() async throws {
        let folder = try TemporaryFolder("cli-help")
        try folder.write("config.json", "{not json")
        let output = Output()
        let status = await PhotodropCommandLine.run(
            ["import", "--help"], console: output.console, currentDirectory: folder.path)
        #expect(status == 0)
        #expect(output.out.value.hasPrefix("Import files and folders"))
        #expect(output.err.value.isEmpty)
    }

    @Test func usageErrorsGoToStderrWithStatusTwo() async {
        let output = Output()
        let status = await PhotodropCommandLine.run(["imprt"], console: output.console)
        #expect(status == 2)
        #expect(output.err.value.contains("Did you mean 'import'?"))
        #expect(output.out.value.isEmpty)
    }

    @Test func configErrorsNameTheFileAndExitTwo() async throws {
        let folder = try TemporaryFolder("cli-config")
        try folder.write("config.json", "{\n  \"wrokers\": 2\n}")
        let output = Output()
        let status = await PhotodropCommandLine.run(["status"], console: output.console, currentDirectory: folder.path)
        #expect(status == 2)
        #expect(
            output.err.value.contains(
                folder.path + "/config.json:2:3: \"wrokers\": unknown key. Did you mean \"workers\"?"))
        let missing = Output()
        let code = await PhotodropCommandLine.run(
            ["--config", "gone.json", "status"], console: missing.console, currentDirectory: folder.path)
        #expect(code == 2)
        #expect(missing.err.value.contains(folder.path + "/gone.json: the configuration file does not exist"))
    }

    @Test func handlersGetTheParsedCommandAndTheConfig() async throws {
        let folder = try TemporaryFolder("cli-handler")
        try folder.write("conf/pd.json", "{\"inbox\": \"drop\", \"settleMilliseconds\": 0}")
        let received = Locked<CommandContext?>(nil)
        let handlers: [String: CommandHandler] = [
            "album create": { context in
                received.withLock { $0 = context }
                context.console.output("created\n")
                return 0
            }
        ]
        let output = Output()
        let status = await PhotodropCommandLine.run(
            ["album", "create", "Summer 2025", "--config", "conf/pd.json"], handlers: handlers, console: output.console,
            currentDirectory: folder.path)
        #expect(status == 0)
        #expect(output.out.value == "created\n")
        let context = try #require(received.value)
        #expect(context.command.argument("NAME") == "Summer 2025")
        #expect(context.config.inbox == folder.path + "/conf/drop")
        #expect(context.config.settleMilliseconds == 0)
    }

    @Test func everyDeclaredCommandHasAHandlerAndNoHandlerIsUndeclared() {
        // A command in the help without a handler could not run; a handler for an undeclared name never would.
        var declared: Set<String> = []
        func collect(_ spec: CommandSpec, _ path: [String]) {
            if spec.subcommands.isEmpty { declared.insert(path.joined(separator: " ")) }
            for sub in spec.subcommands { collect(sub, path + [sub.name]) }
        }
        for command in PhotodropCommands.root.subcommands { collect(command, [command.name]) }
        #expect(declared.count == 25)
        #expect(Set(CommandHandlers.available.keys) == declared)
    }

    @Test("a command with a default subcommand runs it when none is named, options included")
    func defaultSubcommand() throws {
        let parser = ArgumentParser(root: PhotodropCommands.root, globalOptions: [PhotodropCommands.config])
        for (arguments, path) in [
            (["trash"], ["trash", "list"]), (["trash", "--json"], ["trash", "list"]),
            (["trash", "list", "--json"], ["trash", "list"]), (["trash", "empty", "--older-than", "3"], ["trash", "empty"]),
        ] {
            guard case .run(let command) = try parser.parse(arguments) else {
                Issue.record("\(arguments) did not parse to a command")
                continue
            }
            #expect(command.path == path, "\(arguments)")
        }
        guard case .run(let listed) = try parser.parse(["trash", "--json"]) else { return }
        #expect(listed.flag("json"))
        #expect(throws: UsageError.self) { try parser.parse(["trash", "bin"]) }
        #expect(throws: UsageError.self) { try parser.parse(["album"]) }  // no default: one must be named
    }
}
