import Foundation
import TestFixtures
import Testing

/// Small things a user reads: `--version` and where else the version shows, the `assets` table's SIZE column, and
/// `show`'s camera line.
@Suite("version, tables and show", .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"), .timeLimit(.minutes(3)))
struct ListingCommandTests {
    @Test("--version prints a semantic version and the commit of the build; status and status --json show the same")
    func version() async throws {
        let sandbox = try Sandbox("version")
        let printed = try await sandbox.run(["--version"])
        #expect(printed.status == 0, "\(printed)")
        let line = printed.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let parts = line.split(separator: " ")
        #expect(parts.first == "photodrop", "\(line)")
        let semantic = try #require(parts.dropFirst().first.map(String.init), "\(line)")
        let numbers = semantic.split(separator: ".")
        #expect(numbers.count == 3 && numbers.allSatisfy { Int($0) != nil }, "MAJOR.MINOR.PATCH: \(semantic)")
        // Built from a git checkout (as here): the commit, as git names it.
        let head = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/git"), ["-C", URL(fileURLWithPath: #filePath).deletingLastPathComponent().path,
            "rev-parse", "--short=12", "HEAD"])
        if head.status == 0 {
            #expect(line.contains("(commit \(head.stdout.trimmingCharacters(in: .whitespacesAndNewlines))"), "\(line)")
        }
        let status = try await sandbox.run(["status", "--json"]).jsonObject()
        #expect(status["version"] as? String == semantic, "\(status)")
        #expect(head.status != 0 || (status["commit"] as? String)?.hasPrefix(head.stdout.prefix(12)) == true, "\(status)")
        let text = try await sandbox.run(["status"])
        #expect(text.stdout.contains("Version") && text.stdout.contains(semantic), "\(text)")
    }

    @Test("the SIZE column ends its numbers in one column whatever their unit; show names the camera, or says it is unknown")
    func sizesAndCamera() async throws {
        let sandbox = try Sandbox("listing")
        try sandbox.write("drop/Mixed/small.jpg", SyntheticJPEG.bytes(seed: 1, taken: "2024:01:01 10:00:00"))
        try sandbox.write("drop/Mixed/large.jpg", SyntheticJPEG.bytes(seed: 2, taken: "2024:01:02 10:00:00", scanBytes: 30_000))
        try sandbox.write("drop/Mixed/larger.jpg", SyntheticJPEG.bytes(seed: 3, taken: "2024:01:03 10:00:00", scanBytes: 3_000))
        _ = try await sandbox.run(["import", "--no-derivatives", sandbox.root.appendingPathComponent("drop").path])
        let table = try await sandbox.run(["assets"])
        let lines = table.stdout.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.contains("assets;") }
        let header = try #require(lines.first)
        let end = try #require(header.range(of: "SIZE")).upperBound
        let column = header.distance(from: header.startIndex, to: end)
        var units: Set<String> = []
        for row in lines.dropFirst() {
            let characters = Array(row)
            // "  879 kB", " 1.03 MB", "  912 B ": the number's last digit three characters before the column's end.
            #expect(characters.count > column && characters[column - 4].isNumber && characters[column - 3] == " ", "\(table.stdout)")
            units.insert(String(characters[(column - 2)..<column]).trimmingCharacters(in: .whitespaces))
        }
        #expect(units.contains("B") && units.contains("kB"), "sizes in bytes and kilobytes: \(units)\n\(table.stdout)")

        let assets = try await sandbox.run(["assets", "--json"]).jsonLines()
        let id = try #require(assets.first?["id"] as? String)
        let shown = try await sandbox.run(["show", id])
        #expect(shown.stdout.contains("Camera     unknown (the file names no camera)"), "\(shown)")
    }
}
