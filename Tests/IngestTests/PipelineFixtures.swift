import Foundation
import TestFixtures

@testable import Ingest

/// Tiny valid JPEGs, each distinct (a comment segment with the index), a few hundred bytes.
enum JPEGFixture {
    static func bytes(_ index: Int, scanBytes: Int = 200) -> [UInt8] {
        SyntheticJPEG.bytes(seed: index, scanBytes: scanBytes)
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
