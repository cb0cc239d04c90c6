import PhotodropSystem

/// Everything wrong with a configuration file, each problem naming the file, the key and what is allowed.
///
/// The description has one line per problem, in the style of a compiler:
/// `/srv/photodrop/config.json:4:3: "workers": must be a whole number from 0 to 128 (0 = one per core); found "4"`.
public struct ConfigError: Error, Sendable, Equatable, CustomStringConvertible {
    /// One thing wrong with the configuration.
    public struct Problem: Sendable, Equatable, CustomStringConvertible {
        /// The dotted key path (`video.audioCodecs[2]`), or nil for problems with the file as a whole.
        public var key: String?
        /// Where in the file, when known.
        public var position: JSONValue.Position?
        /// What is wrong and what is allowed.
        public var message: String

        public init(key: String?, position: JSONValue.Position?, message: String) {
            self.key = key
            self.position = position
            self.message = message
        }

        public var description: String {
            key.map { "\"\($0)\": \(message)" } ?? message
        }
    }

    /// The configuration file, as the user named it or as it was found.
    public var file: String
    /// All problems found, in file order.
    public var problems: [Problem]

    public init(file: String, problems: [Problem]) {
        self.file = file
        self.problems = problems
    }

    public var description: String {
        problems.map { problem in
            let location = problem.position.map { "\(file):\($0.line):\($0.column)" } ?? file
            return "\(location): \(problem)"
        }.joined(separator: "\n")
    }
}
