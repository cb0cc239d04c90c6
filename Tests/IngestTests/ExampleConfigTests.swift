import Foundation
import TestFixtures
import Testing

@testable import PhotodropConfiguration

/// Every example under examples/ is loaded as photodrop loads a config file (the same checks, the same errors), so
/// that a reader who copies one gets a config that starts; the Samba share is checked with Samba's own testparm.
@Suite("examples/: every config loads, the Samba share parses", .timeLimit(.minutes(1)))
struct ExampleConfigTests {
    static let examples = packageRootPath + "/examples"

    static func configs() throws -> [String] {
        var found: [String] = []
        for folder in try FileManager.default.contentsOfDirectory(atPath: examples).sorted() {
            let path = examples + "/" + folder
            for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] where name.hasSuffix(".json") {
                found.append(path + "/" + name)
            }
        }
        return found.sorted()
    }

    @Test("every example config loads, with what its README promises")
    func everyConfigLoads() throws {
        let files = try Self.configs()
        #expect(files.count >= 4, "\(files)")
        var loaded: [String: IngestConfig] = [:]
        for file in files {
            do {
                loaded[String(file.dropFirst(Self.examples.count + 1))] = try IngestConfig.load(contentsOf: file)
            } catch {
                Issue.record("\(file) does not load: \(error)")
            }
        }
        let a = try #require(loaded["multi-node/node-a.json"])
        let b = try #require(loaded["multi-node/node-b.json"])
        #expect(a.catalog.isPostgres && b.catalog.isPostgres && a.catalog.postgres == b.catalog.postgres)
        #expect(a.library == b.library && a.inbox == b.inbox && a.node != b.node)
        #expect(a.sharedNode == "node-a" && b.sharedNode == "node-b")
        let home = try #require(loaded["home-two-folders/config.json"])
        #expect(home.serve.tokenFile == "/etc/photodrop/serve-token" && home.serve.host == "127.0.0.1")
        #expect(!home.catalog.isPostgres)
        let samba = try #require(loaded["samba-drop-share/config.json"])
        #expect(samba.inbox == "/srv/photodrop/Inbox" && samba.settleMilliseconds == 3000)
    }

    @Test("the Samba share's smb.conf section is valid for testparm")
    func sambaShareParses() async throws {
        let testparm = "/usr/bin/testparm"
        try skipUnless(FileManager.default.isExecutableFile(atPath: testparm), "testparm is missing (apt-get install samba-common-bin)")
        let result = try await ProcessRunner.run(
            URL(fileURLWithPath: testparm), ["-s", Self.examples + "/samba-drop-share/smb.conf"])
        #expect(result.status == 0, "\(result)")
        #expect(result.stdout.contains("[photos]") && result.stdout.contains("path = /srv/photodrop/Inbox"), "\(result)")
        #expect(!result.stderr.contains("Unknown parameter"), "\(result.stderr)")
    }
}
