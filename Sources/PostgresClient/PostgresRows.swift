/// The rows a statement returned, every value as PostgreSQL's text form (nil for SQL NULL), and how many rows a
/// command changed.
public struct PostgresRows: Sendable, Hashable {
    /// The columns' names, in order.
    public var columns: [String]
    /// The rows, each with one value per column.
    public var rows: [[String?]]
    /// Rows inserted, updated or deleted by a command (0 for a query).
    public var affected: Int

    public init(columns: [String] = [], rows: [[String?]] = [], affected: Int = 0) {
        self.columns = columns
        self.rows = rows
        self.affected = affected
    }

    public var isEmpty: Bool { rows.isEmpty }
    public var count: Int { rows.count }

    /// The value of `column` (by name) in row `row`; nil when NULL or when there is no such column.
    public subscript(row: Int, column: String) -> String? {
        guard let index = columns.firstIndex(of: column), rows.indices.contains(row) else { return nil }
        return rows[row][index]
    }

    /// The first column of the first row: what `SELECT count(*)` and friends answer.
    public var scalar: String? { rows.first?.first ?? nil }
}
