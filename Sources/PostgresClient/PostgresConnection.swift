import CPostgres
import PhotodropSystem
import Synchronization

/// One connection to a PostgreSQL server through libpq, which is loaded the first time a connection is made (a
/// photodrop that keeps its catalog in SQLite never maps it).
///
/// Values go both ways in PostgreSQL's text form, parameters always as `$1 …` (never spliced into the SQL). Calls are
/// serialized by a lock: a connection runs one statement at a time, whichever thread asks.
public final class PostgresConnection: Sendable {
    /// libpq's connection; only touched under ``lock``.
    private nonisolated(unsafe) let handle: UnsafeMutableRawPointer
    private let lock = Mutex(())
    /// The server's version number (`150018` for 15.18).
    public let serverVersion: Int

    /// Loads libpq, or says why it cannot be.
    public static func loadClientLibrary() throws(PostgresError) {
        var buffer = [CChar](repeating: 0, count: 512)
        if pd_pq_load(&buffer, buffer.count) != 0 {
            throw PostgresError(.clientLibraryMissing, message: Self.text(buffer))
        }
    }

    /// Connects with a libpq connection string or URI (`postgresql:///photodrop?host=/run/postgresql`,
    /// `host=db dbname=photodrop sslmode=require`); `password`, when given, overrides one in the string (kept out of
    /// the configuration in a file of its own).
    ///
    /// - Throws: ``PostgresError`` of kind `.connection` with libpq's reason (refused, unknown database, wrong password).
    public init(
        connectionString: String, password: String? = nil, applicationName: String = "photodrop",
        connectTimeoutSeconds: Int = 10
    ) throws(PostgresError) {
        try Self.loadClientLibrary()
        var pairs: [(String, String)] = [
            ("dbname", connectionString), ("application_name", applicationName),
            ("connect_timeout", String(connectTimeoutSeconds)),
        ]
        // Keys after `dbname` override what its expansion set, so only the password is added after it when given.
        if let password { pairs.append(("password", password)) }
        let connection = Self.withCStrings(pairs.map(\.0) + [nil]) { keywords in
            Self.withCStrings(pairs.map(\.1) + [nil]) { values in pd_pq_connect(keywords, values) }
        }
        guard let connection else { throw PostgresError(.connection, message: "out of memory") }
        guard pd_pq_connection_ok(connection) != 0 else {
            let message = Self.oneLine(String(cString: pd_pq_error_message(connection)))
            pd_pq_finish(connection)
            throw PostgresError(.connection, message: message)
        }
        handle = connection
        serverVersion = Int(pd_pq_server_version(connection))
    }

    deinit {
        pd_pq_finish(handle)
    }

    /// Whether the connection is still good as far as libpq knows (it learns of a break on the next call).
    public var isAlive: Bool { lock.withLock { _ in pd_pq_connection_alive(handle) != 0 } }

    /// Whether a transaction is open (also a failed one, which only `ROLLBACK` ends).
    public var isInTransaction: Bool {
        lock.withLock { _ in
            let status = pd_pq_transaction_status(handle)
            return status == 2 || status == 3
        }
    }

