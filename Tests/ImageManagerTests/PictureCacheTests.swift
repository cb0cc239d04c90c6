import Foundation
import Testing

@testable import PhotoCatalog
@testable import PhotoImageManager

/// A picture kept whole, as a caller of the cache keeps one.
private final class TestPicture: KeptPicture {
    let byteCount: Int
    init(bytes: Int) { byteCount = bytes }
}

/// The picture cache's bounds: entries in a ring, kept answers within their byte budget (oldest out first), and the
/// byte count following every way an answer leaves.
@Suite("PictureCache: where pictures are, and small ones kept whole within a budget", .timeLimit(.minutes(3)))
struct PictureCacheTests {
    private func file(_ index: Int, bytes: Int = 10_000) -> Derivative.File {
        Derivative.File(
            mimeType: "image/webp", pixelWidth: 10, pixelHeight: 10, byteCount: Int64(bytes),
            sha256: String(repeating: String(index % 10), count: 64), libraryURL: URL(fileURLWithPath: "/nowhere"),
            relativePath: "derivatives/\(index).webp")
    }

    private func answer(bytes: Int = 10_000) throws -> TestPicture {
        TestPicture(bytes: bytes)
    }

    @Test("answers over the budget push out the oldest answers; their entries stay, sent from files")
    func budget() throws {
        let cache = PictureCache(capacity: 100, answerBudget: 30_000, shards: 1)
        for index in 0..<5 {
            cache.remember(file(index), as: "k\(index)", checked: 1)
            cache.keep(try answer(), for: "k\(index)")
            #expect(cache.keptBytes <= 30_000)
        }
        #expect(cache.keptBytes == 30_000)
        #expect(cache.entry("k0")?.answer == nil && cache.entry("k1")?.answer == nil)
        #expect(cache.entry("k0")?.file == file(0), "the entry stays without its answer")
        #expect((2..<5).allSatisfy { cache.entry("k\($0)")?.answer != nil })
        // Forgetting one gives its bytes back.
        cache.forget("k4")
        #expect(cache.keptBytes == 20_000 && cache.entry("k4") == nil)
    }

    @Test("the ring of entries drops the oldest, with its answer's bytes; an answer is kept once per entry")
    func ring() throws {
        let cache = PictureCache(capacity: 3, answerBudget: 1 << 20, shards: 1)
        for index in 0..<3 {
            cache.remember(file(index), as: "k\(index)", checked: 1)
            cache.keep(try answer(), for: "k\(index)")
        }
        cache.keep(try answer(), for: "k1")
        #expect(cache.keptBytes == 30_000, "a second answer for the same entry is not kept")
        cache.keep(try answer(), for: "unknown")
        #expect(cache.keptBytes == 30_000, "no answer without an entry")
        cache.remember(file(3), as: "k3", checked: 1)
        #expect(cache.entry("k0") == nil && cache.keptBytes == 20_000)
        // Seen again at a later generation: the entry says so, and keeps its answer.
        cache.remember(file(1), as: "k1", checked: 9)
        #expect(cache.entry("k1")?.checked == 9 && cache.entry("k1")?.answer != nil)
    }

    @Test("over many more pictures than fit, the bytes stay within the budget and the bookkeeping stays small")
    func churn() throws {
        let cache = PictureCache(capacity: 50, answerBudget: 100_000, shards: 1)
        for index in 0..<2_000 {
            cache.remember(file(index), as: "k\(index)", checked: UInt64(index))
            cache.keep(try answer(bytes: 1_000 + index % 7_000), for: "k\(index)")
            #expect(cache.keptBytes <= 100_000)
        }
        #expect(cache.keptBytes > 0)
        #expect(cache.bookkeepingCount <= 3 * 50, "\(cache.bookkeepingCount) keys remembered for kept answers")
    }

    @Test("what is kept: small pictures within the shard's budget; none with a budget of 0")
    func keeps() {
        let cache = PictureCache(capacity: 100, answerBudget: 64 << 20, shards: 64)
        #expect(cache.keeps(byteCount: 40_000) && cache.keeps(byteCount: 256 << 10))
        #expect(!cache.keeps(byteCount: (256 << 10) + 1), "a large picture is sent from its file")
        #expect(!PictureCache(answerBudget: 0).keeps(byteCount: 1))
        #expect(!PictureCache(answerBudget: 1 << 20, shards: 64).keeps(byteCount: 20_000), "16 KiB per shard")
    }
}
