import MediaProbe
import PhotodropSystem
import Foundation
import TestFixtures
import Testing

@testable import Ingest
import PhotodropConfiguration
import PhotoCatalog

@Suite("IngestConfig", .timeLimit(.minutes(3)))
struct IngestConfigTests {
    func parse(_ text: String, base: String = "/srv/photodrop") throws(ConfigError) -> IngestConfig {
        try IngestConfig.parse(Array(text.utf8), file: base + "/config.json", baseDirectory: base)
    }

    func problems(_ text: String) -> [ConfigError.Problem] {
        do {
            _ = try parse(text)
            Issue.record("expected a ConfigError for \(text)")
            return []
        } catch {
            #expect(error.file == "/srv/photodrop/config.json")
            return error.problems
        }
    }

    @Test func theRepositorysConfigLoadsAsIs() throws {
        let path = packageRootPath + "/config.json"
        let config = try IngestConfig.load(contentsOf: path)
        #expect(config.sourceFile == path)
        #expect(config.library == packageRootPath + "/Library")
        #expect(config.inbox == packageRootPath + "/Inbox")
        #expect(config.rejected == packageRootPath + "/Rejected")
        #expect(config.workers == 0 && config.workerCount >= 1)
        #expect(config.settleMilliseconds == 2000)
        #expect(config.incompleteGraceSeconds == 300)
        #expect(config.duplicates == .addToAlbum)
        #expect(config.video == .defaults)
        #expect(config.log == IngestConfig.Log(format: .text, level: .info))
        // The quick start's server: loopback, its token in a file beside the config (made by `serve --new-token`).
        #expect(config.serve.tokenFile == packageRootPath + "/serve-token")
        #expect(config.serve.host == "127.0.0.1" && config.serve.port == 8377)
        // And from the repository root without --config, as `swift run photodrop watch` does.
        let implicit = try IngestConfig.load(explicitPath: nil, currentDirectory: packageRootPath)
        #expect(implicit == config)
    }

    @Test func anEmptyObjectIsAllDefaults() throws {
        let config = try parse("{}")
        var expected = IngestConfig(baseDirectory: "/srv/photodrop")
        expected.sourceFile = "/srv/photodrop/config.json"
        #expect(config == expected)
        #expect(config.settle == .milliseconds(2000))
        #expect(config.incompleteGrace == .seconds(300))
    }

    @Test func everyKeyIsRead() throws {
        let config = try parse(
            """
            {
              "library": "/data/lib", "inbox": "../drop", "rejected": "./bad/../Rejected", "libraryGroup": "root",
              "workers": 3, "settleMilliseconds": 0, "incompleteGraceSeconds": 60,
              "ignore": ["*.xmp", "@eaDir", "Scans/raw/*"], "duplicates": "skip",
              "video": {"videoCodecs": ["avc1"], "audioCodecs": []},
              "log": {"format": "json", "level": "debug"}
            }
            """)
        #expect(config.library == "/data/lib")
        #expect(config.inbox == "/srv/drop")
        #expect(config.rejected == "/srv/photodrop/Rejected")
        #expect(config.libraryGroup == LibraryGroup(name: "root", id: 0))
        #expect(config.workers == 3 && config.workerCount == 3)
        #expect(config.settleMilliseconds == 0)
        #expect(config.incompleteGraceSeconds == 60)
        #expect(config.ignore == ["*.xmp", "@eaDir", "Scans/raw/*"])
        #expect(config.duplicates == .skip)
        #expect(config.video.videoCodecs.map(\.description) == ["avc1"])
        #expect(config.video.audioCodecs.isEmpty)
        #expect(config.log == IngestConfig.Log(format: .json, level: .debug))
        #expect(config.ignoreRules.reason(forFile: "Trip/IMG_1.xmp") == .pattern("*.xmp"))
    }

