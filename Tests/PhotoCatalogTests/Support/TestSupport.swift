import Foundation
import PhotodropSystem
import Synchronization
import TestFixtures
import PostgresClient
import Testing

@testable import PhotoCatalog

/// A ``TestFixtures/TemporaryFolder`` seen through URLs, with the catalog tests' helpers (a library in it, files).
final class TemporaryDirectory: Sendable {
    private let folder: TemporaryFolder
    let url: URL

    init(_ name: String = "photocatalog", in parent: URL = FileManager.default.temporaryDirectory) throws {
        folder = try TemporaryFolder(name, in: parent.path)
        url = URL(fileURLWithPath: folder.path, isDirectory: true)
    }

    var path: String { folder.path }

    func appending(_ component: String) -> URL { url.appendingPathComponent(component) }

    /// A new library folder inside this directory (not created yet).
    func library(_ name: String = "Library", retention: HistoryRetention = .default) -> PhotoLibrary {
        PhotoLibrary(url: appending(name), historyRetention: retention)
    }

    /// Writes `count` distinct small files `prefix0.ext`, … and returns their URLs.
    func makeFiles(_ count: Int, prefix: String = "file", ext: String = "jpg", size: Int = 256) throws -> [URL] {
        try (0..<count).map { index in
            let url = appending("\(prefix)\(index).\(ext)")
            try TestFiles.distinctBytes(size: size).write(to: url)
            return url
        }
    }

    /// Writes one file with the given bytes.
    @discardableResult
    func write(_ data: Data, to name: String) throws -> URL {
        let url = appending(name)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
        return url
    }
}

enum TestFiles {
    private static let counter = Atomic<Int>(0)

    /// Bytes that differ from every other call's (a counter, a UUID, then pseudo-random filler).
    static func distinctBytes(size: Int) -> Data {
        var data = Data("\(counter.add(1, ordering: .relaxed).newValue)-\(UUID().uuidString)-".utf8)
        if data.count < size {
            var filler = [UInt8](repeating: 0, count: size - data.count)
            var generator = SystemRandomNumberGenerator()
            filler.withUnsafeMutableBytes { bytes in
                // Eight bytes per call: fast enough in debug builds for multi-megabyte fixtures.
                let words = bytes.count / 8
                for index in 0..<words {
                    bytes.storeBytes(of: generator.next(), toByteOffset: index * 8, as: UInt64.self)
                }
                for index in (words * 8)..<bytes.count { bytes[index] = UInt8.random(in: 0...255, using: &generator) }
            }
            data.append(contentsOf: filler)
        }
        return data
    }

    /// A minimal GIF89a (1×1, one frame).
    static let gif = Data(
        [
            0x47, 0x49, 0x46, 0x38, 0x39, 0x61, 0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, 0xFF, 0xFF, 0xFF, 0x00, 0x00,
            0x00,
            0x21, 0xF9, 0x04, 0x00, 0x00, 0x00, 0x00, 0x00, 0x2C, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
            0x02, 0x02, 0x44, 0x01, 0x00, 0x3B,
        ])

    /// Every file below `url`, relative paths, sorted.
    static func tree(_ url: URL) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: url.path) else { return [] }
        var files: [String] = []
        while let name = enumerator.nextObject() as? String {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: url.appendingPathComponent(name).path, isDirectory: &isDirectory),
                !isDirectory.boolValue
            {
                files.append(name)
            }
        }
        return files.sorted()
    }

    /// The stored originals of a library (relative to it).
    static func originals(_ library: PhotoLibrary) -> [String] {
        tree(library.originalsURL)
    }

    /// `stat` of a path.
    static func inode(_ url: URL) -> UInt64? {
        var info = stat()
        return stat(url.path, &info) == 0 ? UInt64(info.st_ino) : nil
    }

    static func device(_ url: URL) -> UInt64? {
        var info = stat()
        return stat(url.path, &info) == 0 ? UInt64(info.st_dev) : nil
    }
}

/// A raw read connection on a library's database, for checks the public API does not offer.
func rawCount(_ library: PhotoLibrary, _ sql: String) throws -> Int64 {
    let database = try library.rawCatalog()
    return try database.int64(sql) ?? 0
}

