import PhotodropSystem
import Foundation
import Testing

@testable import PhotoCatalog

/// The writer's string helpers stand in for `NSString`/`URL` path arithmetic and for `UUID()`; they must give the same
/// answers.
@Suite("FilePathText and LocalIdentifier.newUUID", CatalogGate.one)
struct PathAndIdentifierTests {
    static let paths = [
        "/a/b/c.jpg", "/c.jpg", "c.jpg", "/a/b/archive.tar.gz", "/a/.hidden", "/a/name.", "/a/name", "/a/b.d/name",
        "/in/Été 2024/IMG 0001.HEIC", "/in/🙂/x.MoV", "/a/b/..jpg", "/a/...jpg", "/a/x..jpg",
        "/a/file.my ext", "/a/f. x", "/a/f.j-g", "/a/.a.b", "relative/dir/file.JPG",
    ]

    @Test("parent, last component and extension as NSString and URL give them", arguments: paths)
    func pathArithmeticMatchesFoundation(_ path: String) {
        let expectedParent = (path as NSString).deletingLastPathComponent
        #expect(Path.parent(of: path) == expectedParent)
        #expect(Path.lastComponent(of: path) == (path as NSString).lastPathComponent)
        #expect(Path.pathExtension(of: path) == URL(fileURLWithPath: path).pathExtension)
    }

    @Test("new UUIDs have UUID().uuidString's shape, are version 4 and do not repeat")
    func uuidsAreRandomVersionFour() throws {
        var seen = Set<String>()
        for _ in 0..<10_000 {
            let text = LocalIdentifier.newUUID()
            let parsed = try #require(UUID(uuidString: text), "\(text)")
            #expect(parsed.uuidString == text)
            let bytes = withUnsafeBytes(of: parsed.uuid) { Array($0) }
            #expect(bytes[6] >> 4 == 4)
            #expect(bytes[8] >> 6 == 0b10)
            seen.insert(text)
        }
        #expect(seen.count == 10_000)
    }

    @Test("UUIDs drawn on many threads at once are all distinct (one shared random pool)")
    func uuidsFromManyThreads() async throws {
        let batches = await withTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { (0..<2_000).map { _ in LocalIdentifier.newUUID() } }
            }
            var all: [[String]] = []
            for await batch in group { all.append(batch) }
            return all
        }
        let all = batches.flatMap { $0 }
        #expect(all.count == 16_000)
        #expect(Set(all).count == 16_000)
    }
}
