import Foundation
import PhotodropSystem
import TestFixtures
import Testing

@testable import Ingest
import PhotodropConfiguration

/// The three folders of a configuration must never contain one another, however they are written (the data-loss
/// issue's case 2: `{"library": "L", "inbox": "L/originals"}` made photodrop claim every stored original as a drop and
/// delete it as a duplicate of itself), and ignore patterns must be valid globs (case 10).
@Suite("config: folders that overlap, and invalid globs", .timeLimit(.minutes(3)))
struct ConfigFolderSafetyTests {
    func problems(_ text: String, base: String) -> [ConfigError.Problem] {
        do {
            _ = try IngestConfig.parse(Array(text.utf8), file: base + "/config.json", baseDirectory: base)
            Issue.record("expected a ConfigError for \(text)")
            return []
        } catch {
            return error.problems
        }
    }

    @Test(
        "every overlap between library, inbox and rejected is refused, naming both keys",
        arguments: [
            (#"{"library": "L", "inbox": "L/originals"}"#, "inbox", "library"),
            (#"{"library": "L", "inbox": "L"}"#, "inbox", "library"),
            (#"{"library": "In/L", "inbox": "In"}"#, "library", "inbox"),
            (#"{"rejected": "L/Rejected", "library": "L"}"#, "rejected", "library"),
            (#"{"rejected": "R", "library": "R/lib"}"#, "library", "rejected"),
            (#"{"rejected": "In/R", "inbox": "In"}"#, "rejected", "inbox"),
            (#"{"rejected": "X", "inbox": "X/in"}"#, "inbox", "rejected"),
            (#"{"library": "./L/../L", "rejected": "L"}"#, "rejected", "library"),
        ] as [(String, String, String)])
    func overlapsAreRefused(_ text: String, _ key: String, _ otherKey: String) throws {
        let folder = try TemporaryFolder("overlap")
        let found = problems(text, base: folder.path)
        #expect(found.count >= 1, "\(text)")
        let named = found.first { $0.key == key || $0.key == otherKey }
        #expect(named != nil, "\(found)")
        if let named {
            let other = named.key == key ? otherKey : key
            #expect(named.message.contains("\"\(other)\""), "the message names the other key: \(named.message)")
        }
    }

    @Test("an overlap reached through a symbolic link is refused too")
    func overlapThroughASymlink() throws {
        let folder = try TemporaryFolder("overlap-link")
        try folder.mkdir("real/Library/originals")
        #expect(symlink(folder.url("real/Library"), folder.url("lib")) == 0)
        // `drop` is a link to a folder inside the library: lexically the two are unrelated.
        #expect(symlink(folder.url("real/Library/originals"), folder.url("drop")) == 0)
        let found = problems(#"{"library": "lib", "inbox": "drop"}"#, base: folder.path)
        #expect(found.contains { $0.key == "inbox" && $0.message.contains("\"library\"") }, "\(found)")
        // And a library inside the inbox through a link to a folder that does not exist yet below it.
        try folder.mkdir("in")
        #expect(symlink(folder.url("in"), folder.url("in-link")) == 0)
        let below = problems(#"{"inbox": "in", "library": "in-link/not-yet/Library"}"#, base: folder.path)
        #expect(below.contains { $0.key == "library" && $0.message.contains("\"inbox\"") }, "\(below)")
    }

    @Test("separate folders, also beside each other with a common prefix, are fine")
    func separateFoldersAreFine() throws {
        let folder = try TemporaryFolder("separate")
        let config = try IngestConfig.parse(
            Array(#"{"library": "Lib", "inbox": "Library-inbox", "rejected": "Lib-rejected"}"#.utf8),
            file: folder.url("config.json"), baseDirectory: folder.path)
        #expect(config.library == folder.url("Lib"))
    }

    @Test(
        "an invalid glob in ignore is refused, naming the pattern",
        arguments: ["[", "*.[jJ", "photo\\", "[[:nonsense:]]", "a[!"])
    func invalidGlobs(_ pattern: String) throws {
        let folder = try TemporaryFolder("glob")
        let escaped = pattern.replacingOccurrences(of: "\\", with: "\\\\")
        let found = problems("{\"ignore\": [\"\(escaped)\"]}", base: folder.path)
        #expect(found.count == 1)
        #expect(found.first?.key == "ignore[0]")
        #expect(found.first?.message.contains(pattern) == true, "\(found)")
    }

    @Test("valid globs, with classes and escapes, are accepted", arguments: ["[]]x", "[!a-z]*", "*.[jJ][pP][gG]", "\\[draft\\]*", "[[:digit:]]*", "@eaDir"])
    func validGlobs(_ pattern: String) throws {
        #expect(IgnoreRules.problem(in: pattern) == nil, "\(pattern)")
    }
}
