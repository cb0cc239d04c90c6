import Foundation
import PhotoCatalog
import PostgresClient
import PhotodropSystem

/// `catalog-history`: a second process for the catalog's cross-process tests.
///
///     catalog-history changes --library DIR [--since TOKEN]
///         one JSON object per persistent change after TOKEN (default: from the beginning), then
///         {"end": CURRENT-TOKEN}
///     catalog-history hold-read --library DIR
///         opens its own read transaction, prints the asset count, waits for a line on stdin, prints the count seen
///         by the same transaction, ends it and prints the count seen afterwards
///     catalog-history hold-write --library DIR --seconds N
///         takes the database's write lock (BEGIN EXCLUSIVE), prints "held", keeps it N seconds (longer than any busy
///         timeout of photodrop's), rolls back and prints "released": another process holding the library
///     catalog-history auth --library DIR [--uid N] [--write]
///         (after dropping to user N) prints the authorization status, whether reading works and, with --write,
///         what an attempt to create an album did
///     catalog-history import --library DIR --source DIR [--batch N] [--move]
///         imports every file of the source folder in blocks of N, printing "committed K" after each block
///
/// Errors go to standard error as one JSON object; the exit status is 1.
@main
struct CatalogHistory {
    static func main() async {
        var arguments = Array(CommandLine.arguments.dropFirst())
        guard !arguments.isEmpty else { fail("usage: catalog-history changes|hold-read|auth|import --library DIR …") }
        let command = arguments.removeFirst()
        let options = parse(arguments)
        guard let libraryPath = options["library"] else { fail("--library DIR is required") }
        let libraryURL = URL(fileURLWithPath: libraryPath)
        catalog = options["postgres"].map { .postgres(connectionString: $0) } ?? .sqlite
        do {
            switch command {
            case "changes": try changes(libraryURL, since: options["since"])
            case "hold-read": try holdRead(libraryURL)
            case "hold-write": try holdWrite(libraryURL, seconds: options["seconds"].flatMap(Double.init) ?? 10)
            case "auth":
                try await auth(libraryURL, uid: options["uid"].flatMap(UInt32.init), write: options["write"] != nil)
            case "import":
                guard let source = options["source"] else { fail("--source DIR is required") }
                try await importFolder(
                    libraryURL, source: URL(fileURLWithPath: source), batch: options["batch"].flatMap(Int.init) ?? 50,
                    move: options["move"] != nil)
            default: fail("unknown command '\(command)'")
            }
        } catch let error as PhotosError {
            fail(error.description, code: "\(error.code)")
        } catch {
            fail("\(error)")
        }
    }

    /// Where the library's catalog is: `--postgres CONNECTION` for PostgreSQL, else SQLite in the folder.
    nonisolated(unsafe) static var catalog: CatalogLocation = .sqlite

    static func parse(_ arguments: [String]) -> [String: String] {
        var options: [String: String] = [:]
        var index = 0
        while index < arguments.count {
            let name = String(arguments[index].drop { $0 == "-" })
            if index + 1 < arguments.count, !arguments[index + 1].hasPrefix("--") {
                options[name] = arguments[index + 1]
                index += 2
            } else {
                options[name] = ""
                index += 1
            }
        }
        return options
    }

    static func printJSON(_ object: [String: Any]) {
        let data = try! JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        emit(String(decoding: data, as: UTF8.self))
    }

