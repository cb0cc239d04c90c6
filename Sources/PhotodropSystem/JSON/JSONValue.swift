import Glibc
/// A parsed JSON value that remembers where in its text it started.
///
/// ``IngestConfig`` walks these instead of `JSONSerialization` results so that every error can name the key, the
/// line and the column, tell `true` from `1`, and notice a key that appears twice.
public struct JSONValue: Sendable, Equatable {
    /// A line and column (both 1-based, columns counted in Unicode scalars) in the parsed text.
    public struct Position: Sendable, Hashable, CustomStringConvertible {
        public var line: Int
        public var column: Int

        public init(line: Int, column: Int) {
            self.line = line
            self.column = column
        }

        public var description: String { "\(line):\(column)" }
    }

    /// One member of an object, in the order it was written.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var keyPosition: Position
        public var value: JSONValue
    }

    /// What kind of value this is.
    public indirect enum Kind: Sendable, Equatable {
        case object([Member])
        case array([JSONValue])
        case string(String)
        /// A number exactly as written (`"2000"`, `"1.5e3"`), so callers decide how strict to be.
        case number(String)
        case bool(Bool)
        case null
    }

    public var kind: Kind
    public var position: Position

    public init(_ kind: Kind, at position: Position) {
        self.kind = kind
        self.position = position
    }

    /// A short name of the value's type for error messages: "an object", "a string", "the number 1.5", …
    public var typeDescription: String {
        switch kind {
        case .object: return "an object"
        case .array: return "a list"
        case .string(let text): return "the string \"\(text)\""
        case .number(let text): return "the number \(text)"
        case .bool(let value): return value ? "true" : "false"
        case .null: return "null"
        }
    }
}