    @Test func unknownKeysAtEveryLevelSuggestTheRightOne() {
        let found = problems(
            """
            {
              "worker": 2,
              "video": {"videoCodec": ["avc1"]},
              "log": {"levle": "info"},
              "colour": "blue"
            }
            """)
        #expect(found.map(\.key) == ["worker", "video.videoCodec", "log.levle", "colour"])
        #expect(found[0].message.contains("Did you mean \"workers\"?"))
        #expect(found[0].position == .init(line: 2, column: 3))
        #expect(found[1].message.contains("Did you mean \"videoCodecs\"?"))
        #expect(found[1].message.contains("Allowed in \"video\": videoCodecs, audioCodecs"))
        #expect(found[2].message.contains("Did you mean \"level\"?"))
        #expect(!found[3].message.contains("Did you mean"))
        #expect(found[3].message.contains("Allowed at the top level: library, inbox"))
    }

    @Test(arguments: [
        ("{\"workers\": -1}", "workers", "from 0 to 128"),
        ("{\"workers\": 129}", "workers", "found 129"),
        ("{\"workers\": 2.5}", "workers", "whole number"),
        ("{\"workers\": \"4\"}", "workers", "without quotes"),
        ("{\"workers\": true}", "workers", "found true"),
        ("{\"settleMilliseconds\": 3600001}", "settleMilliseconds", "from 0 to 3600000"),
        ("{\"settleMilliseconds\": 1e3}", "settleMilliseconds", "whole number"),
        ("{\"incompleteGraceSeconds\": -5}", "incompleteGraceSeconds", "from 0 to 604800"),
        ("{\"library\": \"\"}", "library", "must not be empty"),
        ("{\"inbox\": 7}", "inbox", "folder path in a string"),
        ("{\"serve\": {\"listen\": \"photos.example:80\"}}", "serve.listen", "with an IP address"),
        ("{\"serve\": {\"listen\": \"127.0.0.1:70000\"}}", "serve.listen", "ADDRESS:PORT"),
        ("{\"serve\": {\"listen\": 8377}}", "serve.listen", "found the number 8377"),
        ("{\"serve\": {\"token\": \"short\"}}", "serve.token", "at least 16"),
        ("{\"serve\": {\"token\": \"with spaces in it 0123456789\"}}", "serve.token", "without spaces"),
        ("{\"serve\": {\"token\": \"0123456789abcdef0\", \"tokenFile\": \"t\"}}", "serve.token", "not both"),
        ("{\"serve\": {\"tls\": {\"certificate\": \"c.pem\"}}}", "serve.tls", "both"),
        ("{\"serve\": {\"behindProxy\": \"yes\"}}", "serve.behindProxy", "true or false"),
        ("{\"serve\": {\"maxUploadBytes\": 0}}", "serve.maxUploadBytes", "whole number"),
        ("{\"serve\": {\"pictureCacheMiB\": -1}}", "serve.pictureCacheMiB", "whole number"),
        ("{\"serve\": {\"pictureCacheMiB\": \"64\"}}", "serve.pictureCacheMiB", "whole number"),
        ("{\"serve\": {\"port\": 1}}", "serve.port", "unknown key"),
        ("{\"catalog\": \"postgresql:///x\"}", "catalog", "must be an object"),
        ("{\"catalog\": {\"postgres\": \"\"}}", "catalog.postgres", "connection string"),
        ("{\"catalog\": {\"postgres\": 5432}}", "catalog.postgres", "found the number 5432"),
        ("{\"catalog\": {\"postgress\": \"x\"}}", "catalog.postgress", "Did you mean \"postgres\"?"),
        ("{\"catalog\": {\"passwordFile\": \"pw\"}}", "catalog.passwordFile", "needs \"postgres\""),
        ("{\"node\": \"\"}", "node", "1 to 32 letters"),
        ("{\"node\": \"a/b\"}", "node", "1 to 32 letters"),
        ("{\"node\": \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\"}", "node", "1 to 32 letters"),
        ("{\"claimLeaseSeconds\": 5}", "claimLeaseSeconds", "15"),
        ("{\"claimLeaseSeconds\": \"120\"}", "claimLeaseSeconds", "whole number"),
        ("{\"rejected\": null}", "rejected", "found null"),
        ("{\"ignore\": \"*.xmp\"}", "ignore", "list of glob patterns"),
        ("{\"ignore\": [\"ok\", 3]}", "ignore[1]", "glob pattern in a string"),
        ("{\"ignore\": [\"\"]}", "ignore[0]", "non-empty"),
        ("{\"ignore\": [\"/abs/*\"]}", "ignore[0]", "cannot start with \"/\""),
        ("{\"duplicates\": \"addtoalbum\"}", "duplicates", "Did you mean \"addToAlbum\"?"),
        ("{\"duplicates\": \"keep\"}", "duplicates", "one of \"addToAlbum\", \"skip\""),
        ("{\"video\": []}", "video", "must be an object"),
        ("{\"video\": {\"videoCodecs\": \"avc1\"}}", "video.videoCodecs", "list of four-character codes"),
        ("{\"video\": {\"videoCodecs\": [\"avc\"]}}", "video.videoCodecs[0]", "exactly 4 printable ASCII"),
        ("{\"video\": {\"audioCodecs\": [\"mp4a\", \"ac-3\", \"äbcd\"]}}", "video.audioCodecs[2]", "found the string"),
        ("{\"log\": \"json\"}", "log", "must be an object"),
        ("{\"log\": {\"format\": \"yaml\"}}", "log.format", "one of \"text\", \"json\""),
        ("{\"log\": {\"level\": \"warn\"}}", "log.level", "Did you mean \"warning\"?"),
        ("{\"inbox\": \"Box\", \"library\": \"Box/Library\"}", "library", "lies inside \"inbox\""),
        ("{\"inbox\": \"Box\", \"rejected\": \"Box\"}", "rejected", "same folder as \"inbox\""),
        ("{\"library\": \"L\", \"rejected\": \"L\"}", "rejected", "same folder as \"library\""),
        ("{\"libraryGroup\": \"no-such-group-here\"}", "libraryGroup", "no group \"no-such-group-here\""),
        ("{\"libraryGroup\": 1000}", "libraryGroup", "name of a group"),
    ])
    func badValuesNameTheKeyAndWhatIsAllowed(_ text: String, _ key: String, _ fragment: String) {
        let found = problems(text)
        #expect(found.count == 1, "\(found)")
        #expect(found.first?.key == key)
        #expect(found.first?.message.contains(fragment) == true, "\(found.first?.message ?? "")")
        #expect(found.first?.position != nil)
    }

