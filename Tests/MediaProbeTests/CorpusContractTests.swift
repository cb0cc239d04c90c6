import Foundation
import TestFixtures
import Testing

@testable import MediaProbe

@Suite("Corpus contract (EXPECTED.tsv)", .requires(Corpus.isAvailable, Corpus.skipNote), .timeLimit(.minutes(3)))
struct CorpusContractTests {
    @Test("every corpus file gets the outcome and a reason EXPECTED.tsv allows")
    func contract() throws {
        let prober = try MediaProber()
        let expectations = try Corpus.expectations()
        let files = try Corpus.mediaFiles()
        let listed = Set(expectations.map(\.file))
        #expect(files.filter { !listed.contains($0) } == [], "files in the corpus without a row in EXPECTED.tsv")

        var table: [String] = []
        var lines: [String] = []
        for row in expectations {
            let result = try prober.probe(path: Corpus.path(row.file))
            let reason = result.rejection?.rawValue ?? ""
            let ok = result.outcome == row.outcome && (row.outcome != "rejected" || row.reasons.contains(reason))
            lines.append(
                "\(ok ? "ok  " : "FAIL") \(row.file.padding(toLength: 40, withPad: " ", startingAt: 0)) "
                    + "\(result.outcome)/\(reason) \(result.mime) — \(result.message)")
            if !ok {
                table.append(
                    "| \(row.file) | \(row.outcome) \(row.reasons.joined(separator: "|")) | \(result.outcome) "
                        + "\(reason) | \(result.message) |")
            }
        }
        print(lines.joined(separator: "\n"))
        if !table.isEmpty {
            print(
                "Corpus mismatches:\n| file | expected | got | message |\n|---|---|---|---|\n"
                    + table.joined(separator: "\n"))
        }
        #expect(
            table.isEmpty, "\(table.count) corpus file(s) do not match EXPECTED.tsv:\n\(table.joined(separator: "\n"))")
    }
}
