import Foundation
import TestFixtures
import Testing

/// The README and the manual under docs/ link into each other by file and heading: every relative link must name a
/// file that exists and, when it has one, a heading of that file (GitHub's anchors), so that moving or renaming a
/// section cannot leave a reader at a dead link.
@Suite("README and docs/: every relative link resolves", .timeLimit(.minutes(1)))
struct DocumentationLinkTests {
    static let pages = ["README.md", "BENCHMARKS.md"] + (
        (try? FileManager.default.contentsOfDirectory(atPath: packageRootPath + "/docs")) ?? []
    ).filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }

    /// GitHub's anchor of a heading: lowercased, punctuation other than `-` and `_` dropped, spaces as `-`.
    static func anchor(_ heading: String) -> String {
        let kept = heading.lowercased().unicodeScalars.filter {
            CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_" || $0 == " "
        }
        return String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-")
    }

    static func anchors(of page: String) throws -> Set<String> {
        let text = try String(contentsOfFile: packageRootPath + "/" + page, encoding: .utf8)
        var anchors = Set<String>()
        var inFence = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, line.hasPrefix("#") else { continue }
            let heading = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces)
            anchors.insert(anchor(heading))
        }
        return anchors
    }

    @Test("every page's relative links name existing files and headings")
    func linksResolve() throws {
        #expect(Self.pages.count >= 10, "\(Self.pages)")
        var broken: [String] = []
        var checked = 0
        let link = try NSRegularExpression(pattern: #"\]\(([^)\s]+)\)"#)
        for page in Self.pages {
            let text = try String(contentsOfFile: packageRootPath + "/" + page, encoding: .utf8)
            let folder = (page as NSString).deletingLastPathComponent
            for match in link.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
                let target = String(text[Range(match.range(at: 1), in: text)!])
                if target.hasPrefix("http://") || target.hasPrefix("https://") || target.hasPrefix("mailto:") { continue }
                let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
                let file = parts[0].isEmpty ? page : (folder.isEmpty ? String(parts[0]) : folder + "/" + parts[0])
                let path = (packageRootPath + "/" + file as NSString).standardizingPath
                checked += 1
                guard FileManager.default.fileExists(atPath: path) else {
                    broken.append("\(page): \(target) (no file \(file))")
                    continue
                }
                if parts.count == 2, path.hasSuffix(".md") {
                    let relative = String(path.dropFirst(packageRootPath.count + 1))
                    if !(try Self.anchors(of: relative)).contains(String(parts[1])) {
                        broken.append("\(page): \(target) (no heading #\(parts[1]) in \(relative))")
                    }
                }
            }
        }
        #expect(checked > 50, "only \(checked) links checked")
        #expect(broken.isEmpty, "broken links:\n\(broken.joined(separator: "\n"))")
    }

    @Test("anchors are made as GitHub makes them")
    func anchorRule() {
        #expect(Self.anchor("Configuration (`config.json`)") == "configuration-configjson")
        #expect(Self.anchor("Safety: what photodrop promises") == "safety-what-photodrop-promises")
        #expect(Self.anchor("Quick start: from nothing to photos in the browser") == "quick-start-from-nothing-to-photos-in-the-browser")
    }
}
