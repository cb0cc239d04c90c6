import FoundationEssentials

import PhotodropSystem

/// A JSON value whose object members keep the order they were built in, rendered on one line.
///
/// The command line builds its `--json` output from these (see ``CatalogJSON``), so that field order is stable and
/// readable, `true` never turns into `1`, and every line is one complete value.
public enum JSONNode: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case double(Double)
    /// A number exactly as another encoder wrote it.
    case number(String)
    case string(String)
    case array([JSONNode])
    case object([(String, JSONNode)])

    /// A string, or `null` for nil.
    public static func string(_ value: String?) -> JSONNode { value.map { .string($0) } ?? .null }

    /// An integer.
    public static func int(_ value: Int) -> JSONNode { .int(Int64(value)) }

    /// An array of strings.
    public static func strings(_ values: [String]) -> JSONNode { .array(values.map { .string($0) }) }

    /// The compact JSON text.
    public var text: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    /// Writes the value as the next JSON value of `writer`.
    public func write(to writer: inout JSONWriter) {
        switch self {
        case .null: writer.null()
        case .bool(let value): writer.bool(value)
        case .int(let value): writer.int(value)
        case .double(let value): writer.double(value)
        case .number(let text): writer.number(text)
        case .string(let text): writer.string(text)
        case .array(let values):
            writer.beginArray()
            for value in values { value.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for (key, value) in members {
                writer.key(key)
                value.write(to: &writer)
            }
            writer.endObject()
        }
    }

    /// The members of an object (empty for other values).
    public var members: [(String, JSONNode)] {
        if case .object(let members) = self { return members }
        return []
    }

    /// The value `encoder` makes of `value`, members in the encoder's order; dates as ISO 8601 UTC with milliseconds.
    ///
    /// Too slow for output per file; the tests hold the directly built shapes (``CatalogJSON/probeItem(path:result:)``)
    /// to what it makes of the `Codable` types.
    public init(encoding value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(CatalogJSON.timestamp(date))
        }
        let data = try encoder.encode(value)
        self.init(try JSONParser.parse([UInt8](data)))
    }

    /// Converts a parsed value, keeping member order and numbers as written.
    public init(_ value: JSONValue) {
        switch value.kind {
        case .null: self = .null
        case .bool(let flag): self = .bool(flag)
        case .number(let text): self = .number(text)
        case .string(let text): self = .string(text)
        case .array(let values): self = .array(values.map(JSONNode.init))
        case .object(let members): self = .object(members.map { ($0.key, JSONNode($0.value)) })
        }
    }
}
