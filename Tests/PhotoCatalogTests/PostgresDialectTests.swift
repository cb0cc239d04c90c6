import Foundation
import PostgresClient
import TestFixtures
import Testing

@testable import PhotoCatalog

/// The catalog's SQL, written once, translated for PostgreSQL.
@Suite("PostgreSQL dialect", CatalogGate.one(limit: .seconds(300)))
struct PostgresDialectTests {
    @Test("parameters are numbered as SQLite numbers them; literals and quoted names are left alone")
    func parameters() {
        #expect(PostgresDialect.translate("SELECT ?, ?3, ?, 'it''s ?', \"a?b\" FROM t WHERE x = ?")
            == "SELECT $1, $3, $4, 'it''s ?', \"a?b\" FROM t WHERE x = $5")
        #expect(PostgresDialect.translate("SELECT id FROM albums WHERE instr(?2, '/') = 0 AND title = ?2 AND k = ?1")
            == "SELECT id FROM albums WHERE strpos($2, '/') = 0 AND title = $2 AND k = $1")
        #expect(PostgresDialect.translate("SELECT a.uuid FROM assets a JOIN json_each(?) j ON a.uuid = j.value ORDER BY j.key")
            == "SELECT a.uuid FROM assets a JOIN jsonb_array_elements_text(($1)::jsonb) WITH ORDINALITY AS j(value, key) ON a.uuid = j.value ORDER BY j.key")
        #expect(PostgresDialect.translate("DELETE FROM journal WHERE k = ? AND id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))")
            == "DELETE FROM journal WHERE k = $1 AND id IN (SELECT CAST(value AS BIGINT) FROM jsonb_array_elements_text(($2)::jsonb))")
        // Not a function call of ours: a column that merely ends in the name.
        #expect(PostgresDialect.translate("SELECT my_instr(x) FROM t") == "SELECT my_instr(x) FROM t")
    }

    @Test(
        "multi-row inserts (JSON rows) store every value exactly as single-row inserts do, ids in the rows' order",
        .requires(PostgresCluster.canStart, "PostgreSQL's server programs are not installed (.ci/run installs postgresql)"))
    func bulkRowsKeepValuesExactly() async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: .postgres)
        try await library.performChanges { _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") }
        let database = try library.rawCatalog()
        try database.execute(
            "CREATE TABLE bulk_probe(id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, t TEXT, i BIGINT, r DOUBLE PRECISION, b BYTEA)")
        let texts = [
            "plain", "quote \" and backslash \\ and slash /", "tab\tnewline\ncontrol\u{1}\u{1f}", "é, 東京, 🙂",
            "{\"json\": [1, 2]}", "\\x41", "", "'single' ?",
        ]
        let doubles: [Double] = [
            0.1, -0.0, 1e-300, Double.leastNonzeroMagnitude, Double.greatestFiniteMagnitude, 123456789.123456789, -2.5, 1.0 / 3.0,
        ]
        let integers: [Int64] = [0, -1, Int64.max, Int64.min, 42, 1 << 53 + 1, -(1 << 40), 7]
        let blobs = [Data(), Data([0, 1, 0xfe, 0xff]), Data("\\x00".utf8), Data(repeating: 0x5c, count: 3)]
        var values: [[SQLValue]] = []
        for index in 0..<texts.count {
            values.append([
                .text(texts[index]), .integer(integers[index]), .real(doubles[index]),
                index % 3 == 2 ? .null : .blob(blobs[index % blobs.count]),
            ])
        }
        values.append([.null, .null, .null, .null])
        var rows = PostgresBulkRows(table: "bulk_probe", columns: ["t", "i", "r", "b"])
        for row in values { rows.append(row) }
        let ids = try rows.insertReturningIDs(into: database)
        #expect(ids.count == values.count && ids == ids.sorted())
        #expect(rows.isEmpty)
        // The same rows, one insert each: what the bulk rows must equal.
        for row in values { try database.run("INSERT INTO bulk_probe(t, i, r, b) VALUES (?, ?, ?, ?)", row) }
        let stored = try database.rows("SELECT t, i, r, b FROM bulk_probe ORDER BY id") { row in
            (0..<4).map { column -> SQLValue in
                if row.isNull(Int32(column)) { return .null }
                switch column {
                case 0: return .text(row.string(0))
                case 1: return .integer(row.int64(1))
                case 2: return .real(row.double(2))
                default: return .blob(row.data(3))
                }
            }
        }
        #expect(stored.count == values.count * 2)
        #expect(Array(stored.prefix(values.count)) == Array(stored.suffix(values.count)), "bulk and single inserts differ")
        #expect(Array(stored.prefix(values.count)) == values.map { $0.map { if case .blob(let d) = $0, d.isEmpty { return SQLValue.blob(Data()) }; return $0 } })
        for (stored, double) in zip(stored.prefix(doubles.count), doubles) {
            if case .real(let value) = stored[2] { #expect(value.bitPattern == double.bitPattern, "\(double)") }
        }
    }

    @Test(
        "COPY rows store every value exactly as single-row inserts do, NaN and the infinities included",
        .requires(PostgresCluster.canStart, "PostgreSQL's server programs are not installed (.ci/run installs postgresql)"))
    func copyRowsKeepValuesExactly() async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: .postgres)
        try await library.performChanges { _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") }
        let database = try library.rawCatalog()
        try database.execute(
            "CREATE TABLE copy_probe(id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, t TEXT, i BIGINT, r DOUBLE PRECISION, b BYTEA)")
        // What COPY's text form must escape (tab, newline, carriage return, backslash) and what it must not touch
        // (`\N` spelled out, a lone period, `\.` that once ended the data, quotes, non-ASCII).
        let texts = [
            "plain", "tab\there", "new\nline", "carriage\rreturn", "back\\slash", "\\N", ".", "\\.", "\\x41",
            "quote \" and ' ", "é, 東京, 🙂", "", "control\u{1}\u{1f}\u{7f}", "ends with backslash\\",
        ]
        let doubles: [Double] = [
            0.1, -0.0, 1e-300, .leastNonzeroMagnitude, .greatestFiniteMagnitude, .nan, .infinity, -.infinity,
            123456789.123456789, 1.0 / 3.0, -2.5, 1e22, 2.2250738585072014e-308, 0,
        ]
        let integers: [Int64] = [0, -1, .max, .min, 42, 1 << 53 + 1, -(1 << 40), 7, 8, 9, 10, 11, 12, 13]
        let blobs = [Data(), Data([0, 1, 0xfe, 0xff]), Data("\\x00\t\n".utf8), Data(repeating: 0x5c, count: 3)]
        var values: [[SQLValue]] = []
        for index in texts.indices {
            values.append([
                .text(texts[index]), .integer(integers[index]), .real(doubles[index]),
                index % 3 == 2 ? .null : .blob(blobs[index % blobs.count]),
            ])
        }
        values.append([.null, .null, .null, .null])
        var rows = PostgresCopyRows(table: "copy_probe", columns: ["t", "i", "r", "b"])
        for row in values { rows.append(row) }
        try rows.flush(into: database)
        #expect(rows.isEmpty)
        try rows.flush(into: database)  // nothing gathered: nothing sent
        for row in values { try database.run("INSERT INTO copy_probe(t, i, r, b) VALUES (?, ?, ?, ?)", row) }
        let stored = try database.rows("SELECT t, i, r, b FROM copy_probe ORDER BY id") { row in
            (0..<4).map { column -> SQLValue in
                if row.isNull(Int32(column)) { return .null }
                switch column {
                case 0: return .text(row.string(0))
                case 1: return .integer(row.int64(1))
                case 2: return .real(row.double(2))
                default: return .blob(row.data(3))
                }
            }
        }
        #expect(stored.count == values.count * 2)
        let copied = Array(stored.prefix(values.count))
        let inserted = Array(stored.suffix(values.count))
        for (index, (copy, single)) in zip(copied, inserted).enumerated() {
            #expect(copy[0] == single[0] && copy[1] == single[1] && copy[3] == single[3], "row \(index): \(copy) ≠ \(single)")
            #expect(copy[0] == values[index][0] && copy[1] == values[index][1], "row \(index)")
            // NaN is not equal to itself: compare bit patterns.
            if case .real(let a) = copy[2], case .real(let b) = single[2] {
                #expect(a.bitPattern == b.bitPattern || (a.isNaN && b.isNaN), "row \(index): \(a) ≠ \(b)")
                if index < doubles.count { #expect(a.bitPattern == doubles[index].bitPattern || (a.isNaN && doubles[index].isNaN)) }
            } else {
                #expect(copy[2] == single[2], "row \(index)")
            }
        }
    }

    @Test(
        "a COPY that breaks a constraint fails with the constraint's SQLSTATE, a NUL byte is refused, and the connection goes on",
        .requires(PostgresCluster.canStart, "PostgreSQL's server programs are not installed (.ci/run installs postgresql)"))
    func copyRowsFailCleanly() async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: .postgres)
        try await library.performChanges { _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "x") }
        let database = try library.rawCatalog()
        try database.execute("CREATE TABLE copy_unique(k TEXT UNIQUE, n BIGINT REFERENCES assets(id))")
        var rows = PostgresCopyRows(table: "copy_unique", columns: ["k", "n"])
        rows.append([.text("same"), .null])
        rows.append([.text("same"), .null])
        #expect { try rows.flush(into: database) } throws: { ($0 as? DatabaseError)?.sqlState == "23505" }
        // A foreign key the rows break: 23503, what the writer retries a block on.
        rows = PostgresCopyRows(table: "copy_unique", columns: ["k", "n"])
        rows.append([.text("orphan"), .integer(987_654_321)])
        #expect { try rows.flush(into: database) } throws: { ($0 as? DatabaseError)?.sqlState == "23503" }
        rows = PostgresCopyRows(table: "copy_unique", columns: ["k", "n"])
        rows.append([.text("nul \u{0} inside"), .null])
        #expect { try rows.flush(into: database) } throws: { ($0 as? DatabaseError) != nil }
        // Inside a transaction the failure leaves it to be rolled back, and the connection takes the next statement.
        #expect(throws: DatabaseError.self) {
            try database.inTransaction(.immediate) {
                var again = PostgresCopyRows(table: "copy_unique", columns: ["k", "n"])
                again.append([.text("a"), .null])
                again.append([.text("a"), .null])
                try again.flush(into: database)
            }
        }
        rows = PostgresCopyRows(table: "copy_unique", columns: ["k", "n"])
        for index in 0..<20_000 { rows.append([.text("row \(index) " + String(repeating: "x", count: 100)), .null]) }
        try rows.flush(into: database)  // about 2.3 MB: sent in several chunks
        #expect(try database.int64("SELECT count(*) FROM copy_unique") == 20_000)
        #expect(try database.int64("SELECT count(*) FROM copy_unique WHERE k = 'a' OR k = 'same' OR k = 'orphan'") == 0)
    }

    @Test(
        "every statement of the writer's hot path runs on PostgreSQL against photodrop's schema, as on SQLite",
        .requires(PostgresCluster.canStart, "PostgreSQL's server programs are not installed (.ci/run installs postgresql)"))
    func writerStatementsRunOnPostgres() async throws {
        let cluster = try await PostgresCluster("pg-dialect")
        let connection = try PostgresConnection(connectionString: cluster.connectionString())
        try PostgresSchema.prepare(connection)
        for (name, sql) in WriterStatements.SQL.all {
            // PREPARE parses and plans the statement: a syntax or type error fails here, naming the statement.
            do {
                try connection.prepare(name, PostgresDialect.translate(sql), parameterCount: 0)
            } catch {
                Issue.record("\(name) does not prepare on PostgreSQL: \(error)\n\(PostgresDialect.translate(sql))")
            }
        }
        // And they do what they do on SQLite: an asset, its resource, an album membership added twice, a change.
        let asset = try connection.executePrepared(
            "insertAsset",
            ["u1", "1", "0", "1", "1700000000.5", "exif", "1700000001", "1700000001", "4000", "3000", "0", nil, nil,
             nil, "0", "0", nil, "3600", "0", "Title", nil, "[\"a\"]", "5", "Trip/img_1", "0", "Apple", "iPhone", "{}"])
        // The new row's id comes back with the insert (RETURNING id), the same id a lookup finds.
        #expect(asset.count == 1)
        let assetID = try #require(try connection.executePrepared("assetByUUID", ["u1"]).scalar)
        #expect(asset.scalar == assetID)
        try connection.executePrepared(
            "insertResource", [assetID, "1", "aa11", "1234", "image/jpeg", "public.jpeg", "IMG_1.JPG", "originals/x"])
        try connection.execute("INSERT INTO albums(uuid, title, creation_date) VALUES ('al1', 'Trip', 0)")
        let album = try #require(try connection.execute("SELECT id FROM albums WHERE uuid = 'al1'").scalar)
        #expect(try connection.executePrepared("insertMembership", [album, assetID, "0"]).affected == 1)
        #expect(try connection.executePrepared("insertMembership", [album, assetID, "1"]).affected == 0)
        let found = try connection.executePrepared("assetBySHA256", ["aa11"])
        #expect(found.rows.first?[1] == "u1")
        #expect(found.rows.first?[2] == "f", "a boolean column reads as PostgreSQL's f/t")
        #expect(try connection.executePrepared("assetState", [assetID]).rows.first == ["0", "f"])
        // A JSON array as a table, in the order given, and as a list of row ids.
        try connection.execute(
            "INSERT INTO assets(uuid, media_type, playback_style, added_date, modification_date) VALUES ('u2', 1, 1, 0, 0)")
        let ordered = try connection.execute(
            PostgresDialect.translate(
                "SELECT a.uuid FROM assets a JOIN json_each(?) j ON a.uuid = j.value WHERE TRUE ORDER BY j.key"),
            ["[\"u2\", \"u1\"]"])
        #expect(ordered.rows.map { $0[0] } == ["u2", "u1"])
        try connection.execute(
            "INSERT INTO journal(kind, payload, created_at) VALUES ('claim', '\\x00ff'::bytea, 0), ('claim', '', 0)")
        let ids = try connection.execute("SELECT id FROM journal ORDER BY id").rows.compactMap { $0[0] }
        let deleted = try connection.execute(
            PostgresDialect.translate(
                "DELETE FROM journal WHERE id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))"),
            ["[\(ids[0])]"])
        #expect(deleted.affected == 1)
    }
}
