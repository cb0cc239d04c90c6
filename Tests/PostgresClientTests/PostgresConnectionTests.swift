import Foundation
import PostgresClient
import TestFixtures
import Testing

/// The PostgreSQL client against a real server that the suite starts itself (``PostgresCluster``: `initdb` in a
/// temporary folder, a Unix socket there, stopped by its PID at the end).
@Suite(
    "PostgreSQL client, on a real server", .serialized, .timeLimit(.minutes(5)),
    .requires(PostgresCluster.canStart, "PostgreSQL's server programs are not installed (.ci/run installs postgresql)"))
struct PostgresConnectionTests {
    @Test("connects, says where it ran, and round-trips text, NULL and Unicode through parameters")
    func roundTrip() async throws {
        let cluster = try await PostgresCluster("pg-client")
        let connection = try PostgresConnection(connectionString: cluster.connectionString())
        // Where it ran: the server's own words, never an embedded stand-in.
        let version = try #require(try connection.execute("SELECT version()").scalar)
        #expect(version.hasPrefix("PostgreSQL "), "\(version)")
        #expect(connection.serverVersion >= 150_000)
        let major = URL(fileURLWithPath: cluster.binaries).deletingLastPathComponent().lastPathComponent
        #expect(version.hasPrefix("PostgreSQL \(major)."), "\(version) from \(cluster.binaries)")
        // The server process is the cluster this test started.
        let directory = try connection.execute("SHOW data_directory").scalar
        #expect(directory == cluster.folder.url("data"))

        try connection.execute("CREATE TABLE t (id bigserial PRIMARY KEY, name text, sha bytea UNIQUE)")
        let names: [String?] = ["Cafe\u{301}.jpg", "Café.jpg", "'; DROP TABLE t; --", nil, "📷 \\x00 $1"]
        for (index, name) in names.enumerated() {
            let inserted = try connection.execute(
                "INSERT INTO t (name, sha) VALUES ($1, decode($2, 'hex')) RETURNING id", [name, String(index, radix: 16).paddingLeft(to: 4)])
            #expect(inserted.scalar == String(index + 1))
        }
        let rows = try connection.execute("SELECT name FROM t ORDER BY id")
        #expect(rows.columns == ["name"])
        #expect(rows.rows.map { $0[0] } == names, "byte for byte, NULL as nil, nothing spliced into the SQL")
        let updated = try connection.execute("UPDATE t SET name = upper(name) WHERE name IS NOT NULL")
        #expect(updated.affected == 4)
        // A NUL cannot be stored in PostgreSQL text: refused with a reason, never cut short.
        #expect(throws: PostgresError.self) { try connection.execute("SELECT $1::text", ["a\u{0}b"]) }
    }

    @Test("errors carry their SQLSTATE: a unique violation names its constraint, a syntax error is no lost connection")
    func errors() async throws {
        let cluster = try await PostgresCluster("pg-errors")
        let connection = try PostgresConnection(connectionString: cluster.connectionString())
        try connection.execute("CREATE TABLE assets (sha256 text CONSTRAINT assets_sha256 UNIQUE)")
        try connection.execute("INSERT INTO assets VALUES ($1)", ["aa"])
        do {
            try connection.execute("INSERT INTO assets VALUES ($1)", ["aa"])
            Issue.record("a second row with the same content was stored")
        } catch {
            #expect(error.isUniqueViolation && error.constraint == "assets_sha256", "\(error)")
            #expect(!error.isConnectionLost && !error.isRetryable)
        }
        // ON CONFLICT settles the same race without an error.
        let again = try connection.execute("INSERT INTO assets VALUES ($1) ON CONFLICT DO NOTHING", ["aa"])
        #expect(again.affected == 0)
        do {
            try connection.execute("SELEC 1")
            Issue.record("a syntax error passed")
        } catch {
            #expect(error.sqlState == "42601" && error.kind == .statement, "\(error)")
        }
        // The connection is still good after an error, and a failed transaction rolls back as a whole.
        #expect(throws: PostgresError.self) {
            try connection.transaction {
                try connection.execute("INSERT INTO assets VALUES ($1)", ["bb"])
                try connection.execute("INSERT INTO assets VALUES ($1)", ["aa"])
            }
        }
        #expect(try connection.execute("SELECT count(*) FROM assets").scalar == "1")
        // Prepared statements.
        try connection.prepare("count_sha", "SELECT count(*) FROM assets WHERE sha256 = $1", parameterCount: 1)
        #expect(try connection.executePrepared("count_sha", ["aa"]).scalar == "1")
        #expect(try connection.executePrepared("count_sha", ["zz"]).scalar == "0")
    }

    @Test("a wrong connection string, an unknown database and a stopped server are clear connection errors")
    func connectionErrors() async throws {
        let cluster = try await PostgresCluster("pg-refused")
        #expect {
            _ = try PostgresConnection(connectionString: cluster.connectionString(database: "nosuchdb"))
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.kind == .connection && error.message.contains("nosuchdb")
        }
        #expect {
            _ = try PostgresConnection(connectionString: "postgresql://[broken")
        } throws: { error in (error as? PostgresError)?.kind == .connection }
        let connection = try PostgresConnection(connectionString: cluster.connectionString())
        cluster.stop()
        do {
            try connection.execute("SELECT 1")
            Issue.record("a statement ran on a stopped server")
        } catch {
            #expect(error.isConnectionLost, "\(error)")
        }
        #expect(!connection.isAlive)
        #expect {
            _ = try PostgresConnection(connectionString: cluster.connectionString(), connectTimeoutSeconds: 2)
        } throws: { error in (error as? PostgresError)?.isConnectionLost == true }
    }

    @Test("LISTEN/NOTIFY: a commit on one connection reaches a listener on another; a restart needs a new connection")
    func notifications() async throws {
        let cluster = try await PostgresCluster("pg-notify")
        let listener = try PostgresConnection(connectionString: cluster.connectionString())
        let writer = try PostgresConnection(connectionString: cluster.connectionString())
        try listener.execute("LISTEN photodrop_changes")
        #expect(try listener.notifications(waitingUpTo: 0).isEmpty)
        try writer.transaction {
            try writer.execute("SELECT pg_notify('photodrop_changes', $1)", ["token 42"])
            try writer.execute("SELECT pg_notify('other_channel', 'x')")
        }
        let received = try listener.notifications(waitingUpTo: 5000)
        #expect(received.map(\.channel) == ["photodrop_changes"])
        #expect(received.first?.payload == "token 42")
        // Rolled back: nothing is sent.
        #expect(throws: Error.self) {
            try writer.transaction {
                try writer.execute("NOTIFY photodrop_changes, 'rolled back'")
                throw CancellationError()
            }
        }
        #expect(try listener.notifications(waitingUpTo: 300).isEmpty)
        // A restart breaks the listener: it learns so (notifications sent meanwhile are lost; the history table is
        // the truth after a reconnect).
        _ = try await cluster.restart(after: 0.5)
        #expect(throws: PostgresError.self) { _ = try listener.notifications(waitingUpTo: 2000) }
        let again = try PostgresConnection(connectionString: cluster.connectionString())
        #expect(try again.execute("SELECT 1").scalar == "1")
    }
}

extension String {
    fileprivate func paddingLeft(to length: Int) -> String {
        String(repeating: "0", count: max(0, length - count)) + self
    }
}
