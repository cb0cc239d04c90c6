import PhotodropSystem

/// A field value of a log line: written bare or quoted in text logs, typed in JSON logs.
public enum LogValue: Sendable, Hashable, CustomStringConvertible, ExpressibleByStringLiteral,
    ExpressibleByStringInterpolation, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral
{
    case string(String)
    case int(Int64)
    case double(Double)
    case bool(Bool)

    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }

    /// An integer field.
    public static func count(_ value: some BinaryInteger) -> LogValue { .int(Int64(value)) }

    public var description: String {
        switch self {
        case .string(let text): return text
        case .int(let number): return String(number)
        case .double(let number): return String(number)
        case .bool(let flag): return flag ? "true" : "false"
        }
    }

    /// Writes the value as the next JSON value of `writer` (a number that is not finite as `null`).
    func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let text): writer.string(text)
        case .int(let number): writer.int(number)
        case .double(let number): writer.double(number)
        case .bool(let flag): writer.bool(flag)
        }
    }
}
