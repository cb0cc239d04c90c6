import Foundation
import MediaProbe
import TestFixtures
import Testing

@testable import Ingest

/// docs/troubleshooting.md against the code: a section (`### \`code\``) for every rejection reason and every health
/// problem, and none for a code the code does not have.
@Suite("The troubleshooting page matches the code's reasons and problems", .timeLimit(.minutes(1)))
struct TroubleshootingReferenceTests {
    /// The backticked `###` headings under the `##` heading `part`.
    static func documentedCodes(under part: String) throws -> Set<String> {
        let page = try String(contentsOfFile: packageRootPath + "/docs/troubleshooting.md", encoding: .utf8)
        var codes = Set<String>()
        var inPart = false
        for line in page.split(separator: "\n") {
            if line.hasPrefix("## ") { inPart = line.dropFirst(3) == part[...] }
            if inPart, line.hasPrefix("### `"), line.hasSuffix("`") { codes.insert(String(line.dropFirst(5).dropLast())) }
        }
        return codes
    }

    @Test("every rejection reason has its section, and every section is a reason")
    func rejectionReasons() throws {
        let documented = try Self.documentedCodes(under: "Rejected files")
        #expect(documented == Set(QuarantineReason.Code.allCases.map(\.rawValue)))
        // The probe's verdicts are among them.
        #expect(Set(RejectionReason.allCases.map { QuarantineReason.Code($0).rawValue }).isSubset(of: documented))
        #expect(RejectionReason.allCases.allSatisfy { QuarantineReason.Code($0).rawValue == $0.rawValue })
    }

    @Test("every health problem has its section, and every section is a problem")
    func healthProblems() throws {
        let documented = try Self.documentedCodes(under: "Health problems")
        #expect(documented == Set(HealthProblem.Code.allCases.map(\.rawValue)))
        #expect(documented.count >= 13)
    }
}
