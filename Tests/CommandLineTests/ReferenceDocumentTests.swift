import Foundation
import TestFixtures
import Testing

@testable import PhotodropCLI
import BuildInfo

/// docs/command-line.md and contrib/man/photodrop.1 are `photodrop help --format markdown|man`, made from the command
/// declarations: a change to a command that is not carried into them fails here (regenerate them with
/// `swift run photodrop help --format markdown > docs/command-line.md` and `--format man > contrib/man/photodrop.1`).
@Suite("The command-line reference and the man page are the parser's own", .timeLimit(.minutes(1)))
struct ReferenceDocumentTests {
    let reference = ReferenceFormatter(parser: PhotodropCommands.parser)

    @Test("docs/command-line.md is `photodrop help --format markdown`")
    func markdownIsCurrent() throws {
        let page = try String(contentsOfFile: packageRootPath + "/docs/command-line.md", encoding: .utf8)
        #expect(page == reference.markdown(), "stale: regenerate with photodrop help --format markdown")
    }

    @Test("contrib/man/photodrop.1 is `photodrop help --format man`")
    func manPageIsCurrent() throws {
        let page = try String(contentsOfFile: packageRootPath + "/contrib/man/photodrop.1", encoding: .utf8)
        #expect(page == reference.manPage(version: PhotodropVersion.semantic), "stale: regenerate with photodrop help --format man")
    }

    @Test("every command and every option is in both, each command once")
    func everythingIsThere() {
        let markdown = reference.markdown()
        let man = reference.manPage(version: "1.0")
        for (path, spec) in reference.commands() {
            let name = path.joined(separator: " ")
            #expect(markdown.components(separatedBy: "\n## photodrop \(name)\n").count == 2, "\(name)")
            #expect(man.contains(".SS \(name.replacingOccurrences(of: "-", with: "\\-"))\n"), "\(name)")
            for option in spec.options {
                #expect(markdown.contains("`\(option.synopsis)`"), "\(name) \(option.synopsis)")
                #expect(man.contains(option.synopsis.replacingOccurrences(of: "-", with: "\\-")), "\(name) \(option.synopsis)")
            }
        }
        // A roff line never starts with a dot or an apostrophe that is text.
        for line in man.split(separator: "\n") where line.hasPrefix(".") {
            #expect(line.hasPrefix(".TH") || line.hasPrefix(".SH") || line.hasPrefix(".SS") || line.hasPrefix(".TP")
                || line.hasPrefix(".B ") || line.hasPrefix(".I ") || line.hasPrefix(".PP") || line.hasPrefix(".\\\""), "\(line)")
        }
    }
}