    @Test func serveSettingsAreRead() throws {
        let config = try parse(
            #"{"serve": {"listen": "[::1]:9000", "tokenFile": "secret/token", "tls": {"certificate": "c.pem", "key": "k.pem"}, "behindProxy": true, "maxUploadBytes": 1048576, "pictureCacheMiB": 0}}"#
        )
        #expect(config.serve.host == "::1" && config.serve.port == 9000 && config.serve.authority == "[::1]:9000")
        #expect(config.serve.tokenFile == "/srv/photodrop/secret/token" && config.serve.token == nil)
        #expect(config.serve.certificateFile == "/srv/photodrop/c.pem" && config.serve.keyFile == "/srv/photodrop/k.pem")
        #expect(config.serve.usesTLS && config.serve.behindProxy && config.serve.maxUploadBytes == 1 << 20)
        #expect(config.serve.pictureCacheMiB == 0)
        #expect(config.serve.isLoopback)
        let defaults = try parse("{}").serve
        #expect(defaults.host == "127.0.0.1" && defaults.port == 8377 && defaults.maxUploadBytes == 4 << 30 && defaults.pictureCacheMiB == 64)
        #expect(ServeSettings.parseListen("localhost:8080")! == ("127.0.0.1", 8080))
        #expect(ServeSettings.parseListen("0.0.0.0:0")! == ("0.0.0.0", 0) && ServeSettings().isLoopback)
    }

