import Foundation
import TestFixtures
import Testing

/// The layers the README draws, as a rule on the sources: every module of ours may import only the modules listed
/// for it here (and the toolchain's own). A forbidden import — the server reaching into Ingest, the catalog into the
/// codecs — fails this test before a reviewer has to notice it. The list is kept by hand on purpose: changing who may
/// import whom is a decision, made here and in the README's module map.
@Suite("Layers: who may import whom", .timeLimit(.minutes(1)))
struct LayeringTests {
    /// The toolchain's modules, which any layer may use. Not the whole `Foundation`: on Linux it re-exports Glibc
    /// (every libc call would be one import away) and loads ICU; FoundationEssentials is what the modules need.
    static let toolchain: Set<String> = [
        "FoundationEssentials", "FoundationInternationalization", "Dispatch", "Synchronization",
    ]

    /// Module → what it may import besides the toolchain.
    static let allowed: [String: Set<String>] = [
        "PhotodropSystem": ["CLinux", "CCrypto", "Glibc"],
        "PhotodropConcurrency": ["PhotodropSystem"],
        "PhotodropTelemetry": ["PhotodropSystem"],
        "BuildInfo": [],
        "PhotoCatalog": ["PhotodropSystem", "CSQLite", "PostgresClient"],
        "MediaProbe": ["PhotodropSystem", "CMagic", "CBrotli", "CXMP", "CZlib"],
        "PhotoImaging": ["CVips", "CFFmpeg", "CLibRaw", "PhotodropSystem"],
        "Rendering": ["PhotodropSystem"],
        "PostgresClient": ["PhotodropSystem", "CPostgres"],
        "PhotoImageManager": [
            "PhotodropSystem", "PhotodropConcurrency", "PhotodropTelemetry", "PhotoCatalog", "MediaProbe", "Rendering",
        ],
        "PhotodropConfiguration": ["PhotodropSystem", "PhotodropTelemetry", "PhotoCatalog", "MediaProbe", "Rendering"],
        "Uploads": ["PhotodropSystem", "PhotodropConfiguration", "PhotoCatalog"],
        "Ingest": [
            "PhotodropSystem", "PhotodropConcurrency", "PhotodropTelemetry", "PhotodropConfiguration", "Uploads",
            "PhotoCatalog", "MediaProbe", "PhotoImageManager", "Rendering",
        ],
        "LibraryJSON": ["PhotodropSystem", "PhotodropTelemetry", "PhotoCatalog", "MediaProbe", "BuildInfo"],
        "PhotoServer": [
            "CMicroHTTPD", "PhotodropSystem", "PhotodropTelemetry", "PhotodropConfiguration", "Uploads", "LibraryJSON",
            "PhotoCatalog", "PhotoImageManager", "Rendering",
        ],
        "PhotodropCLI": [
            "PhotodropSystem", "PhotodropConcurrency", "PhotodropTelemetry", "PhotodropConfiguration", "Uploads",
            "Ingest", "LibraryJSON", "PhotoServer", "PhotoCatalog", "MediaProbe", "PhotoImageManager", "Rendering",
            "BuildInfo",
        ],
        "RenderHelperProcess": ["PhotoImaging", "Rendering", "MediaProbe", "PhotodropSystem"],
        "photodrop": ["PhotodropCLI", "PhotodropSystem", "RenderHelperProcess", "Rendering"],
    ]

    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Sources")

    /// Every `import` (plain, `@_exported`, `@testable`, or of a single declaration) in the Swift files below `folder`.
    static func imports(below folder: URL) throws -> [(file: String, module: String)] {
        var found: [(String, String)] = []
        let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        while let url = walker?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            for line in text.split(separator: "\n") {
                var words = line.split(separator: " ").map(String.init)
                while let first = words.first, first.hasPrefix("@") { words.removeFirst() }
                guard words.first == "import", words.count >= 2 else { continue }
                // `import struct Foundation.Data`: the module is the part before the dot.
                let target = words.count >= 3 ? words[2] : words[1]
                found.append((url.lastPathComponent, String(target.split(separator: ".").first ?? "")))
            }
        }
        return found
    }

    @Test("every Swift module of ours imports only what its layer allows")
    func importsFollowTheLayers() throws {
        let modules = try FileManager.default.contentsOfDirectory(atPath: Self.sources.path).filter { name in
            // C modules (a module map or C sources, no Swift) have no imports to check; fuzz targets are tools.
            name != "FuzzTargets"
                && (try? FileManager.default.contentsOfDirectory(atPath: Self.sources.appendingPathComponent(name).path))?
                    .contains { $0.hasSuffix(".swift") || !$0.contains(".") } == true
                && !name.hasPrefix("C")
        }
        #expect(modules.count >= 15, "found the modules: \(modules)")
        var violations: [String] = []
        for module in modules.sorted() {
            let found = try Self.imports(below: Self.sources.appendingPathComponent(module))
            guard let allowed = Self.allowed[module] else {
                violations.append("\(module): a module this test does not know; add its layer here and to the README")
                continue
            }
            for (file, imported) in found where !Self.toolchain.contains(imported) && !allowed.contains(imported) {
                violations.append("\(module)/\(file) imports \(imported)")
            }
        }
        #expect(violations.isEmpty, "imports across the layers:\n\(violations.joined(separator: "\n"))")
    }

    @Test("no module but PhotodropSystem calls the C library: the compiled objects say so")
    func systemCallsGoThroughPhotodropSystem() async throws {
        let root = Self.sources.deletingLastPathComponent()
        let build = root.appendingPathComponent(".build/debug")
        try skipUnless(
            FileManager.default.fileExists(atPath: build.appendingPathComponent("PhotodropSystem.build").path),
            "no debug build at \(build.path) to read (the release-only test run)")
        let result = try await ProcessRunner.run(
            root.appendingPathComponent("scripts/check-system-boundary.sh"), [build.path], timeout: 300)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("call the system through PhotodropSystem only"), "\(result)")
    }

    @Test("the rule catches what it is for: a server file importing Ingest is a violation")
    func theRuleBites() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("layering-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try "import Foundation\n@testable import Ingest\nimport struct PhotoCatalog.Asset\n".write(
            to: folder.appendingPathComponent("Leak.swift"), atomically: true, encoding: .utf8)
        let found = try Self.imports(below: folder).map(\.module)
        #expect(found == ["Foundation", "Ingest", "PhotoCatalog"])
        let allowed = try #require(Self.allowed["PhotoServer"])
        #expect(!allowed.contains("Ingest") && allowed.contains("PhotoCatalog"))
    }
}
