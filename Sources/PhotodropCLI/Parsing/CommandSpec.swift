/// A command of the command line, declared as data: its arguments, options and subcommands.
///
/// The parser (``ArgumentParser``), the help texts (``HelpFormatter``) and the usage errors are all derived from
/// these declarations, so they cannot drift apart.
public struct CommandSpec: Sendable {
    /// The word that selects the command (`import`, `album`, `create`).
    public var name: String
    /// One line for command lists and the top of the help.
    public var summary: String
    /// More paragraphs for `--help`, or nil.
    public var discussion: String?
    /// Positional arguments, in order.
    public var positionals: [PositionalSpec]
    /// Options (`--name` or `--name VALUE`).
    public var options: [OptionSpec]
    /// Subcommands; a command with subcommands takes no positionals of its own.
    public var subcommands: [CommandSpec]
    /// The subcommand that runs when none is named (`photodrop trash` is `photodrop trash list`), or nil when one
    /// must be named.
    public var defaultSubcommand: String?

    public init(
        _ name: String, summary: String, discussion: String? = nil, positionals: [PositionalSpec] = [],
        options: [OptionSpec] = [], subcommands: [CommandSpec] = [], defaultSubcommand: String? = nil
    ) {
        precondition(subcommands.isEmpty || positionals.isEmpty, "\(name): subcommands or positionals, not both")
        precondition(
            defaultSubcommand.map { name in subcommands.contains { $0.name == name } } ?? true,
            "\(name): the default subcommand must be one of its subcommands")
        self.defaultSubcommand = defaultSubcommand
        self.name = name
        self.summary = summary
        self.discussion = discussion
        self.positionals = positionals
        self.options = options
        self.subcommands = subcommands
    }

    /// The option called `name` (without dashes), if declared.
    public func option(named name: String) -> OptionSpec? { options.first { $0.name == name } }

    /// The subcommand called `name`, if declared.
    public func subcommand(named name: String) -> CommandSpec? { subcommands.first { $0.name == name } }
}

/// An option: a flag (`--json`) or an option with a value (`--album NAME`, `--album=NAME`).
public struct OptionSpec: Sendable, Equatable {
    public enum Kind: Sendable, Equatable {
        case flag
        /// Takes a value; `placeholder` names it in help (`NAME`).
        case value(placeholder: String)
    }

    /// The long name, without the leading `--`.
    public var name: String
    public var kind: Kind
    public var help: String
    /// Whether the command cannot run without it (`remove ID --from ALBUM`).
    public var isRequired: Bool
    /// The only values accepted, if limited (`--kind photo|gif|video`).
    public var allowedValues: [String]?
    /// A one-letter spelling (`o` for `-o FILE`), for the few options that conventionally have one.
    public var short: Character?

    public init(
        name: String, kind: Kind, help: String, isRequired: Bool = false, allowedValues: [String]? = nil,
        short: Character? = nil
    ) {
        self.short = short
        self.name = name
        self.kind = kind
        self.help = help
        self.isRequired = isRequired
        self.allowedValues = allowedValues
    }

    /// `--name`.
    public static func flag(_ name: String, help: String) -> OptionSpec {
        OptionSpec(name: name, kind: .flag, help: help)
    }

    /// `--name VALUE`.
    public static func value(
        _ name: String, _ placeholder: String, help: String, required: Bool = false, allowed: [String]? = nil,
        short: Character? = nil
    ) -> OptionSpec {
        OptionSpec(
            name: name, kind: .value(placeholder: placeholder), help: help, isRequired: required,
            allowedValues: allowed, short: short)
    }

    /// How the option appears in a usage line: `--json`, `--album NAME`, `--kind photo|gif|video`.
    public var synopsis: String {
        switch kind {
        case .flag: return "--\(name)"
        case .value(let placeholder):
            let long = "--\(name) " + (allowedValues?.joined(separator: "|") ?? placeholder)
            return short.map { "-\($0)|" + long } ?? long
        }
    }
}

/// A positional argument.
public struct PositionalSpec: Sendable, Equatable {
    public enum Arity: Sendable, Equatable {
        /// Exactly one.
        case one
        /// Zero or one.
        case optional
        /// One or more (`PATH…`).
        case oneOrMore
    }

    /// The placeholder shown in usage (`PATH`, `ID`).
    public var name: String
    public var arity: Arity
    public var help: String

    public init(_ name: String, _ arity: Arity = .one, help: String) {
        self.name = name
        self.arity = arity
        self.help = help
    }

    /// `ID`, `[ID]`, `PATH…`.
    public var synopsis: String {
        switch arity {
        case .one: return name
        case .optional: return "[\(name)]"
        case .oneOrMore: return "\(name)…"
        }
    }
}