    /// Runs `sql` with `parameters` (`$1 …`; nil is NULL) and returns its rows.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws(PostgresError) -> PostgresRows {
        try Self.checkNoNUL(parameters)
        return try lock.withLock { _ throws(PostgresError) in
            let result = Self.withCStrings(parameters) { values in
                pd_pq_execute(handle, sql, Int32(parameters.count), values)
            }
            return try rows(of: result)
        }
    }

    /// Runs a script of several statements separated by semicolons, without parameters (a schema's DDL); inside a
    /// transaction of the caller's, or as one implicit transaction of its own.
    public func executeScript(_ sql: String) throws(PostgresError) {
        try lock.withLock { _ throws(PostgresError) in
            _ = try rows(of: pd_pq_execute_script(handle, sql))
        }
    }

    /// Prepares `sql` as the statement `name` on this connection (statements last as long as the connection).
    public func prepare(_ name: String, _ sql: String, parameterCount: Int) throws(PostgresError) {
        try lock.withLock { _ throws(PostgresError) in
            _ = try rows(of: pd_pq_prepare(handle, name, sql, Int32(parameterCount)))
        }
    }

    /// Runs the prepared statement `name`.
    @discardableResult
    public func executePrepared(_ name: String, _ parameters: [String?]) throws(PostgresError) -> PostgresRows {
        try Self.checkNoNUL(parameters)
        return try lock.withLock { _ throws(PostgresError) in
            let result = Self.withCStrings(parameters) { values in
                pd_pq_execute_prepared(handle, name, Int32(parameters.count), values)
            }
            return try rows(of: result)
        }
    }

    /// Runs `sql`, a `COPY … FROM STDIN` in text format, with `data` as its rows (PostgreSQL's text form: columns
    /// separated by tabs, rows ended by newlines, `\N` for NULL, backslash escapes); returns how many rows it stored.
    /// The cheapest way to store many rows: no statement to parse per row and no JSON to take apart.
    @discardableResult
    public func copyIn(_ sql: String, data: [UInt8]) throws(PostgresError) -> Int {
        try lock.withLock { _ throws(PostgresError) in
            let result = data.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { pd_pq_copy_in(handle, sql, $0.baseAddress, $0.count) }
            }
            return try rows(of: result).affected
        }
    }

    /// How a transaction sees the others.
    public enum Isolation: String, Sendable {
        case readCommitted = "READ COMMITTED"
        case repeatableRead = "REPEATABLE READ"
        case serializable = "SERIALIZABLE"
    }

    /// Runs `body` in one transaction: committed when it returns, rolled back when it throws (and the error rethrown).
    public func transaction<T>(
        _ isolation: Isolation = .readCommitted, readOnly: Bool = false, _ body: () throws -> T
    ) throws -> T {
        try execute("BEGIN ISOLATION LEVEL \(isolation.rawValue)" + (readOnly ? " READ ONLY" : ""))
        let value: T
        do {
            value = try body()
        } catch {
            _ = try? execute("ROLLBACK")
            throw error
        }
        try execute("COMMIT")
        return value
    }

    /// The notifications that arrived for the channels this connection `LISTEN`s on, waiting up to `milliseconds`
    /// for the first when none is there yet (0: only look).
    public func notifications(waitingUpTo milliseconds: Int32) throws(PostgresError) -> [PostgresNotification] {
        var received = try lock.withLock { _ throws(PostgresError) in try takeNotifications() }
        if !received.isEmpty || milliseconds <= 0 { return received }
        let socket = lock.withLock { _ in pd_pq_socket(handle) }
        guard socket >= 0 else { throw PostgresError(.connection, message: "the connection to PostgreSQL is closed") }
        do {
            _ = try FileDescriptor(borrowing: socket).waitUntilReadable(milliseconds: milliseconds)
        } catch {
            throw PostgresError(.connection, message: "waiting for PostgreSQL: \(error.description)")
        }
        received = try lock.withLock { _ throws(PostgresError) in try takeNotifications() }
        return received
    }

    // MARK: - Inside the lock

    private func takeNotifications() throws(PostgresError) -> [PostgresNotification] {
        guard pd_pq_consume_input(handle) != 0 else {
            throw PostgresError(.connection, message: Self.oneLine(String(cString: pd_pq_error_message(handle))))
        }
        var received: [PostgresNotification] = []
        while let notification = pd_pq_next_notification(handle) {
            received.append(
                PostgresNotification(
                    channel: String(cString: pd_pq_notification_channel(notification)),
                    payload: String(cString: pd_pq_notification_payload(notification)),
                    sender: pd_pq_notification_sender(notification)))
            pd_pq_free_notification(notification)
        }
        return received
    }

    /// Reads a result into rows and frees it, or throws what it says went wrong.
    private func rows(of result: UnsafeMutableRawPointer?) throws(PostgresError) -> PostgresRows {
        guard let result else {
            throw PostgresError(.connection, message: Self.oneLine(String(cString: pd_pq_error_message(handle))))
        }
        defer { pd_pq_clear(result) }
        switch pd_pq_result_kind(result) {
        case 1:
            let rowCount = Int(pd_pq_rows(result))
            let columnCount = Int(pd_pq_columns(result))
            var rows = PostgresRows()
            rows.columns = (0..<columnCount).map { String(cString: pd_pq_column_name(result, Int32($0))) }
            rows.types = (0..<columnCount).map { UInt32(pd_pq_column_type(result, Int32($0))) }
            rows.rows.reserveCapacity(rowCount)
            for row in 0..<rowCount {
                var values: [String?] = []
                values.reserveCapacity(columnCount)
                for column in 0..<columnCount {
                    var length: Int32 = 0
                    if let value = pd_pq_value(result, Int32(row), Int32(column), &length) {
                        values.append(
                            String(decoding: UnsafeRawBufferPointer(start: value, count: Int(length)), as: UTF8.self))
                    } else {
                        values.append(nil)
                    }
                }
                rows.rows.append(values)
            }
            return rows
        case 0:
            return PostgresRows(affected: Int(String(cString: pd_pq_affected_rows(result))) ?? 0)
        default:
            let field = { (code: UInt8) -> String? in
                pd_pq_result_field(result, Int32(code)).map { String(cString: $0) }
            }
            let message = field(UInt8(ascii: "M")) ?? Self.oneLine(String(cString: pd_pq_result_error(result)))
            let state = field(UInt8(ascii: "C"))
            let error = PostgresError(
                .statement, message: message, sqlState: state, constraint: field(UInt8(ascii: "n")))
            if error.isConnectionLost || pd_pq_connection_alive(handle) == 0 {
                throw PostgresError(.connection, message: message, sqlState: state)
            }
            throw error
        }
    }

    // MARK: - C strings

    /// Calls `body` with C strings for `strings` (nil stays a null pointer), all in one buffer.
    static func withCStrings<R>(_ strings: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
        var buffer: [CChar] = []
        var offsets: [Int?] = []
        for string in strings {
            guard let string else {
                offsets.append(nil)
                continue
            }
            offsets.append(buffer.count)
            buffer.append(contentsOf: string.utf8.map { CChar(bitPattern: $0) })
            buffer.append(0)
        }
        return buffer.withUnsafeBufferPointer { bytes in
            body(offsets.map { offset in offset.map { bytes.baseAddress! + $0 } })
        }
    }

    /// PostgreSQL's text cannot hold a NUL byte (and a C string would end there): refused, never cut short.
    static func checkNoNUL(_ parameters: [String?]) throws(PostgresError) {
        for (index, value) in parameters.enumerated() where value?.utf8.contains(0) == true {
            throw PostgresError(
                .statement, message: "parameter $\(index + 1) holds a NUL byte, which PostgreSQL text cannot store",
                sqlState: "22021")
        }
    }

    static func text(_ buffer: [CChar]) -> String {
        String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// libpq's messages end in a newline and may hold several lines ("…failed: …\n\tIs the server running…").
    static func oneLine(_ message: String) -> String {
        message.split(whereSeparator: \.isNewline).map { $0.trimmingPrefix(while: \.isWhitespace) }.joined(separator: "; ")
    }
}