    @Test("catalog.postgres, catalog.passwordFile and node are read; without them the catalog is SQLite, the node the host")
    func catalogAndNodeAreRead() throws {
        let config = try parse(
            #"{"catalog": {"postgres": "host=db.lan dbname=photodrop sslmode=require", "passwordFile": "secret/db"}, "node": "ingest-1"}"#
        )
        #expect(config.catalog.postgres == "host=db.lan dbname=photodrop sslmode=require")
        #expect(config.catalog.passwordFile == "/srv/photodrop/secret/db")
        #expect(config.catalog.isPostgres && config.node == "ingest-1" && config.sharedNode == "ingest-1")
        let defaults = try parse("{}")
        #expect(!defaults.catalog.isPostgres && defaults.sharedNode == nil)
        #expect(defaults.claimLeaseSeconds == 120)
        #expect(try parse(#"{"claimLeaseSeconds": 30}"#).claimLeaseSeconds == 30)
        #expect(IngestConfig.isValidNode(defaults.node))
        // A change of either needs a restart.
        #expect(ConfigReload.fixedChanges(from: defaults, to: config) == ["catalog.postgres", "catalog.passwordFile", "node"])
        // The password file: its first line; unreadable or empty ones are refused naming the key.
        let folder = try TemporaryFolder("password")
        let file = try folder.write("pw", "s3cret\nignored\n")
        #expect(try CatalogSettings(postgres: "x", passwordFile: file).password() == "s3cret")
        let empty = try folder.write("empty", "\n")
        #expect(throws: CatalogSettings.Problem.self) { try CatalogSettings(postgres: "x", passwordFile: empty).password() }
        do {
            _ = try CatalogSettings(postgres: "x", passwordFile: folder.url("missing")).password()
            Issue.record("a missing password file was read")
        } catch {
            #expect(error.description.contains("catalog.passwordFile") && error.description.contains("missing"))
        }
        // Messages never show a password written into the connection string.
        #expect(CatalogLocation.redacted("postgresql://app:hunter2@db/photodrop") == "postgresql://app:***@db/photodrop")
        #expect(CatalogLocation.redacted("host=db password=hunter2 dbname=p") == "host=db password=*** dbname=p")
        #expect(CatalogLocation.redacted("host=db password='a b\\' c' dbname=p") == "host=db password=*** dbname=p")
        #expect(CatalogLocation.redacted("postgresql:///p?host=/run&password=x&user=u") == "postgresql:///p?host=/run&password=***&user=u")
    }

    @Test func everyProblemIsReportedInFileOrder() throws {
        let found = problems("{\n  \"workers\": -1,\n  \"bogus\": 1,\n  \"log\": {\"level\": 3}\n}")
        #expect(found.map(\.key) == ["workers", "bogus", "log.level"])
        #expect(found.map { $0.position?.line } == [2, 3, 4])
    }

