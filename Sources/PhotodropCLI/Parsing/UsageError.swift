/// A command line that cannot be run: names the bad argument, suggests a fix, exits with status 2.
///
/// Printed as
/// ```
/// photodrop import: unknown option '--albm'. Did you mean '--album'?
/// Usage: photodrop import PATH… [--album NAME] [--move] [--dry-run] [--json]
/// Run 'photodrop import --help' for more.
/// ```
public struct UsageError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What is wrong, naming the argument.
    public var message: String
    /// The command it concerns (empty for the top level).
    public var commandPath: [String]
    /// The command's usage line(s).
    public var usage: String

    public init(message: String, commandPath: [String], usage: String) {
        self.message = message
        self.commandPath = commandPath
        self.usage = usage
    }

    public var description: String {
        let command = (["photodrop"] + commandPath).joined(separator: " ")
        return "\(command): \(message)\n\(usage)\nRun '\(command) --help' for more.\n"
    }
}
