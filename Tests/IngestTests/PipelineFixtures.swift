import Foundation

@testable import Ingest

/// Tiny valid JPEGs, each distinct (a comment segment with the index), a few hundred bytes.
enum JPEGFixture {
    static func bytes(_ index: Int, scanBytes: Int = 200) -> [UInt8] {
        func segment(_ marker: UInt8, _ payload: [UInt8]) -> [UInt8] {
            [0xFF, marker, UInt8((payload.count + 2) >> 8), UInt8((payload.count + 2) & 0xFF)] + payload
        }
        var bytes: [UInt8] = [0xFF, 0xD8]
        bytes += segment(0xE0, Array("JFIF".utf8) + [0, 1, 1, 0, 0, 72, 0, 72, 0, 0])
        bytes += segment(0xFE, Array("photodrop ingest fixture \(index)".utf8))
        bytes += segment(0xDB, [0] + [UInt8](repeating: 1, count: 64))
        bytes += segment(0xC0, [8, 0, 48, 0, 64, 3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1])
        bytes += segment(0xC4, [0] + [UInt8](repeating: 0, count: 16))
        bytes += segment(0xDA, [3, 1, 0, 2, 0x11, 3, 0x11, 0, 0x3F, 0])
        var state = UInt32(truncatingIfNeeded: 777 &+ index)
        var scan: [UInt8] = []
        while scan.count < scanBytes {
            state = state &* 1_103_515_245 &+ 12345
            let byte = UInt8(truncatingIfNeeded: state >> 16)
            scan.append(byte)
            if byte == 0xFF { scan.append(0) }
        }
        return bytes + scan + [0xFF, 0xD9]
    }

    /// Writes fixture `index` to `relative` below `folder`; returns the full path.
    @discardableResult
    static func write(_ index: Int, to relative: String, in folder: TemporaryFolder) throws -> String {
        let path = folder.url(relative)
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data(bytes(index)).write(to: URL(fileURLWithPath: path))
        return path
    }
}

/// Collects what a committer reports.
final class OutcomeCollector: Sendable {
    let outcomes = Locked<[FileOutcome]>([])
    let deferrals = Locked<[Deferral]>([])

    var hooks: Committer.Hooks {
        Committer.Hooks(
            finished: { outcome in self.outcomes.withLock { $0.append(outcome) } },
            deferred: { deferral in self.deferrals.withLock { $0.append(deferral) } })
    }

    func kinds() -> [String: FileOutcome.Kind] {
        Dictionary(outcomes.value.map { ($0.path, $0.kind) }, uniquingKeysWith: { first, _ in first })
    }
}
