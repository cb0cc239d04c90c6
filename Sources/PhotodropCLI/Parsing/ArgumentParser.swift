import Ingest
import PhotodropConfiguration

/// Parses a command line against a tree of ``CommandSpec``s.
///
/// Rules:
/// - Command words come first (`album create`); options may appear anywhere after them and before `--`, and global
///   options (`--config PATH`) anywhere at all.
/// - `--name VALUE` and `--name=VALUE`; a value may not start with `--` unless written with `=`; empty values are
///   refused; a value option given twice is an error; `--` ends options.
/// - `-h`/`--help` anywhere asks for the help of the command named so far, whatever else is wrong.
/// - Unknown commands and options get a "did you mean" from ``Suggestion``.
public struct ArgumentParser: Sendable {
    /// The top of the tree (its `name` is the program name).
    public let root: CommandSpec
    /// Options accepted by every command (`--config`).
    public let globalOptions: [OptionSpec]

    public init(root: CommandSpec, globalOptions: [OptionSpec]) {
        self.root = root
        self.globalOptions = globalOptions
    }

    /// Parses `arguments` (without the program name).
    public func parse(_ arguments: [String]) throws(UsageError) -> ParseResult {
        let helpRequested = arguments.prefix { $0 != "--" }.contains { $0 == "--help" || $0 == "-h" }
        var state = State(spec: root)
        var index = 0
        var optionsEnded = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if !optionsEnded && argument == "--" {
                optionsEnded = true
                continue
            }
            if !optionsEnded && (argument == "--help" || argument == "-h") { continue }
            if optionsEnded || !argument.hasPrefix("-") || argument == "-" {
                if !state.spec.subcommands.isEmpty {
                    guard let subcommand = state.spec.subcommand(named: argument) else {
                        throw unknownCommand(argument, in: state)
                    }
                    state.spec = subcommand
                    state.path.append(argument)
                    continue
                }
                state.positionals.append(argument)
                continue
            }
            // An option after a command whose subcommand may be left out belongs to that default subcommand.
            if !state.spec.subcommands.isEmpty, let name = state.spec.defaultSubcommand,
                let subcommand = state.spec.subcommand(named: name)
            {
                state.spec = subcommand
                state.path.append(name)
            }
            do {
                try parseOption(argument, arguments: arguments, index: &index, state: &state)
            } catch {
                if !helpRequested { throw error }
            }
        }
        if helpRequested {
            return .help(HelpFormatter(parser: self).help(for: state.spec, path: state.path))
        }
        if !state.spec.subcommands.isEmpty, let name = state.spec.defaultSubcommand,
            let subcommand = state.spec.subcommand(named: name)
        {
            state.spec = subcommand
            state.path.append(name)
        }
        if state.path.isEmpty {
            throw UsageError(
                message: "no command given", commandPath: [],
                usage: HelpFormatter(parser: self).shortUsage(for: root, path: []))
        }
        if !state.spec.subcommands.isEmpty {
            let names = state.spec.subcommands.map(\.name).joined(separator: ", ")
            throw usageError("missing subcommand: one of \(names)", state)
        }
        let assigned = try assignPositionals(state)
        for option in state.spec.options where option.isRequired && state.values[option.name] == nil {
            throw usageError("missing option \(option.synopsis)", state)
        }
        return .run(
            ParsedCommand(
                path: state.path, values: state.values, flags: state.flags, arguments: assigned,
                configPath: state.globalValues["config"]))
    }

    // MARK: - Internals

    private struct State {
        var spec: CommandSpec
        var path: [String] = []
        var values: [String: String] = [:]
        var globalValues: [String: String] = [:]
        var flags: Set<String> = []
        var positionals: [String] = []
    }

    private func parseOption(_ argument: String, arguments: [String], index: inout Int, state: inout State)
        throws(UsageError)
    {
        var argument = argument
        if !argument.hasPrefix("--"), argument.count == 2,
            let option = state.spec.options.first(where: { $0.short == argument.last })
        {
            argument = "--" + option.name
        }
        guard argument.hasPrefix("--") else {
            var message = "unknown option '\(argument)'"
            let long = "-" + argument
            if let candidate = long.dropFirst(2).split(separator: "=").first,
                option(named: String(candidate), in: state.spec) != nil
            {
                message += ". Did you mean '\(long)'? Options start with two dashes"
            }
            throw usageError(message, state)
        }
        let body = argument.dropFirst(2)
        let name: String
        let inlineValue: String?
        if let equals = body.firstIndex(of: "=") {
            name = String(body[..<equals])
            inlineValue = String(body[body.index(after: equals)...])
        } else {
            name = String(body)
            inlineValue = nil
        }
        guard let (option, isGlobal) = option(named: name, in: state.spec) else {
            var message = "unknown option '--\(name)'"
            let candidates = state.spec.options.map(\.name) + globalOptions.map(\.name) + ["help"]
            if let suggestion = Suggestion.closest(to: name, among: candidates) {
                message += ". Did you mean '--\(suggestion)'?"
            }
            throw usageError(message, state)
        }
        switch option.kind {
        case .flag:
            if inlineValue != nil { throw usageError("option '--\(name)' takes no value", state) }
            state.flags.insert(name)
        case .value(let placeholder):
            let value: String
            if let inlineValue {
                value = inlineValue
            } else if index < arguments.count, !arguments[index].hasPrefix("--") {
                value = arguments[index]
                index += 1
            } else {
                throw usageError("option '--\(name)' needs a value (\(placeholder))", state)
            }
            if value.isEmpty { throw usageError("option '--\(name)' needs a non-empty value (\(placeholder))", state) }
            if let allowed = option.allowedValues, !allowed.contains(value) {
                var message =
                    "'\(value)' is not a valid value for '--\(name)'; use one of \(allowed.joined(separator: ", "))"
                if let suggestion = Suggestion.closest(to: value, among: allowed) {
                    message += ". Did you mean '\(suggestion)'?"
                }
                throw usageError(message, state)
            }
            if isGlobal {
                if state.globalValues[name] != nil { throw usageError("option '--\(name)' given twice", state) }
                state.globalValues[name] = value
            } else {
                if state.values[name] != nil { throw usageError("option '--\(name)' given twice", state) }
                state.values[name] = value
            }
        }
    }

    private func option(named name: String, in spec: CommandSpec) -> (OptionSpec, isGlobal: Bool)? {
        if let option = spec.option(named: name) { return (option, false) }
        if let option = globalOptions.first(where: { $0.name == name }) { return (option, true) }
        return nil
    }

    private func assignPositionals(_ state: State) throws(UsageError) -> [String: [String]] {
        var result: [String: [String]] = [:]
        var remaining = state.positionals[...]
        let specs = state.spec.positionals
        for (position, spec) in specs.enumerated() {
            let requiredAfter = specs[(position + 1)...].filter { $0.arity != .optional }.count
            switch spec.arity {
            case .one:
                guard let value = remaining.popFirst() else { throw usageError("missing argument \(spec.name)", state) }
                result[spec.name] = [value]
            case .optional:
                if remaining.count > requiredAfter, let value = remaining.popFirst() { result[spec.name] = [value] }
            case .oneOrMore:
                let take = remaining.count - requiredAfter
                guard take >= 1 else { throw usageError("missing argument \(spec.name)", state) }
                result[spec.name] = Array(remaining.prefix(take))
                remaining = remaining.dropFirst(take)
            }
        }
        if let extra = remaining.first {
            let message: String
            if specs.isEmpty {
                message = "unexpected argument '\(extra)'; '\(state.path.joined(separator: " "))' takes no arguments"
            } else {
                message = "unexpected argument '\(extra)'"
            }
            throw usageError(message, state)
        }
        for (name, values) in result {
            if values.contains(where: \.isEmpty) { throw usageError("argument \(name) must not be empty", state) }
        }
        return result
    }

    private func unknownCommand(_ word: String, in state: State) -> UsageError {
        let level = state.path.isEmpty ? "command" : "subcommand of '\(state.path.joined(separator: " "))'"
        var message = "unknown \(level) '\(word)'"
        if let suggestion = Suggestion.closest(to: word, among: state.spec.subcommands.map(\.name)) {
            message += ". Did you mean '\(suggestion)'?"
        } else if state.path.isEmpty,
            let parent = root.subcommands.first(where: { $0.subcommand(named: word) != nil })
        {
            message += ". Did you mean '\(parent.name) \(word)'?"
        }
        return usageError(message, state)
    }

    private func usageError(_ message: String, _ state: State) -> UsageError {
        UsageError(
            message: message, commandPath: state.path,
            usage: HelpFormatter(parser: self).shortUsage(for: state.spec, path: state.path))
    }
}
