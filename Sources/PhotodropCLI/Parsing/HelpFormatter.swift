/// Generates usage lines and `--help` texts from the command declarations.
public struct HelpFormatter: Sendable {
    public let parser: ArgumentParser
    /// Help text is wrapped to this many columns.
    public var width = 100

    public init(parser: ArgumentParser) {
        self.parser = parser
    }

    /// `photodrop import PATH… [--album NAME] [--move] [--dry-run] [--json]`
    public func synopsis(for spec: CommandSpec, path: [String]) -> String {
        var words = [parser.root.name] + path
        words += spec.positionals.map(\.synopsis)
        for option in spec.options {
            words.append(option.isRequired ? option.synopsis : "[\(option.synopsis)]")
        }
        return words.joined(separator: " ")
    }

    /// The lines printed with a usage error.
    public func shortUsage(for spec: CommandSpec, path: [String]) -> String {
        if path.isEmpty {
            let globals = parser.globalOptions.map { "[\($0.synopsis)]" }.joined(separator: " ")
            let commands = spec.subcommands.map(\.name).joined(separator: ", ")
            return "Usage: \(spec.name) \(globals) COMMAND …\nCommands: \(commands)"
        }
        if !spec.subcommands.isEmpty {
            var lines = spec.subcommands.map { synopsis(for: $0, path: path + [$0.name]) }
            if let name = spec.defaultSubcommand, let subcommand = spec.subcommand(named: name) {
                lines.insert(synopsis(for: subcommand, path: path), at: 0)
            }
            return "Usage: " + lines.joined(separator: "\n       ")
        }
        return "Usage: " + synopsis(for: spec, path: path)
    }

    /// The full `--help` text of a command (or of the program, for an empty path).
    public func help(for spec: CommandSpec, path: [String]) -> String {
        var sections: [String] = []
        if path.isEmpty {
            sections.append(wrap("\(spec.name) — \(spec.summary)", indent: 0))
        } else {
            sections.append(wrap(spec.summary, indent: 0))
        }
        if path.isEmpty {
            // The command table follows; the one-line list of the short usage would repeat it.
            sections.append(String(shortUsage(for: spec, path: path).prefix { $0 != "\n" }))
        } else {
            sections.append(shortUsage(for: spec, path: path))
        }
        if let discussion = spec.discussion {
            sections.append(
                discussion.split(separator: "\n\n").map { wrap(String($0), indent: 0) }.joined(separator: "\n\n"))
        }
        if !spec.subcommands.isEmpty {
            var rows: [(String, String)] = []
            func collect(_ command: CommandSpec, _ commandPath: [String]) {
                if command.subcommands.isEmpty {
                    let usage =
                        ([commandPath.joined(separator: " ")] + command.positionals.map(\.synopsis)
                        + command.options.filter(\.isRequired).map(\.synopsis)).joined(separator: " ")
                    rows.append((usage, command.summary))
                } else {
                    for subcommand in command.subcommands { collect(subcommand, commandPath + [subcommand.name]) }
                }
            }
            for subcommand in spec.subcommands { collect(subcommand, path + [subcommand.name]) }
            sections.append((path.isEmpty ? "Commands:\n" : "Subcommands:\n") + table(rows))
        }
        if !spec.positionals.isEmpty {
            sections.append("Arguments:\n" + table(spec.positionals.map { ($0.synopsis, $0.help) }))
        }
        if !spec.options.isEmpty {
            sections.append("Options:\n" + table(spec.options.map { ($0.synopsis, $0.help) }))
        }
        let globals =
            parser.globalOptions.map { ($0.synopsis, $0.help) } + [
                (
                    "-h, --help",
                    path.isEmpty ? "Show this help; 'photodrop COMMAND --help' shows a command's." : "Show this help."
                )
            ]
        sections.append("Global options:\n" + table(globals))
        if path.isEmpty {
            sections.append(
                wrap(
                    "Exit status: 0 when everything succeeded, 1 when a file was rejected or failed (or the command failed), 2 for a usage or configuration error.",
                    indent: 0))
        }
        return sections.joined(separator: "\n\n") + "\n"
    }

    private func table(_ rows: [(String, String)]) -> String {
        let column = min(30, (rows.map(\.0.count).max() ?? 0) + 4)
        return rows.map { left, right in
            let lead = "  " + left
            if lead.count + 2 > column {
                return lead + "\n" + wrap(right, indent: column)
            }
            let padded = lead + String(repeating: " ", count: column - lead.count)
            return padded + wrap(right, indent: column).dropFirst(column)
        }.joined(separator: "\n")
    }

    /// Word-wraps `text` to ``width`` columns, every line indented by `indent` spaces.
    func wrap(_ text: String, indent: Int) -> String {
        let available = max(20, width - indent)
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ", omittingEmptySubsequences: true) {
            if !line.isEmpty && line.count + 1 + word.count > available {
                lines.append(line)
                line = ""
            }
            line += line.isEmpty ? String(word) : " " + word
        }
        if !line.isEmpty || lines.isEmpty { lines.append(line) }
        let padding = String(repeating: " ", count: indent)
        return lines.map { padding + $0 }.joined(separator: "\n")
    }
}
