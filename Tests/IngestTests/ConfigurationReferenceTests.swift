import Foundation
import TestFixtures
import Testing

@testable import PhotodropConfiguration

/// docs/configuration.md against the loader: two sources written apart, compared, so that neither drifts. The page is
/// read as Markdown (the first cell of its tables' rows, each key in backticks); the keys come from the loader's own
/// lists, the ones it checks every config file against.
@Suite("The configuration reference matches the loader", .timeLimit(.minutes(1)))
struct ConfigurationReferenceTests {
    /// Every key the loader accepts, dotted; object-valued keys (`serve`, `serve.tls`) separately.
    static var loaderKeys: (leaves: Set<String>, objects: Set<String>) {
        let nested: [String: [String]] = [
            "catalog": IngestConfig.catalogKeys, "video": IngestConfig.videoKeys, "log": IngestConfig.logKeys,
            "serve": IngestConfig.serveKeys, "metrics": IngestConfig.metricsKeys,
        ]
        var leaves = Set<String>()
        var objects = Set<String>()
        for key in IngestConfig.topLevelKeys {
            guard let children = nested[key] else {
                leaves.insert(key)
                continue
            }
            objects.insert(key)
            for child in children {
                if key == "serve" && child == "tls" {
                    objects.insert("serve.tls")
                    for part in IngestConfig.tlsKeys { leaves.insert("serve.tls.\(part)") }
                } else {
                    leaves.insert("\(key).\(child)")
                }
            }
        }
        return (leaves, objects)
    }

    /// The keys docs/configuration.md documents: the backticked names in the first cell of each table row.
    static func documentedKeys() throws -> Set<String> {
        let page = try String(contentsOfFile: packageRootPath + "/docs/configuration.md", encoding: .utf8)
        var keys = Set<String>()
        var inFence = false
        for line in page.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, line.hasPrefix("| "), !line.hasPrefix("|---") else { continue }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false)
            guard cells.count > 2 else { continue }
            let first = cells[1]
            var rest = first[...]
            while let open = rest.firstIndex(of: "`") {
                let after = rest.index(after: open)
                guard let close = rest[after...].firstIndex(of: "`") else { break }
                keys.insert(String(rest[after..<close]))
                rest = rest[rest.index(after: close)...]
            }
        }
        keys.remove("key")  // the header row
        return keys
    }

    @Test("every key the loader accepts is documented, and every documented key exists")
    func referenceMatchesLoader() throws {
        let (leaves, objects) = Self.loaderKeys
        let documented = try Self.documentedKeys()
        #expect(!leaves.isEmpty && documented.count > 30, "\(documented.count) keys read from the page")
        let undocumented = leaves.subtracting(documented).sorted()
        #expect(undocumented.isEmpty, "keys the loader accepts that docs/configuration.md does not name: \(undocumented)")
        let unknown = documented.subtracting(leaves).subtracting(objects).sorted()
        #expect(unknown.isEmpty, "keys docs/configuration.md names that the loader refuses: \(unknown)")
    }

    @Test("the check sees a key missing from the page and a key the loader does not know")
    func theCheckCanFail() throws {
        let (leaves, _) = Self.loaderKeys
        let documented = try Self.documentedKeys()
        // The same comparison with one key taken away and one made up: both are reported.
        var fewer = documented
        fewer.remove("claimLeaseSeconds")
        #expect(leaves.subtracting(fewer) == ["claimLeaseSeconds"])
        #expect(documented.union(["serve.port"]).subtracting(leaves).subtracting(Self.loaderKeys.objects) == ["serve.port"])
    }

    /// The table's rows: key, example (JSON as written in config.json), and the "on reload" cell.
    static func rows() throws -> [(key: String, example: String, reload: String)] {
        let page = try String(contentsOfFile: packageRootPath + "/docs/configuration.md", encoding: .utf8)
        var rows: [(String, String, String)] = []
        for line in page.split(separator: "\n") where line.hasPrefix("| `") {
            let cells = line.dropFirst(2).components(separatedBy: " | ")
            guard cells.count >= 6 else { continue }
            let unquote = { (cell: String) in cell.trimmingCharacters(in: CharacterSet(charactersIn: "`")) }
            rows.append((unquote(cells[0]), unquote(cells[3]), cells[4]))
        }
        return rows
    }

    /// `{"a": {"b": value}}` for the dotted key `a.b`, merged into `base`.
    static func setting(_ key: String, _ value: Any, in base: [String: Any]) -> [String: Any] {
        let parts = key.split(separator: ".").map(String.init)
        func put(_ parts: ArraySlice<String>, _ object: [String: Any]) -> [String: Any] {
            var object = object
            guard let first = parts.first else { return object }
            if parts.count == 1 {
                object[first] = value
            } else {
                object[first] = put(parts.dropFirst(), object[first] as? [String: Any] ?? [:])
            }
            return object
        }
        return put(parts[...], base)
    }

    static func load(_ object: [String: Any]) throws -> IngestConfig {
        let data = try JSONSerialization.data(withJSONObject: object)
        return try IngestConfig.parse(Array(data), file: "/srv/photodrop/config.json", baseDirectory: "/srv/photodrop")
    }

    @Test("every key's example loads, differs from the default, and the reload column is what the reload code does")
    func examplesAndReloadColumn() throws {
        let rows = try Self.rows()
        #expect(rows.count == Self.loaderKeys.leaves.count, "one row per key: \(rows.map(\.key))")
        // Keys that need a companion to load: set in both configs compared.
        let companions: [String: [String: Any]] = [
            "catalog.passwordFile": ["catalog": ["postgres": "host=db"]],
            "serve.tls.certificate": ["serve": ["tls": ["certificate": "/c.pem", "key": "/k.pem"]]],
            "serve.tls.key": ["serve": ["tls": ["certificate": "/c.pem", "key": "/k.pem"]]],
        ]
        for row in rows {
            #expect(["live", "restart"].contains(row.reload), "\(row.key): on reload '\(row.reload)'")
            // The example group is `root`, which only root may give files to (the loader checks that); the tests run
            // as root in CI.
            if row.key == "libraryGroup" && geteuid() != 0 { continue }
            let base = companions[row.key] ?? [:]
            let value = try JSONSerialization.jsonObject(with: Data(row.example.utf8), options: .fragmentsAllowed)
            let old: IngestConfig
            let new: IngestConfig
            do {
                old = try Self.load(base)
                new = try Self.load(Self.setting(row.key, value, in: base))
            } catch {
                Issue.record("\(row.key): the example \(row.example) does not load: \(error)")
                continue
            }
            #expect(old != new, "\(row.key): the example \(row.example) is the default")
            let restart = !ConfigReload.serveFixedChanges(from: old, to: new).isEmpty
            let live = !ConfigReload.liveChanges(from: old, to: new).isEmpty || row.key.hasPrefix("serve.")
                || row.key.hasPrefix("log.")
            if row.reload == "restart" {
                #expect(restart, "\(row.key) is documented as needing a restart, but a reload would apply it")
            } else {
                #expect(!restart && live, "\(row.key) is documented as applied live, but a reload refuses it")
            }
        }
    }
}