/// Runs the `catalog-history` helper (built next to the test bundle) as a child process.
enum Helper {
    /// The helper's path: beside the running test bundle in the build folder.
    static var executable: URL? {
        let bundle = URL(
            fileURLWithPath: (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))
                ?? CommandLine.arguments[0])
        let candidate = bundle.deletingLastPathComponent().appendingPathComponent("catalog-history")
        return FileManager.default.isExecutableFile(atPath: candidate.path) ? candidate : nil
    }

    struct Output {
        let status: Int32
        let stdout: String
        let stderr: String

        var lines: [String] { stdout.split(separator: "\n").map(String.init) }

        /// Each stdout line parsed as a JSON object.
        var objects: [[String: Any]] {
            lines.compactMap { line in
                (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            }
        }
    }

    /// Runs `executable` with `arguments` to completion (stdout and stderr drained at the same time).
    static func run(_ executable: URL, _ arguments: [String]) throws -> Output {
        let output = try ProcessRunner.runBlocking(executable, arguments)
        return Output(status: output.status, stdout: output.stdout, stderr: output.stderr)
    }

    /// Runs the helper with `arguments`.
    static func run(_ arguments: [String]) throws -> Output {
        guard let executable else { throw HelperMissing() }
        return try run(executable, arguments)
    }

    struct HelperMissing: Error, CustomStringConvertible {
        var description: String {
            "catalog-history is not built next to the test bundle; run swift build --build-tests"
        }
    }
}



/// The engines the catalog suite runs on: each test that takes a backend runs once on SQLite and once on a real
/// PostgreSQL server (``SharedPostgres``), through the same ``PhotoLibrary`` calls.
enum CatalogBackend: String, Sendable, CaseIterable, CustomTestStringConvertible {
    case sqlite
    case postgres

    var testDescription: String { rawValue }

    /// SQLite, and PostgreSQL when its server programs are installed. Where they are not, the PostgreSQL half is
    /// skipped, saying so; under `PHOTODROP_TESTS_MUST_NOT_SKIP=1` it runs anyway, and fails.
    static let all: [CatalogBackend] = {
        if PostgresCluster.canStart || skippingIsFailure { return [.sqlite, .postgres] }
        print("⚠️ PostgreSQL's server programs are not installed: the catalog suite runs on SQLite only")
        return [.sqlite]
    }()
}

extension TemporaryDirectory {
    /// A new library folder inside this directory, its catalog on `backend`: for PostgreSQL, in a new database of
    /// the process's cluster, after proving that the server answering is PostgreSQL (`SELECT version()`), so that
    /// the PostgreSQL run can never quietly test SQLite twice.
    func library(
        _ name: String = "Library", retention: HistoryRetention = .default, on backend: CatalogBackend
    ) async throws -> PhotoLibrary {
        switch backend {
        case .sqlite:
            return PhotoLibrary(url: appending(name), historyRetention: retention)
        case .postgres:
            let connectionString = try await SharedPostgres.newDatabase()
            let connection = try PostgresConnection(connectionString: connectionString)
            let version = try connection.execute("SELECT version()").scalar ?? ""
            try #require(version.hasPrefix("PostgreSQL "), "the catalog server is not PostgreSQL: \(version)")
            return PhotoLibrary(
                url: appending(name), historyRetention: retention,
                catalog: .postgres(connectionString: connectionString))
        }
    }
}

extension PhotoLibrary {
    /// A connection of the test's own to the library's catalog, on whichever backend holds it (for looking at or
    /// tampering with rows as an outsider would; statements in the SQL both share).
    func rawCatalog() throws -> Database {
        catalog.isPostgres
            ? try connector.openPostgres() : try Database(path: databasePath, mode: .readWrite(create: false))
    }
}

extension CatalogLocation {
    /// The `catalog-history` helper's arguments for this catalog (`--postgres CONNECTION`, or none for SQLite).
    var helperArguments: [String] {
        if case .postgres(let connectionString, _) = self { return ["--postgres", connectionString] }
        return []
    }
}
