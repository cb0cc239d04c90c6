import CSQLite
import FoundationEssentials

/// A prepared SQLite statement (`sqlite3_stmt`), finalized when it is released.
///
/// A statement belongs to one connection and is confined to the thread that uses that connection: it is deliberately
/// not `Sendable`. Bind parameters with ``bind(_:at:)-(Int64,_)`` (1-based, as in SQLite), advance with ``step()``, read
/// columns (0-based) with ``int64(_:)`` and friends, and ``reset()`` before running it again.
public final class Statement {
    /// The engine's prepared statement.
    enum Prepared {
        case sqlite(OpaquePointer)
        case postgres(PostgresStatement)
    }

    let prepared: Prepared
    /// The SQL text the statement was prepared from.
    public let sql: String
    /// The connection handle; `sqlite3_close_v2` keeps it alive until every statement is finalized.
    private let connection: OpaquePointer?
    private let path: String?

    init(database: Database, sql: String) throws {
        self.sql = sql
        self.path = database.path
        switch database.engine {
        case .postgres(let session):
            prepared = .postgres(PostgresStatement(session: session, sql: sql))
            connection = nil
        case .sqlite(let handle):
            var statement: OpaquePointer?
            var tail: UnsafePointer<CChar>?
            let code = sql.withCString { text in
                sqlite3_prepare_v3(handle, text, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, &tail)
            }
            guard code == SQLITE_OK, let statement else {
                throw DatabaseError(connection: handle, code: code, sql: sql, path: database.path)
            }
            prepared = .sqlite(statement)
            connection = handle
        }
    }

    deinit {
        if case .sqlite(let handle) = prepared { sqlite3_finalize(handle) }
    }

    // MARK: Binding

