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
}
