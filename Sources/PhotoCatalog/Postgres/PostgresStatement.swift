import FoundationEssentials
import PostgresClient

/// The PostgreSQL side of a ``Statement``: its translated SQL, the parameters bound so far (as text), and the result
/// of its run, which ``Statement/step()`` walks row by row as it walks SQLite's.
///
/// The statement runs at its first step, whole: PostgreSQL sends every row at once (photodrop's queries are paged,
/// so a result is small), and the rows are read from memory after that.
final class PostgresStatement {
    let session: PostgresSession
    /// The SQL in the catalog's dialect (the key its server-side statement is prepared under) and translated.
    let sql: String
    let translated: String
    private(set) var parameters: [String?] = []
    private(set) var result: PostgresRows?
    private(set) var row = -1

    init(session: PostgresSession, sql: String) {
        self.session = session
        self.sql = sql
        self.translated = PostgresDialect.translate(sql)
    }

    /// Binds text (nil for NULL) to the 1-based parameter `index`.
    func bind(_ text: String?, at index: Int32) {
        let position = Int(index) - 1
        guard position >= 0 else { return }
        if parameters.count <= position { parameters.append(contentsOf: repeatElement(nil, count: position + 1 - parameters.count)) }
        parameters[position] = text
    }

    /// Runs the statement at the first call; then moves to the next row: whether there is one.
    func step() throws -> Bool {
        if result == nil {
            result = try session.run(sql, translated: translated, parameters)
            row = -1
        }
        row += 1
        return row < result!.rows.count
    }

    /// Forgets the result and the bindings, ready to run again.
    func reset() {
        result = nil
        row = -1
        parameters.removeAll(keepingCapacity: true)
    }

    /// The current row's column `column`.
    func value(_ column: Int32) -> SQLValue {
        guard let result, row >= 0, row < result.rows.count else { return .null }
        return PostgresText.value(result, row: row, column: Int(column))
    }

    var columnCount: Int32 { Int32(result?.columns.count ?? 0) }
}
