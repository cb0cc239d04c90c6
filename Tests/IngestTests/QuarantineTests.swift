import Foundation
import PhotodropSystem
import TestFixtures
import Testing

@testable import Ingest
import PhotodropTelemetry

@Suite("Quarantine and SafeRename", .timeLimit(.minutes(3)))
struct QuarantineTests {
    let reason = QuarantineReason(
        code: "unsupportedVideo", message: "HEVC tagged hev1: remux with -tag:v hvc1", mime: "video/quicktime")
    let time = UTCTimestamp(seconds: 1_748_781_296, nanoseconds: 789_000_000)

    func read(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    func reasonObject(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any] ?? [:]
    }

    @Test func movesTheFileBesideItsReason() throws {
        let folder = try TemporaryFolder("quarantine")
        let file = try folder.write("claimed/IMG_1.MOV", "movie bytes")
        let quarantine = Quarantine(root: folder.url("Rejected"))
        let rejected = try quarantine.reject(
            file, album: "Trip", reason: reason, source: "Inbox/Trip/IMG_1.MOV", at: time)
        #expect(rejected.path == folder.url("Rejected/Trip/IMG_1.MOV"))
        #expect(rejected.reasonPath == folder.url("Rejected/Trip/IMG_1.MOV.reason.json"))
        #expect(try read(rejected.path) == "movie bytes")
        #expect(access(file, F_OK) != 0)
        let object = try reasonObject(rejected.reasonPath)
        #expect(object["code"] as? String == "unsupportedVideo")
        #expect(object["message"] as? String == reason.message)
        #expect(object["mime"] as? String == "video/quicktime")
        #expect(object["source"] as? String == "Inbox/Trip/IMG_1.MOV")
        #expect(object["time"] as? String == "2025-06-01T12:34:56.789Z")
        // No pending leftovers.
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.url("Rejected/Trip"))
        #expect(Set(leftovers) == ["IMG_1.MOV", "IMG_1.MOV.reason.json"])
    }

    @Test func aNameClashGetsASuffixAndNothingIsOverwritten() throws {
        let folder = try TemporaryFolder("quarantine-clash")
        let quarantine = Quarantine(root: folder.url("Rejected"))
        var paths: [String] = []
        for index in 1...3 {
            let file = try folder.write("in\(index)/IMG_1.jpg", "version \(index)")
            paths.append(try quarantine.reject(file, album: "Trip", reason: reason, source: "s\(index)", at: time).path)
        }
        // A name taken only by a reason file (its image was removed by a person) is not reused either.
        try FileManager.default.removeItem(atPath: folder.url("Rejected/Trip/IMG_1 (2).jpg"))
        let fourth = try folder.write("in4/IMG_1.jpg", "version 4")
        paths.append(try quarantine.reject(fourth, album: "Trip", reason: reason, source: "s4", at: time).path)
        #expect(
            paths.map { Path.lastComponent(of: $0) } == [
                "IMG_1.jpg", "IMG_1 (2).jpg", "IMG_1 (3).jpg", "IMG_1 (4).jpg",
            ])
        #expect(try read(folder.url("Rejected/Trip/IMG_1.jpg")) == "version 1")
        #expect(try read(folder.url("Rejected/Trip/IMG_1 (3).jpg")) == "version 3")
        #expect(try reasonObject(folder.url("Rejected/Trip/IMG_1 (4).jpg.reason.json"))["source"] as? String == "s4")
    }

    @Test func noAlbumMeansTheRejectedRootAndAlbumNamesAreSafe() throws {
        let folder = try TemporaryFolder("quarantine-root")
        let quarantine = Quarantine(root: folder.url("Rejected"))
        let loose = try folder.write("a.txt", "text")
        #expect(
            try quarantine.reject(loose, album: nil, reason: reason, source: "a.txt").path
                == folder.url("Rejected/a.txt"))
        let odd = try folder.write("b.txt", "text")
        let rejected = try quarantine.reject(odd, album: "../../etc/.x", reason: reason, source: "b.txt")
        #expect(rejected.path == folder.url("Rejected/_.._.._etc_.x/b.txt"))
        #expect(Quarantine.folderName(forAlbum: ".hidden") == "_.hidden")
        #expect(Quarantine.folderName(forAlbum: "") == "_")
        #expect(Quarantine.suffixed("README", 2) == "README (2)")
        #expect(Quarantine.suffixed("a.tar.gz", 3) == "a.tar (3).gz")
    }

    @Test func aMissingSourceIsAnErrorAndLeavesNothingBehind() throws {
        let folder = try TemporaryFolder("quarantine-missing")
        let quarantine = Quarantine(root: folder.url("Rejected"))
        #expect(throws: QuarantineError.self) {
            try quarantine.reject(folder.url("nope.jpg"), album: "Trip", reason: reason, source: "nope.jpg")
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url("Rejected/Trip"))
        #expect(left.isEmpty)
    }

    @Test func recoveryCompletesReasonsOfMovedFilesAndDropsStaleOnes() throws {
        let folder = try TemporaryFolder("quarantine-recover")
        let root = folder.url("Rejected")
        // Crash after the move, before the reason rename:
        try folder.write("Rejected/Trip/IMG_1.jpg", "moved")
        try folder.write("Rejected/Trip/.IMG_1.jpg.reason.json.pending", "{\"code\":\"corrupt\"}")
        // Crash before the move: the file is still in the inbox, the pending reason is stale.
        try folder.write("Rejected/Trip/.IMG_2.jpg.reason.json.pending", "{}")
        // Crash in the middle of a cross-device copy.
        try folder.write("Rejected/Trip/.IMG_3.jpg.photodrop-copy-1-2", "partial")
        // A finished rejection is untouched.
        try folder.write("Rejected/IMG_4.jpg", "done")
        try folder.write("Rejected/IMG_4.jpg.reason.json", "{}")
        let recovery = Quarantine(root: root).recover()
        #expect(recovery.completed == [folder.url("Rejected/Trip/IMG_1.jpg.reason.json")])
        #expect(
            Set(recovery.discarded) == [
                folder.url("Rejected/Trip/.IMG_2.jpg.reason.json.pending"),
                folder.url("Rejected/Trip/.IMG_3.jpg.photodrop-copy-1-2"),
            ])
        #expect(try read(folder.url("Rejected/Trip/IMG_1.jpg.reason.json")) == "{\"code\":\"corrupt\"}")
        let trip = try FileManager.default.contentsOfDirectory(atPath: folder.url("Rejected/Trip"))
        #expect(Set(trip) == ["IMG_1.jpg", "IMG_1.jpg.reason.json"])
    }

    @Test func renameNeverReplaces() throws {
        let folder = try TemporaryFolder("rename")
        let a = try folder.write("a", "A")
        let b = try folder.write("b", "B")
        let directory = try Directory.open(atPath: folder.path)
        #expect(try Quarantine.move(FileLocation(path: a), to: directory, as: "b") == false)
        #expect(try read(b) == "B" && (try read(a)) == "A")
        #expect(try Quarantine.move(FileLocation(path: a), to: directory, as: "c"))
        #expect(try read(folder.url("c")) == "A")
        #expect(throws: SystemError.self) { try Quarantine.move(FileLocation(path: a), to: directory, as: "d") }
    }

    @Test(.requires(QuarantineTests.sharedMemoryIsAnotherFileSystem, "needs /dev/shm on another file system"))
    func rejectingAcrossFileSystemsCopies() throws {
        let inbox = try TemporaryFolder("xdev-src")
        let file = try inbox.write("IMG_9.jpg", "cross-device bytes")
        chmod(file, 0o640)
        var times = [timespec(tv_sec: 1_500_000_000, tv_nsec: 0), timespec(tv_sec: 1_500_000_000, tv_nsec: 0)]
        #expect(utimensat(AT_FDCWD, file, &times, 0) == 0)
        let rejectedRoot = "/dev/shm/photodrop-test-rejected-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: rejectedRoot) }
        let rejected = try Quarantine(root: rejectedRoot).reject(
            file, album: "Trip", reason: reason, source: "IMG_9.jpg")
        #expect(try read(rejected.path) == "cross-device bytes")
        var info = stat()
        #expect(stat(rejected.path, &info) == 0)
        #expect(info.st_mode & 0o777 == 0o640 && info.st_mtim.tv_sec == 1_500_000_000, "mode and mtime kept")
        #expect(access(file, F_OK) != 0)
        #expect(access(rejected.reasonPath, F_OK) == 0)
    }

    static var sharedMemoryIsAnotherFileSystem: Bool {
        var shm = stat()
        var temp = stat()
        return stat("/dev/shm", &shm) == 0 && stat(FileManager.default.temporaryDirectory.path, &temp) == 0
            && shm.st_dev != temp.st_dev && access("/dev/shm", W_OK) == 0
    }
}
