import Foundation
import TestFixtures
import Testing

@testable import MediaProbe

/// The fast libmagic set-up (MIME type only, most built-in tests off, 64 KiB looked at) must still name every corpus
/// file as `file --mime-type` with all tests did (MANIFEST.tsv's mime_type column).
@Suite("libmagic flags", .requires(Corpus.isAvailable, Corpus.skipNote), .timeLimit(.minutes(3)))
struct MagicFlagsTests {
    @Test("the reduced flags agree with full libmagic on every corpus file")
    func agreesWithFullLibmagic() throws {
        let manifest = try String(
            contentsOf: Corpus.directory.appendingPathComponent("MANIFEST.tsv"), encoding: .utf8)
        var expected: [String: String] = [:]
        for line in manifest.split(separator: "\n").dropFirst() {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false)
            if fields.count > 5 { expected[String(fields[0])] = String(fields[5]) }
        }
        let cookie = try MagicCookie()
        var disagreements: [String] = []
        for file in try Corpus.mediaFiles() {
            guard let want = expected[file] else { continue }
            let head = Array(try Data(contentsOf: URL(fileURLWithPath: Corpus.path(file))).prefix(MagicCookie.bytesMax))
            let got = cookie.mimeType(of: head, count: head.count) ?? "error"
            if got != want { disagreements.append("\(file): \(got), full libmagic: \(want)") }
        }
        print(
            "libmagic with photodrop's flags disagrees on \(disagreements.count) file(s)"
                + (disagreements.isEmpty ? "" : ":\n" + disagreements.joined(separator: "\n")))
        #expect(disagreements.isEmpty)
    }
}
