/// Where a library keeps its catalog (a photodrop addition): in the library folder as SQLite (the default), or in a
/// PostgreSQL database that several photodrop nodes share, the library's files staying in the folder.
///
/// Nothing above the catalog depends on which: every ``PhotoLibrary`` call behaves alike on both.
public enum CatalogLocation: Sendable, Hashable, CustomStringConvertible {
    /// `library.sqlite` in the library folder.
    case sqlite
    /// A PostgreSQL database: a libpq connection string or URI (`postgresql:///photodrop?host=/run/postgresql`,
    /// `host=db.lan dbname=photodrop user=photodrop sslmode=require`) and, when kept apart from it, the password.
    case postgres(connectionString: String, password: String? = nil)

    /// Whether the catalog is in PostgreSQL.
    public var isPostgres: Bool {
        if case .postgres = self { return true }
        return false
    }

    /// The location for messages and status: "SQLite" or the PostgreSQL connection string with any password in it
    /// replaced by `***`.
    public var description: String {
        switch self {
        case .sqlite: return "SQLite"
        case .postgres(let connectionString, _): return "PostgreSQL " + Self.redacted(connectionString)
        }
    }

    /// `connectionString` without the password it may carry (`password=…`, or `user:password@` in a URI).
    public static func redacted(_ connectionString: String) -> String {
        var bytes = Array(connectionString.utf8)
        let stars = Array("***".utf8)
        // URI form: scheme://user:password@host
        if let scheme = find(Array("://".utf8), in: bytes, from: 0) {
            let start = scheme + 3
            var end = start
            while end < bytes.count, ![UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "@")].contains(bytes[end]) {
                end += 1
            }
            if end < bytes.count, bytes[end] == UInt8(ascii: "@"),
                let colon = bytes[start..<end].firstIndex(of: UInt8(ascii: ":"))
            {
                bytes.replaceSubrange((colon + 1)..<end, with: stars)
            }
        }
        // key=value form, and URI query parameters: password=…
        var from = 0
        while let found = find(Array("password=".utf8), in: bytes, from: from) {
            let start = found + 9
            var end = start
            if end < bytes.count, bytes[end] == UInt8(ascii: "'") {
                end += 1
                while end < bytes.count, bytes[end] != UInt8(ascii: "'") {
                    end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
                }
                end = min(end + 1, bytes.count)
            } else {
                while end < bytes.count, bytes[end] != UInt8(ascii: " "), bytes[end] != UInt8(ascii: "&") { end += 1 }
            }
            bytes.replaceSubrange(start..<end, with: stars)
            from = start + stars.count
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func find(_ needle: [UInt8], in haystack: [UInt8], from: Int) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        var index = from
        while index + needle.count <= haystack.count {
            if haystack[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }
}
