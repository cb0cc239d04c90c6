import PhotodropSystem
import Foundation
import TestFixtures
import Testing

@testable import Ingest
import PhotodropTelemetry

/// The definition of health, as the daemon keeps it: when a failing file counts as stuck, what clears a problem.
@Suite("HealthMonitor", .timeLimit(.minutes(3)))
struct HealthMonitorTests {
    let start = UTCTimestamp(seconds: 1_800_000_000)

    func at(_ seconds: Int64) -> UTCTimestamp { UTCTimestamp(seconds: start.seconds + seconds) }

    @Test("a failing file is stuck after three attempts or a minute, and no longer once it made it")
    func stuckFiles() {
        let health = HealthMonitor()
        health.fileFailed("Trip/a.jpg", kind: .file, message: "EACCES", at: at(0))
        health.fileFailed("Trip/a.jpg", kind: .file, message: "EACCES", at: at(1))
        #expect(health.problems(at: at(2)).isEmpty, "two quick failures are not a problem yet")
        health.fileFailed("Trip/a.jpg", kind: .file, message: "EACCES again", at: at(3))
        let stuck = health.problems(at: at(3))
        #expect(stuck.map(\.code) == ["stuckFiles"])
        #expect(stuck.first?.oldestPath == "Trip/a.jpg" && stuck.first?.since == at(0))
        #expect(stuck.first?.message.contains("EACCES again") == true)
        health.fileFailed("Trip/b.jpg", kind: .file, message: "EIO", at: at(10))
        #expect(health.problems(at: at(30)).first?.count == 1, "b failed once, 20 s ago")
        #expect(health.problems(at: at(71)).first?.count == 2, "b has failed for over a minute")
        health.fileFinished("Trip/a.jpg")
        health.fileFinished("Trip/b.jpg")
        #expect(health.problems(at: at(100)).isEmpty)
    }

    @Test("a locked library, rejected files that cannot be quarantined, unreadable folders, the watch limit")
    func conditions() throws {
        let health = HealthMonitor()
        health.fileFailed("x.jpg", kind: .databaseBusy, message: "database is locked", at: at(0))
        health.fileFailed("Docs/note.txt", kind: .quarantine, message: "EACCES on Rejected/Docs", at: at(1))
        health.folderUnreadable("/srv/Inbox/Private", message: "cannot list it", at: at(2))
        health.watchLimit(unwatched: 12, at: at(3))
        let codes = Set(health.problems(at: at(4)).map(\.code))
        #expect(codes == ["libraryLocked", "rejectedUnreadable", "inboxUnreadable", "watchLimit"])
        health.libraryWritable()
        health.fileFinished("Docs/note.txt")
        health.scanCompleted()
        health.watchLimit(unwatched: 0)
        #expect(Set(health.problems(at: at(5)).map(\.code)) == [], "\(health.problems(at: at(5)))")
    }

    @Test("problems survive the round trip through the daemon's status file")
    func statusFile() throws {
        let problem = HealthProblem(
            code: "stuckFiles", count: 2, oldestPath: "Trip/caf\u{0}E9.jpg", since: at(5), message: "a \"quoted\"\nline")
        let value = try JSONParser.parse(Array(problem.json.utf8))
        #expect(HealthProblem(json: value) == problem)
        let status = DaemonStatus(
            pid: 42, started: at(0), updated: at(9), waiting: 3, counts: IngestStatistics.Counts(), problems: [problem])
        let folder = try TemporaryFolder("status-file")
        try Data(status.json.utf8).write(to: URL(fileURLWithPath: folder.url(DaemonStatus.fileName)))
        let read = try #require(DaemonStatus.read(path: folder.url(DaemonStatus.fileName)))
        #expect(read.pid == 42 && read.updated == at(9) && read.waiting == 3 && read.problems == [problem])
    }
}
