import FoundationEssentials

/// Rows gathered for one multi-row `INSERT` on PostgreSQL: sent as one JSON array of objects and expanded by
/// `json_populate_recordset` into the table's own row type, so that a hundred rows cost one round trip and one
/// statement text (one prepared statement, whatever the count) instead of a hundred.
///
/// For rows whose ids come back (``insertReturningIDs(into:)``: a claim batch's journal entries, a block's outcome
/// records). A block's new assets, resources and album memberships go by ``PostgresCopyRows``, which costs the
/// server less but returns nothing.
///
/// Values keep their exact form: integers as JSON integers, doubles in Swift's shortest round-trip notation (which
/// PostgreSQL's `float8` input reads back to the same bits), text escaped as JSON strings.
struct PostgresBulkRows {
    let table: String
    let columns: [String]
    private var json: [UInt8] = Array("[".utf8)
    private(set) var count = 0

    init(table: String, columns: [String]) {
        self.table = table
        self.columns = columns
    }

    var isEmpty: Bool { count == 0 }

    /// Adds one row, its values in ``columns``' order.
    mutating func append(_ values: [SQLValue]) {
        precondition(values.count == columns.count, "one value per column")
        if count > 0 { json.append(UInt8(ascii: ",")) }
        json.append(UInt8(ascii: "{"))
        for (index, value) in values.enumerated() {
            if index > 0 { json.append(UInt8(ascii: ",")) }
            Self.appendString(columns[index], to: &json)
            json.append(UInt8(ascii: ":"))
            Self.append(value, to: &json)
        }
        json.append(UInt8(ascii: "}"))
        count += 1
    }

    /// The statement that inserts the rows (`ordered`: in the order they were appended; `suffix`: `ON CONFLICT …`,
    /// `RETURNING …`), and its one parameter.
    private func statement(ordered: Bool = false, suffix: String = "") -> (sql: String, value: SQLValue) {
        let list = columns.joined(separator: ", ")
        let sql =
            "INSERT INTO \(table)(\(list)) SELECT \(list) FROM json_populate_recordset(CAST(NULL AS \(table)), "
            + "CAST(? AS json))" + (ordered ? " WITH ORDINALITY AS rows ORDER BY ordinality" : "")
            + (suffix.isEmpty ? "" : " " + suffix)
        return (sql, .text(String(decoding: json + Array("]".utf8), as: UTF8.self)))
    }

    /// Inserts the rows and returns their new ids (the table's `id` column) in the order the rows were appended.
    ///
    /// The rows are inserted in that order (`WITH ORDINALITY … ORDER BY`), so their identity values rise in it, and the
    /// ids that come back are sorted: another session inserting at the same moment may take values in between, but
    /// never reorders this statement's own.
    mutating func insertReturningIDs(into database: Database) throws -> [Int64] {
        guard count > 0 else { return [] }
        let (sql, value) = statement(ordered: true, suffix: "RETURNING id")
        let ids = try database.rows(sql, [value]) { $0.int64(0) }.sorted()
        json = Array("[".utf8)
        count = 0
        return ids
    }

    private static func append(_ value: SQLValue, to json: inout [UInt8]) {
        switch value {
        case .null: json += Array("null".utf8)
        case .integer(let number): json += Array(String(number).utf8)
        case .real(let number): json += Array((number.isFinite ? "\(number)" : "null").utf8)
        case .text(let text): appendString(text, to: &json)
        case .blob(let data):
            // bytea's hex input form (`\x0a1b…`) as a JSON string, whose backslash JSON escapes.
            json += Array("\"\\\\x".utf8)
            let digits = Array("0123456789abcdef".utf8)
            for byte in data {
                json.append(digits[Int(byte >> 4)])
                json.append(digits[Int(byte & 0x0f)])
            }
            json.append(UInt8(ascii: "\""))
        }
    }

    private static func appendString(_ text: String, to json: inout [UInt8]) {
        json.append(UInt8(ascii: "\""))
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): json += Array("\\\"".utf8)
            case UInt8(ascii: "\\"): json += Array("\\\\".utf8)
            case 0..<0x20:
                let hex = String(byte, radix: 16)
                json += Array(("\\u00" + (hex.count == 1 ? "0" + hex : hex)).utf8)
            default: json.append(byte)
            }
        }
        json.append(UInt8(ascii: "\""))
    }
}