    /// Writes a line to standard output at once (unbuffered), so the parent process sees it immediately.
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func fail(_ message: String, code: String = "usage") -> Never {
        let data = try! JSONSerialization.data(
            withJSONObject: ["error": code, "message": message], options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardError.write(data + Data("\n".utf8))
        exit(1)
    }

    static func changes(_ libraryURL: URL, since: String?) throws {
        let library = PhotoLibrary(url: libraryURL, catalog: catalog)
        let token: PersistentChangeToken
        if let since {
            guard let parsed = PersistentChangeToken(string: since) else { fail("'\(since)' is not a change token") }
            token = parsed
        } else {
            token = try PersistentChangeToken(string: "\(library.currentChangeToken.libraryID):0")!
        }
        for change in try library.fetchPersistentChanges(since: token) {
            func details(_ type: PhotoObjectType) -> [String: [String]] {
                let details = change.changeDetails(for: type)
                return [
                    "inserted": details.insertedLocalIdentifiers.sorted(),
                    "updated": details.updatedLocalIdentifiers.sorted(),
                    "deleted": details.deletedLocalIdentifiers.sorted(),
                ]
            }
            printJSON([
                "token": change.changeToken.stringValue,
                "date": Int64((change.date.timeIntervalSince1970 * 1000).rounded()),
                "assets": details(.asset), "collections": details(.assetCollection),
            ])
        }
        printJSON(["end": try library.currentChangeToken.stringValue])
    }

    /// A foreign reader: a raw connection on the library's database with an open read transaction.
    static func holdRead(_ libraryURL: URL) throws {
        if case .postgres(let connectionString, _) = catalog {
            let connection = try PostgresConnection(connectionString: connectionString)
            func count() throws -> String { try connection.execute("SELECT count(*) FROM assets").scalar ?? "-1" }
            try connection.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
            emit("count \(try count())")
            _ = readLine()
            emit("count \(try count())")
            try connection.execute("COMMIT")
            emit("after \(try count())")
            return
        }
        let database = try Database(
            path: libraryURL.appendingPathComponent(PhotoLibrary.databaseName).path, mode: .readOnly)
        func count() throws -> Int64 { try database.int64("SELECT count(*) FROM assets") ?? -1 }
        try database.execute("BEGIN DEFERRED")
        emit("count \(try count())")
        _ = readLine()
        emit("count \(try count())")
        try database.execute("COMMIT")
        emit("after \(try count())")
    }

    static func holdWrite(_ libraryURL: URL, seconds: Double) throws {
        let database = try Database(
            path: libraryURL.appendingPathComponent(PhotoLibrary.databaseName).path,
            mode: .readWrite(create: false))
        try database.execute("BEGIN EXCLUSIVE")
        emit("held")
        usleep(UInt32(seconds * 1_000_000))
        try database.execute("ROLLBACK")
        emit("released")
    }

    static func auth(_ libraryURL: URL, uid: UInt32?, write: Bool) async throws {
        if let uid {
            guard setgroups(0, nil) == 0, setgid(uid) == 0, setuid(uid) == 0 else {
                fail("could not become user \(uid): errno \(errno)", code: "setuid")
            }
        }
        let library = PhotoLibrary(url: libraryURL, catalog: catalog)
        var result: [String: Any] = ["status": "\(library.authorizationStatus(for: .readWrite))", "uid": getuid()]
        do {
            let albums = try AssetCollection.fetchAssetCollections(
                with: .album, subtype: .any, options: nil, library: library)
            result["read"] = albums.count
            result["assets"] = try Asset.fetchAssets(with: nil, library: library).count
        } catch let error as PhotosError {
            result["read"] = "\(error.code)"
        }
        if write {
            do {
                try await library.performChanges {
                    _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Denied?")
                }
                result["write"] = "ok"
            } catch let error as PhotosError {
                result["write"] = "\(error.code)"
                result["writeMessage"] = error.message
            }
            result["requested"] = "\(await library.requestAuthorization(for: .readWrite))"
        }
        printJSON(result)
    }

    static func importFolder(_ libraryURL: URL, source: URL, batch: Int, move: Bool) async throws {
        let library = PhotoLibrary(url: libraryURL, catalog: catalog)
        let names = try FileManager.default.contentsOfDirectory(atPath: source.path).sorted()
        var committed = 0
        for start in stride(from: 0, to: names.count, by: max(1, batch)) {
            let chunk = Array(names[start..<min(names.count, start + batch)])
            try await library.performChanges {
                for name in chunk {
                    let request = try AssetCreationRequest.forAsset()
                    request.addResource(
                        with: .photo, fileURL: source.appendingPathComponent(name),
                        options: AssetResourceCreationOptions(shouldMoveFile: move, mimeType: "image/jpeg"))
                }
            }
            committed += chunk.count
            emit("committed \(committed)")
        }
    }
}
