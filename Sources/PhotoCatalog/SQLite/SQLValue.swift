import FoundationEssentials

/// A value bound to a statement parameter or read from a result column.
public enum SQLValue: Sendable, Hashable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob(Data)
}

extension SQLValue: ExpressibleByNilLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByStringLiteral, ExpressibleByBooleanLiteral
{
    public init(nilLiteral: ()) { self = .null }
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(floatLiteral value: Double) { self = .real(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(booleanLiteral value: Bool) { self = .integer(value ? 1 : 0) }

    /// An optional string as text or NULL.
    static func optional(_ value: String?) -> SQLValue { value.map(SQLValue.text) ?? .null }
    /// An optional double as real or NULL.
    static func optional(_ value: Double?) -> SQLValue { value.map(SQLValue.real) ?? .null }
    /// A Boolean as 0 or 1.
    static func bool(_ value: Bool) -> SQLValue { .integer(value ? 1 : 0) }
}
