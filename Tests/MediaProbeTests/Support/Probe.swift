import Foundation

@testable import MediaProbe

/// Probing fixtures through the public API: bytes are written to a temporary file, probed by path, and removed.
enum Probe {
    /// A temporary folder, removed by `body`'s end.
    static func withTemporaryDirectory<T>(_ body: (URL) throws -> T) throws -> T {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("MediaProbeTests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: url) }
        return try body(url)
    }

    /// Probes `bytes` stored under `name` (the name never matters to the verdict).
    static func bytes(_ bytes: [UInt8], name: String = "fixture.bin", policy: VideoPolicy = .appleDefault) throws
        -> ProbeResult
    {
        try withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent(name)
            try Data(bytes).write(to: url)
            return try MediaProber(policy: policy).probe(path: url.path)
        }
    }

    /// Probes `bytes` in memory through the same dispatch, without libmagic (for the sniffed formats).
    static func memory(_ bytes: [UInt8], policy: VideoPolicy = .appleDefault) throws -> ProbeResult {
        try ContentClassifier.analyze(ByteSource(bytes: bytes), policy: policy, magic: nil)
    }
}
