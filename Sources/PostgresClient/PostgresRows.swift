/// The rows a statement returned, every value as PostgreSQL's text form (nil for SQL NULL), and how many rows a
/// command changed.
public struct PostgresRows: Sendable, Hashable {
    /// The columns' names, in order.
    public var columns: [String]
    /// The columns' types, as PostgreSQL's type OIDs (``PostgresType``).
    public var types: [UInt32]
    /// The rows, each with one value per column.
    public var rows: [[String?]]
    /// Rows inserted, updated or deleted by a command (0 for a query).
    public var affected: Int

    public init(columns: [String] = [], types: [UInt32] = [], rows: [[String?]] = [], affected: Int = 0) {
        self.columns = columns
        self.types = types
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

/// The type OIDs photodrop reads (`pg_type.oid`; fixed in PostgreSQL's catalog).
public enum PostgresType {
    public static let boolean: UInt32 = 16
    public static let bytea: UInt32 = 17
    public static let bigint: UInt32 = 20
    public static let smallint: UInt32 = 21
    public static let integer: UInt32 = 23
    public static let text: UInt32 = 25
    public static let real: UInt32 = 700
    public static let doublePrecision: UInt32 = 701
    public static let numeric: UInt32 = 1700

    /// Whether values of `type` are whole numbers.
    public static func isInteger(_ type: UInt32) -> Bool { [bigint, smallint, integer].contains(type) }
    /// Whether values of `type` are floating-point or decimal numbers.
    public static func isReal(_ type: UInt32) -> Bool { [real, doublePrecision, numeric].contains(type) }
}