    /// Binds an integer to the 1-based parameter `index` (`sqlite3_bind_int64`).
    public func bind(_ value: Int64, at index: Int32) throws {
        switch prepared {
        case .sqlite(let handle): try check(sqlite3_bind_int64(handle, index, value))
        case .postgres(let statement): statement.bind(String(value), at: index)
        }
    }
    /// Binds a Swift `Int` as a 64-bit integer.
    public func bind(_ value: Int, at index: Int32) throws { try bind(Int64(value), at: index) }
    /// Binds a Boolean as 0 or 1.
    public func bind(_ value: Bool, at index: Int32) throws { try bind(Int64(value ? 1 : 0), at: index) }
    /// Binds a real number (`sqlite3_bind_double`).
    public func bind(_ value: Double, at index: Int32) throws {
        switch prepared {
        case .sqlite(let handle): try check(sqlite3_bind_double(handle, index, value))
        case .postgres(let statement): statement.bind(PostgresText.text(value), at: index)
        }
    }
    /// Binds text with its exact UTF-8 length (so embedded NUL characters survive); SQLite copies it
    /// (`sqlite3_bind_text` with `SQLITE_TRANSIENT`).
    public func bind(_ value: String, at index: Int32) throws {
        let handle: OpaquePointer
        switch prepared {
        case .sqlite(let sqlite): handle = sqlite
        case .postgres(let statement): return statement.bind(value, at: index)
        }
        var text = value
        let code = text.withUTF8 { bytes -> Int32 in
            // An empty buffer may have no address, and a NULL pointer would bind SQL NULL instead of ''.
            guard let base = bytes.baseAddress, !bytes.isEmpty else {
                return sqlite3_bind_text(handle, index, "", 0, photodrop_sqlite_transient())
            }
            return base.withMemoryRebound(to: CChar.self, capacity: bytes.count) {
                sqlite3_bind_text(handle, index, $0, Int32(bytes.count), photodrop_sqlite_transient())
            }
        }
        try check(code)
    }
    /// Binds a blob; SQLite copies it.
    public func bind(_ value: Data, at index: Int32) throws {
        let handle: OpaquePointer
        switch prepared {
        case .sqlite(let sqlite): handle = sqlite
        case .postgres(let statement): return statement.bind(PostgresText.hex(value), at: index)
        }
        let code = value.withUnsafeBytes { bytes in
            sqlite3_bind_blob(handle, index, bytes.baseAddress, Int32(bytes.count), photodrop_sqlite_transient())
        }
        try check(code)
    }
    /// Binds NULL.
    public func bindNull(at index: Int32) throws {
        switch prepared {
        case .sqlite(let handle): try check(sqlite3_bind_null(handle, index))
        case .postgres(let statement): statement.bind(nil, at: index)
        }
    }
    /// Binds text or NULL.
    public func bind(_ value: String?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }
    /// Binds a real number or NULL.
    public func bind(_ value: Double?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }
    /// Binds an integer or NULL.
    public func bind(_ value: Int64?, at index: Int32) throws {
        if let value { try bind(value, at: index) } else { try bindNull(at: index) }
    }
    /// Binds any ``SQLValue``.
    public func bind(_ value: SQLValue, at index: Int32) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let v): try bind(v, at: index)
        case .real(let v): try bind(v, at: index)
        case .text(let v): try bind(v, at: index)
        case .blob(let v): try bind(v, at: index)
        }
    }
    /// Binds `values` to parameters 1, 2, ….
    public func bind(_ values: [SQLValue]) throws {
        for (offset, value) in values.enumerated() { try bind(value, at: Int32(offset + 1)) }
    }

    // MARK: Running

    /// Advances to the next row: `true` when a row is available, `false` when the statement is done.
    @discardableResult
    public func step() throws -> Bool {
        let handle: OpaquePointer
        switch prepared {
        case .sqlite(let sqlite): handle = sqlite
        case .postgres(let statement): return try statement.step()
        }
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = DatabaseError(connection: connection, code: code, sql: sql, path: path)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so it can run again and clears its bindings.
    public func reset() {
        switch prepared {
        case .sqlite(let handle):
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        case .postgres(let statement):
            statement.reset()
        }
    }

    /// Runs the statement to completion with the given bindings, then resets it.
    public func execute(_ values: [SQLValue] = []) throws {
        defer { reset() }
        try bind(values)
        while try step() {}
    }

    // MARK: Columns

    /// The number of result columns.
    public var columnCount: Int32 {
        switch prepared {
        case .sqlite(let handle): return sqlite3_column_count(handle)
        case .postgres(let statement): return statement.columnCount
        }
    }
    /// Whether column `index` of the current row is NULL.
    public func isNull(_ index: Int32) -> Bool {
        switch prepared {
        case .sqlite(let handle): return sqlite3_column_type(handle, index) == SQLITE_NULL
        case .postgres(let statement): return statement.value(index) == .null
        }
    }
    /// Column `index` as an integer (0 for NULL).
    public func int64(_ index: Int32) -> Int64 {
        switch prepared {
        case .sqlite(let handle): return sqlite3_column_int64(handle, index)
        case .postgres(let statement):
            switch statement.value(index) {
            case .integer(let number): return number
            case .real(let number): return number.isFinite ? Int64(number) : 0
            case .text(let text): return Int64(text) ?? 0
            case .null, .blob: return 0
            }
        }
    }
    /// Column `index` as an `Int`.
    public func int(_ index: Int32) -> Int { Int(int64(index)) }
    /// Column `index` as a Boolean (non-zero is `true`).
    public func bool(_ index: Int32) -> Bool { int64(index) != 0 }
    /// Column `index` as a real number (0 for NULL).
    public func double(_ index: Int32) -> Double {
        switch prepared {
        case .sqlite(let handle): return sqlite3_column_double(handle, index)
        case .postgres(let statement):
            switch statement.value(index) {
            case .integer(let number): return Double(number)
            case .real(let number): return number
            case .text(let text): return Double(text) ?? 0
            case .null, .blob: return 0
            }
        }
    }
    /// Column `index` as a real number, or nil for NULL.
    public func optionalDouble(_ index: Int32) -> Double? { isNull(index) ? nil : double(index) }
    /// Column `index` as an integer, or nil for NULL.
    public func optionalInt64(_ index: Int32) -> Int64? { isNull(index) ? nil : int64(index) }
    /// Column `index` as text ("" for NULL).
    public func string(_ index: Int32) -> String {
        switch prepared {
        case .sqlite(let handle):
            guard let text = sqlite3_column_text(handle, index) else { return "" }
            let count = Int(sqlite3_column_bytes(handle, index))
            return String(decoding: UnsafeRawBufferPointer(start: text, count: count), as: UTF8.self)
        case .postgres(let statement):
            switch statement.value(index) {
            case .integer(let number): return String(number)
            case .real(let number): return PostgresText.text(number)
            case .text(let text): return text
            case .blob(let data): return String(decoding: data, as: UTF8.self)
            case .null: return ""
            }
        }
    }
    /// Column `index` as text, or nil for NULL.
    public func optionalString(_ index: Int32) -> String? { isNull(index) ? nil : string(index) }
    /// Column `index` as bytes (empty for NULL).
    public func data(_ index: Int32) -> Data {
        switch prepared {
        case .sqlite(let handle):
            guard let bytes = sqlite3_column_blob(handle, index) else { return Data() }
            return Data(bytes: bytes, count: Int(sqlite3_column_bytes(handle, index)))
        case .postgres(let statement):
            switch statement.value(index) {
            case .blob(let data): return data
            case .null: return Data()
            default: return Data(string(index).utf8)
            }
        }
    }
    /// Column `index` as a ``SQLValue``.
    public func value(_ index: Int32) -> SQLValue {
        switch prepared {
        case .sqlite(let handle):
            switch sqlite3_column_type(handle, index) {
            case SQLITE_INTEGER: return .integer(int64(index))
            case SQLITE_FLOAT: return .real(double(index))
            case SQLITE_TEXT: return .text(string(index))
            case SQLITE_BLOB: return .blob(data(index))
            default: return .null
            }
        case .postgres(let statement):
            return statement.value(index)
        }
    }

    private func check(_ code: Int32) throws {
        guard code == SQLITE_OK else {
            throw DatabaseError(connection: connection, code: code, sql: sql, path: path)
        }
    }
}
