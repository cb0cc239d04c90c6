import Foundation
import PhotodropSystem
import Testing

@testable import PhotoCatalog

/// The placement intents of a writer's current block live in `locks/<session>.intents` (see `IntentLog`).
@Suite("IntentLog", CatalogGate.one)
struct IntentLogTests {
    static let entries = [
        IntentLog.Entry(
            action: .place, method: .move, source: "/in/Été 2024/IMG 0001.HEIC", inode: 42,
            destination: "originals/ab/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.heic"),
        IntentLog.Entry(
            action: .place, method: .copy, source: "/in/🙂/x.mov", inode: UInt64.max - 1,
            destination: "originals/ab/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-2.mov"),
        IntentLog.Entry(action: .remove, method: .copy, source: nil, inode: nil, destination: "originals/cd/x.jpg"),
    ]

    @Test("a record decodes to what was written, also after a longer record was overwritten")
    func roundTrip() throws {
        let folder = try TemporaryDirectory()
        let path = folder.appending("s.intents").path
        let descriptor = open(path, O_RDWR | O_CREAT, 0o644)
        defer { close(descriptor) }
        let many = (0..<300).map {
            IntentLog.Entry(
                action: .place, method: .move, source: "/inbox/A/\($0).jpg", inode: UInt64($0),
                destination: "originals/00/\($0).jpg")
        }
        try IntentLog.write(many, batch: 1, to: FileDescriptor(borrowing: descriptor), path: path)
        #expect(IntentLog.read(path: path)?.entries == many)
        try IntentLog.write(Self.entries, batch: 7, to: FileDescriptor(borrowing: descriptor), path: path)
        let read = try #require(IntentLog.read(path: path))
        #expect(read.batch == 7 && read.entries == Self.entries)
        #expect(
            try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
                == IntentLog.encode(
                    Self.entries, batch: 7
                ).count)
        try IntentLog.write([], batch: 8, to: FileDescriptor(borrowing: descriptor), path: path)
        #expect(IntentLog.read(path: path)?.entries == [])
    }

    @Test("a torn or damaged record is no record: cut short, a byte changed, another magic, a lying length")
    func tornRecords() {
        let record = IntentLog.encode(Self.entries, batch: 3)
        #expect(IntentLog.decode(record)?.entries == Self.entries)
        for length in [0, 4, 27, record.count / 2, record.count - 1] {
            #expect(IntentLog.decode(Array(record.prefix(length))) == nil, "cut at \(length)")
        }
        for offset in [0, 5, 30, record.count / 2, record.count - 1] {
            var damaged = record
            damaged[offset] ^= 0x40
            #expect(IntentLog.decode(damaged) == nil, "byte \(offset) changed")
        }
        var longer = record
        longer[16] = 0xFF  // payload length far beyond the file
        #expect(IntentLog.decode(longer) == nil)
        #expect(IntentLog.decode(record + [1, 2, 3])?.entries == Self.entries, "bytes after the record are ignored")
    }

    @Test(
        "verify: a dead writer's log is one interrupted change, its placed file no orphan; the next writer settles it")
    func deadWritersLog() async throws {
        let folder = try TemporaryDirectory()
        let library = folder.library()
        let kept = try folder.write(TestFiles.distinctBytes(size: 77), to: "kept.jpg")
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: kept)
        }
        // A writer that died after placing (renaming) one file of its block.
        let inbox = folder.appending("inbox")
        try FileManager.default.createDirectory(at: inbox, withIntermediateDirectories: true)
        let placed = library.originalsURL.appendingPathComponent("0c/" + UUID().uuidString.lowercased() + ".jpg")
        try FileManager.default.createDirectory(
            at: placed.deletingLastPathComponent(), withIntermediateDirectories: true)
        try TestFiles.distinctBytes(size: 88).write(to: placed)
        let source = inbox.appendingPathComponent("dropped.jpg")
        let locks = library.url.appendingPathComponent("locks").path
        let log = IntentLog.path(session: "gone-session", locksDirectory: locks)
        let descriptor = open(log, O_RDWR | O_CREAT, 0o644)
        try IntentLog.write(
            [
                IntentLog.Entry(
                    action: .place, method: .move, source: source.path, inode: TestFiles.inode(placed),
                    destination: "originals/0c/" + placed.lastPathComponent)
            ], batch: 1, to: FileDescriptor(borrowing: descriptor), path: log)
        close(descriptor)

        let report = try library.verify()
        #expect(report.issues(of: .orphanFile).isEmpty, "\(report.issues)")
        #expect(report.issues(of: .interruptedChange).count == 1)
        #expect(report.issues(of: .interruptedChange).first?.message.contains("gone-session") == true)

        try await PhotoLibrary(url: library.url).recoverInterruptedChanges()
        #expect(FileManager.default.fileExists(atPath: source.path), "the file is back where it came from")
        #expect(!FileManager.default.fileExists(atPath: placed.path))
        #expect(!FileManager.default.fileExists(atPath: log))
        #expect(try library.verify().isClean)
    }
}
