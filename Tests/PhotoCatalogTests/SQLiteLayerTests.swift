import CSQLite
import Foundation
import PhotodropSystem
import Testing

@testable import PhotoCatalog

@Suite("SQLite layer", CatalogGate.one)
struct SQLiteLayerTests {
    @Test("SQLite's memory statistics are off before the first connection (no global mutex per allocation)")
    func memoryStatisticsOff() throws {
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.appending("m.sqlite").path, mode: .readWrite(create: true))
        #expect(Database.processSetup == SQLITE_OK, "something initialised SQLite before the first Database")
        try database.execute("CREATE TABLE t(x TEXT); INSERT INTO t VALUES (hex(randomblob(5000)))")
        var current: Int64 = -1
        var highest: Int64 = -1
        #expect(sqlite3_status64(SQLITE_STATUS_MEMORY_USED, &current, &highest, 0) == SQLITE_OK)
        #expect(current == 0 && highest == 0, "SQLite still counts its memory: \(current) bytes")
    }

    @Test("errors keep the result code, the extended code, SQLite's message and the statement")
    func errors() throws {
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.appending("t.sqlite").path, mode: .readWrite(create: true))
        try database.execute("CREATE TABLE t(x INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE)")
        try database.run("INSERT INTO t(name) VALUES (?)", ["a"])
        do {
            try database.run("INSERT INTO t(name) VALUES (?)", ["a"])
            Issue.record("a unique violation went through")
        } catch let error as DatabaseError {
            #expect(DatabaseError.constraint ~= error)
            #expect(error.resultCode == 19 && error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(error.message.contains("UNIQUE constraint failed: t.name"))
            #expect(error.sql == "INSERT INTO t(name) VALUES (?)")
            #expect(error.description.contains(database.path))
        }
        #expect(throws: DatabaseError.self) { _ = try database.prepare("SELEC nonsense") }
        let photos = PhotosError.database(
            DatabaseError(extendedCode: 13, message: "database or disk is full"), action: "save", library: "/lib")
        #expect(photos.code == .notEnoughSpace)
        #expect(photos.description.contains("SQLite error 13"))
    }

    @Test("statements bind and read every type; the cache returns reset statements")
    func statements() throws {
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.appending("t.sqlite").path, mode: .readWrite(create: true))
        try database.execute("CREATE TABLE v(i INTEGER, r REAL, s TEXT, b BLOB, n TEXT)")
        let text = "naïve 🏔️ 'quote' \"double\" \u{0}nul"
        try database.run(
            "INSERT INTO v VALUES (?, ?, ?, ?, ?)",
            [.integer(Int64.min), .real(-0.5), .text(text), .blob(Data([0, 255, 7])), .null])
        let row = try #require(
            try database.firstRow("SELECT i, r, s, b, n FROM v") {
                ($0.int64(0), $0.double(1), $0.string(2), $0.data(3), $0.optionalString(4))
            })
        #expect(row.0 == Int64.min && row.1 == -0.5 && row.2 == text && row.3 == Data([0, 255, 7]) && row.4 == nil)
        let first = try database.cachedStatement("SELECT count(*) FROM v WHERE i = ?")
        try first.bind(5, at: 1)
        let second = try database.cachedStatement("SELECT count(*) FROM v WHERE i = ?")
        #expect(first === second)
        #expect(try second.step() && second.int(0) == 0)
    }

    @Test("a transaction whose body throws is rolled back")
    func transactions() throws {
        struct Stop: Error {}
        let folder = try TemporaryDirectory()
        let database = try Database(path: folder.appending("t.sqlite").path, mode: .readWrite(create: true))
        try database.execute("CREATE TABLE t(x)")
        #expect(throws: Stop.self) {
            try database.inTransaction(.immediate) {
                try database.run("INSERT INTO t VALUES (1)")
                throw Stop()
            }
        }
        #expect(database.isAutocommit)
        #expect(try database.int64("SELECT count(*) FROM t") == 0)
        try database.inTransaction(.immediate) { try database.run("INSERT INTO t VALUES (1)") }
        #expect(try database.int64("SELECT count(*) FROM t") == 1)
    }

    @Test("SHA-256 over OpenSSL matches known digests, incrementally in uneven pieces too, and starts over after finalize")
    func sha256() throws {
        #expect(try SHA256.digest(of: Data()).hex == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
        #expect(
            try SHA256.digest(of: Data("abc".utf8)).hex
                == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        var hasher = try SHA256()
        try Data("a".utf8).withUnsafeBytes { try hasher.update($0) }
        try Data("bc".utf8).withUnsafeBytes { try hasher.update($0) }
        #expect(try hasher.finalize() == SHA256.digest(of: Data("abc".utf8)))
        try Data("abc".utf8).withUnsafeBytes { try hasher.update($0) }
        #expect(try hasher.finalize() == SHA256.digest(of: Data("abc".utf8)), "the context is reused")
        // FIPS 180-2's long vector, a million "a", fed in pieces that straddle the 64-byte blocks every which way.
        let million = [UInt8](repeating: UInt8(ascii: "a"), count: 1_000_000)
        var offset = 0
        var piece = 1
        while offset < million.count {
            let end = min(million.count, offset + piece)
            try million[offset..<end].withUnsafeBytes { try hasher.update($0) }
            offset = end
            piece = piece % 200 + 37
        }
        #expect(try hasher.finalize().hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        #expect(try SHA256.digest(of: million).hex == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")
        let folder = try TemporaryDirectory()
        let big = TestFiles.distinctBytes(size: (1 << 20) * 2 + 123)  // spans several reads of the 1 MiB buffer
        let file = try folder.write(big, to: "big.bin")
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        let descriptor = FileDescriptor(owning: open(file.path, O_RDONLY))
        let (digest, count) = try SHA256.digest(ofFile: descriptor, path: file.path, buffer: buffer)
        #expect(try digest == SHA256.digest(of: big) && count == Int64(big.count))
    }
}
