/// Accumulates SQL text and its positional parameters in the same order.
struct SQLBuilder {
    private(set) var sql = ""
    private(set) var values: [SQLValue] = []

    /// Appends SQL text.
    mutating func append(_ text: String) { sql += text }

    /// Appends a `?` bound to `value`.
    mutating func bind(_ value: SQLValue) {
        sql += "?"
        values.append(value)
    }
}
