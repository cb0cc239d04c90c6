import FoundationEssentials
import PostgresClient

/// Values between ``SQLValue`` and PostgreSQL's text form, as parameters go out and columns come back.
enum PostgresText {
    /// A value in PostgreSQL's text form; nil for NULL. Blobs go as `bytea` hex (`\x00ff`).
    static func text(_ value: SQLValue) -> String? {
        switch value {
        case .null: return nil
        case .integer(let number): return String(number)
        case .real(let number): return text(number)
        case .text(let string): return string
        case .blob(let data): return hex(data)
        }
    }

    /// A double as text that reads back as the same value (Swift prints the shortest such text).
    static func text(_ number: Double) -> String {
        if number.isFinite { return "\(number)" }
        return number.isNaN ? "NaN" : number > 0 ? "Infinity" : "-Infinity"
    }

    /// Bytes as `bytea`'s hex text form.
    static func hex(_ data: Data) -> String {
        var text = [UInt8]()
        text.reserveCapacity(2 + data.count * 2)
        text.append(UInt8(ascii: "\\"))
        text.append(UInt8(ascii: "x"))
        let digits = Array("0123456789abcdef".utf8)
        for byte in data {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 15)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// `bytea`'s hex text form (`\x00ff`) as bytes; other text as its UTF-8.
    static func bytes(_ text: String) -> [UInt8] {
        let utf8 = Array(text.utf8)
        guard utf8.count >= 2, utf8[0] == UInt8(ascii: "\\"), utf8[1] == UInt8(ascii: "x") else { return utf8 }
        func nibble(_ byte: UInt8) -> UInt8 {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
            default: return 0
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity((utf8.count - 2) / 2)
        var index = 2
        while index + 1 < utf8.count {
            bytes.append(nibble(utf8[index]) << 4 | nibble(utf8[index + 1]))
            index += 2
        }
        return bytes
    }

    /// Column `column` of row `row` of `rows` as a ``SQLValue``, by the column's type: whole numbers and booleans
    /// (`t`/`f`, what `x IS NOT NULL` gives) as integers, as SQLite gives them; reals; `bytea` as a blob; else text.
    static func value(_ rows: PostgresRows, row: Int, column: Int) -> SQLValue {
        guard column < rows.columns.count, let text = rows.rows[row][column] else { return .null }
        let type = rows.types[column]
        if type == PostgresType.boolean { return .integer(text == "t" ? 1 : 0) }
        if PostgresType.isInteger(type) { return .integer(Int64(text) ?? 0) }
        if PostgresType.isReal(type) { return .real(Double(text) ?? 0) }
        if type == PostgresType.bytea { return .blob(Data(bytes(text))) }
        return .text(text)
    }
}
