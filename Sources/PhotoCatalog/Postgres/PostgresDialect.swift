/// Turns the catalog's SQL, written for SQLite, into PostgreSQL's: the statements are written once, in the subset the
/// two share (`ON CONFLICT … DO NOTHING / DO UPDATE`, `TRUE`, `CAST(… AS BIGINT)`), and only what has no common
/// spelling is rewritten here, outside string literals and quoted names:
///
/// - parameters: `?` and `?NNN` become `$1 …` (a bare `?` takes the next number, as in SQLite);
/// - a JSON array as a table: `json_each(?)` becomes `jsonb_array_elements_text($n::jsonb)`, and, where it is joined
///   under an alias for its order (`json_each(?) j … ORDER BY j.key`), `… WITH ORDINALITY AS j(value, key)`;
/// - `instr(a, b)` becomes `strpos(a, b)`; `unixepoch()` (now, in whole seconds) becomes
///   `CAST(extract(epoch FROM now()) AS BIGINT)`.
///
/// Anything else SQLite-only (`PRAGMA`, `sqlite_master`, the backup API) stays in the SQLite backend's own code.
enum PostgresDialect {
    /// A command without parameters as PostgreSQL spells it: SQLite's `BEGIN DEFERRED` (a read's snapshot) becomes a
    /// `REPEATABLE READ` transaction, whose reads all see one snapshot as in SQLite; `BEGIN IMMEDIATE` (a write)
    /// becomes `READ COMMITTED`, where unique constraints and row locks settle what two writers do at once.
    static func translateCommand(_ sql: String) -> String {
        switch sql.uppercased() {
        case "BEGIN DEFERRED": return "BEGIN ISOLATION LEVEL REPEATABLE READ"
        case "BEGIN IMMEDIATE", "BEGIN", "BEGIN EXCLUSIVE": return "BEGIN ISOLATION LEVEL READ COMMITTED"
        default: return translate(sql)
        }
    }

    static func translate(_ sql: String) -> String {
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 32)
        var nextParameter = 1
        var index = 0
        func word(at position: Int) -> Bool {
            position == 0 || !(isIdentifier(bytes[position - 1]))
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // A literal or a quoted name, copied whole (a doubled quote inside it stays inside it).
                let quote = byte
                output.append(byte)
                index += 1
                while index < bytes.count {
                    output.append(bytes[index])
                    if bytes[index] == quote {
                        if index + 1 < bytes.count && bytes[index + 1] == quote {
                            output.append(quote)
                            index += 2
                            continue
                        }
                        index += 1
                        break
                    }
                    index += 1
                }
            case UInt8(ascii: "?"):
                index += 1
                var digits = 0
                var number = 0
                while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                    number = number * 10 + Int(bytes[index] - UInt8(ascii: "0"))
                    digits += 1
                    index += 1
                }
                if digits == 0 {
                    number = nextParameter
                }
                nextParameter = max(nextParameter, number + 1)
                output.append(contentsOf: Array("$\(number)".utf8))
            default:
                if word(at: index), let rest = match(bytes, index, "json_each(") {
                    // The parameter (or expression) up to the closing parenthesis, translated on its own.
                    guard let close = closingParenthesis(bytes, from: rest) else {
                        output.append(byte)
                        index += 1
                        continue
                    }
                    let inner = translate(String(decoding: bytes[rest..<close], as: UTF8.self), startingAt: &nextParameter)
                    var after = close + 1
                    var spaces = after
                    while spaces < bytes.count && bytes[spaces] == UInt8(ascii: " ") { spaces += 1 }
                    var alias: String?
                    var aliasEnd = spaces
                    while aliasEnd < bytes.count && isIdentifier(bytes[aliasEnd]) { aliasEnd += 1 }
                    if aliasEnd > spaces {
                        let candidate = String(decoding: bytes[spaces..<aliasEnd], as: UTF8.self)
                        if !["ON", "WHERE", "ORDER", "JOIN", "AND", "OR", "GROUP", "LIMIT"].contains(candidate.uppercased()) {
                            alias = candidate
                            after = aliasEnd
                        }
                    }
                    var replacement = "jsonb_array_elements_text((\(inner))::jsonb)"
                    if let alias { replacement += " WITH ORDINALITY AS \(alias)(value, key)" }
                    output.append(contentsOf: Array(replacement.utf8))
                    index = after
                } else if word(at: index), let rest = match(bytes, index, "instr(") {
                    output.append(contentsOf: Array("strpos(".utf8))
                    index = rest
                } else if word(at: index), let rest = match(bytes, index, "unixepoch()") {
                    output.append(contentsOf: Array("CAST(extract(epoch FROM now()) AS BIGINT)".utf8))
                    index = rest
                } else {
                    output.append(byte)
                    index += 1
                }
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// ``translate(_:)`` of a fragment whose bare parameters continue a statement's numbering.
    private static func translate(_ fragment: String, startingAt next: inout Int) -> String {
        var result = ""
        var remaining = Substring(fragment)
        while let mark = remaining.firstIndex(of: "?") {
            result += remaining[..<mark]
            remaining = remaining[remaining.index(after: mark)...]
            let digits = remaining.prefix { $0.isASCII && $0.isNumber }
            let number = digits.isEmpty ? next : Int(digits)!
            remaining = remaining.dropFirst(digits.count)
            next = max(next, number + 1)
            result += "$\(number)"
        }
        return result + remaining
    }

    private static func isIdentifier(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z")) || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: "_")
    }

    /// The index after `word` when `bytes` spell it at `index` (ASCII letters compared without case).
    private static func match(_ bytes: [UInt8], _ index: Int, _ word: String) -> Int? {
        let pattern = Array(word.utf8)
        guard index + pattern.count <= bytes.count else { return nil }
        for offset in 0..<pattern.count where bytes[index + offset] | 0x20 != pattern[offset] | 0x20 {
            return nil
        }
        return index + pattern.count
    }

    /// The index of the parenthesis that closes one opened just before `from`.
    private static func closingParenthesis(_ bytes: [UInt8], from: Int) -> Int? {
        var depth = 1
        var index = from
        while index < bytes.count {
            if bytes[index] == UInt8(ascii: "(") { depth += 1 }
            if bytes[index] == UInt8(ascii: ")") {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return nil
    }
}
