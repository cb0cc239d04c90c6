import Foundation
import Testing

/// The shared real-media corpus (`../shared/corpus/dev` next to the package root) and its contract, `EXPECTED.tsv`.
enum Corpus {
    struct Expectation: Sendable {
        var file: String
        var outcome: String
        var reasons: [String]
    }

    /// `…/shared/corpus/dev`, found from this source file's location so that it works from any worktree.
    static let directory: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { url.deleteLastPathComponent() }  // Support, MediaProbeTests, Tests, package root
        return url.deletingLastPathComponent().appendingPathComponent("shared/corpus/dev")
    }()

    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: directory.appendingPathComponent("EXPECTED.tsv").path)
    }

    static let skipNote = "the corpus is absent (looked for \(directory.path))"

    /// The rows of EXPECTED.tsv.
    static func expectations() throws -> [Expectation] {
        let text = try String(contentsOf: directory.appendingPathComponent("EXPECTED.tsv"), encoding: .utf8)
        var rows: [Expectation] = []
        for line in text.split(separator: "\n").dropFirst() where !line.isEmpty {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 3 else { continue }
            let reasons = fields.count > 3 ? fields[3].split(separator: "|").map(String.init) : []
            rows.append(Expectation(file: fields[0], outcome: fields[2], reasons: reasons))
        }
        return rows
    }

    /// Every media file of the folder (everything but the two TSV files and dotfiles).
    static func mediaFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".tsv") }
            .sorted()
    }

    static func path(_ file: String) -> String { directory.appendingPathComponent(file).path }
}