    @Test func theDescriptionNamesFileLineAndKey() {
        do {
            _ = try parse("{\n  \"workers\": 500\n}")
            Issue.record("expected an error")
        } catch {
            #expect(
                error.description
                    == "/srv/photodrop/config.json:2:14: \"workers\": must be a whole number from 0 to 128 (worker tasks (0 = one per core)); found 500"
            )
        }
    }

    @Test func syntaxErrorsNameFileAndPosition() {
        do {
            _ = try parse("{\n  \"workers\": 2,\n}")
            Issue.record("expected an error")
        } catch {
            #expect(error.problems.count == 1)
            #expect(error.description.hasPrefix("/srv/photodrop/config.json:3:1: invalid JSON: trailing comma"))
        }
    }

    @Test func theTopLevelMustBeAnObject() {
        let found = problems("[1]")
        #expect(found.first?.message.contains("one JSON object") == true)
    }

    @Test func pathsResolveAgainstTheConfigFilesFolder() throws {
        let folder = try TemporaryFolder("config-paths")
        try folder.write("etc/photodrop.json", "{\"inbox\": \"../spool/in\", \"library\": \"lib\"}")
        let config = try IngestConfig.load(explicitPath: "etc/photodrop.json", currentDirectory: folder.path)
        #expect(config.inbox == folder.path + "/spool/in")
        #expect(config.library == folder.path + "/etc/lib")
        #expect(config.rejected == folder.path + "/etc/Rejected")
        #expect(config.baseDirectory == folder.path + "/etc")
    }

    @Test("a path beginning with ~ is refused, with the full path to write (no shell expands it, and a service's HOME is not the user's)")
    func tildeIsRefused() throws {
        let home = ProcessInfo.processInfo.environment["HOME"] ?? "/home/NAME"
        for (text, key, example) in [
            (#"{"library": "~/Photos"}"#, "library", home + "/Photos"), (#"{"inbox": "~"}"#, "inbox", home),
            (#"{"rejected": "~alice/R"}"#, "rejected", "/home/alice/R"),
        ] {
            let found = problems(text)
            #expect(found.count == 1 && found.first?.key == key, "\(text): \(found)")
            let message = found.first?.message ?? ""
            #expect(message.contains("does not expand") && message.contains("\"\(example)\""), "\(message)")
        }
    }

    @Test func withoutConfigAMissingDefaultFileMeansDefaults() throws {
        let folder = try TemporaryFolder("config-none")
        let config = try IngestConfig.load(explicitPath: nil, currentDirectory: folder.path)
        #expect(config.sourceFile == nil)
        #expect(config.inbox == folder.path + "/Inbox")
        #expect(config.library == folder.path + "/Library")
    }

    @Test func aNamedFileMustExist() throws {
        let folder = try TemporaryFolder("config-missing")
        do {
            _ = try IngestConfig.load(explicitPath: "nope.json", currentDirectory: folder.path)
            Issue.record("expected an error")
        } catch {
            #expect(error.file == folder.path + "/nope.json")
            #expect(error.description.contains("does not exist"))
        }
    }

    @Test func anInvalidDefaultFileIsAnErrorNotDefaults() throws {
        let folder = try TemporaryFolder("config-bad-default")
        try folder.write("config.json", "{\"workers\": \"many\"}")
        #expect(throws: ConfigError.self) { try IngestConfig.load(explicitPath: nil, currentDirectory: folder.path) }
    }

    @Test func aFolderIsNotAConfigFile() throws {
        let folder = try TemporaryFolder("config-dir")
        try folder.mkdir("config.json")
        do {
            _ = try IngestConfig.load(explicitPath: nil, currentDirectory: folder.path)
            Issue.record("expected an error")
        } catch {
            #expect(error.description.contains("Is a directory"), "\(error)")
        }
    }
}

@Suite("FourCC and Suggestion", .timeLimit(.minutes(3)))
struct SmallTypesTests {
    @Test func fourCharacterCodes() {
        // Through a String, as the config parser has them (a literal would take the compile-time initializer).
        func code(_ text: String) -> FourCC? { FourCC(text) }
        #expect(code("avc1")?.rawValue == 0x6176_6331)
        #expect(code("ac-3") != nil)
        #expect(code("raw ") != nil)
        #expect(code("avc") == nil)
        #expect(code("avc12") == nil)
        #expect(code("äbc") == nil)
        #expect(code("a\tbc") == nil)
    }

    @Test(
        arguments: [
            ("imprt", ["import", "probe", "albums"], "import"),
            ("stauts", ["status", "show"], "status"),
            ("stat", ["status", "show"], "status"),
            ("ALBUMS", ["albums", "album"], "albums"),
            ("xyz", ["import", "probe"], nil),
            ("delet", ["delete", "albums"], "delete"),
            ("worker", ["workers", "library"], "workers"),
        ] as [(String, [String], String?)])
    func didYouMean(_ word: String, _ candidates: [String], _ expected: String?) {
        #expect(Suggestion.closest(to: word, among: candidates) == expected)
    }

    @Test func editDistanceCountsTranspositionsAsOne() {
        #expect(Suggestion.editDistance("status", "stauts") == 1)
        #expect(Suggestion.editDistance("", "abc") == 3)
        #expect(Suggestion.editDistance("kitten", "sitting") == 3)
    }
}
