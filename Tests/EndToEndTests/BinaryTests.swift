import Foundation
import TestFixtures
import Testing

@Suite("The built binary", ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct BinaryTests {
    @Test("photodrop --help lists every command and exits 0", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"))
    func helpListsCommands() async throws {
        let sandbox = try Sandbox("help")
        let result = try await runPhotodrop(["--help"], in: sandbox.root)
        #expect(result.status == 0, "\(result)")
        for command in ["watch", "import", "probe", "albums", "assets", "show", "album", "events", "verify", "status"] {
            #expect(result.stdout.contains(command), "help does not mention \(command)\n\(result)")
        }
    }

    @Test("a mistyped command exits 2 and suggests the right one", .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"))
    func mistypedCommand() async throws {
        let sandbox = try Sandbox("typo")
        let result = try await sandbox.run(["improt"])
        #expect(result.status == 2, "\(result)")
        #expect(result.stderr.contains("import"), "\(result)")
    }
}
