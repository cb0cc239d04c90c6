import Foundation
import MediaProbe
import Testing

@testable import LibraryJSON
@testable import PhotodropCLI

/// `probe --json` builds its lines directly (JSONEncoder cost twice the probe itself); these tests hold the direct
/// rendering to the `Codable` encoding of ``ProbeResult``, so that a field added to the probe cannot go missing from
/// the command's output, and check that parallel probing keeps the walk order.
@Suite("probe output", .timeLimit(.minutes(3)))
struct ProbeOutputTests {
    static let results: [ProbeResult] = [
        .accepted(
            .photo, message: "JPEG photo 4032×3024", mime: "image/jpeg", fileExtension: "jpg",
            metadata: MediaMetadata(
                captureDate: Date(timeIntervalSince1970: 1_714_564_800.125), captureDateSource: .exif,
                captureTimeZoneOffset: 7200, pixelWidth: 4032, pixelHeight: 3024, orientation: 6,
                location: .init(latitude: 47.376_887, longitude: 8.541_694, altitude: 408.5),
                contentIdentifier: "A1B2-\"quoted\"", make: "Apple", model: "iPhone 15 Pro")),
        .accepted(
            .video, message: "H.264/AAC QuickTime movie 12.3 s", mime: "video/quicktime", fileExtension: "mov",
            metadata: MediaMetadata(
                captureDate: Date(timeIntervalSince1970: 0), captureDateSource: .movieHeader, pixelWidth: 1920,
                pixelHeight: 1080, duration: 12.3, location: .init(latitude: -33.5, longitude: 151.25),
                frameCount: 369, container: "quicktime", videoCodec: "avc1", audioCodec: "mp4a")),
        .accepted(
            .gif, message: "animated GIF", mime: "image/gif", fileExtension: "gif",
            metadata: MediaMetadata(pixelWidth: 1, pixelHeight: 1, frameCount: 12, isAnimated: true)),
        .rejected(
            .corrupt, message: "truncated: mdat runs past the end of the file", mime: "video/mp4",
            fileExtension: "mp4", isTruncated: true),
        .rejected(
            .unsupportedType, message: "a text file (text/plain)\n\ttab", mime: "text/plain", fileExtension: "bin"),
    ]

    /// A JSON text as Foundation objects, for comparing values regardless of member order.
    func object(_ text: String) throws -> NSDictionary {
        try #require(JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary)
    }

    @Test("the direct rendering has exactly the keys and values of ProbeResult's Codable encoding", arguments: results)
    func directRenderingMatchesCodable(_ result: ProbeResult) throws {
        let direct = try object(CatalogJSON.probeItem(path: "/in/IMG 1.jpg", result: result).text)
        let encoded = try object(JSONNode(encoding: result).text)
        #expect(direct["path"] as? String == "/in/IMG 1.jpg")
        let withoutPath = direct.mutableCopy() as! NSMutableDictionary
        withoutPath.removeObject(forKey: "path")
        #expect(withoutPath == encoded, "direct: \(direct)\nCodable: \(encoded)")
        // And the first five fields come first, in the order the design gives.
        let text = CatalogJSON.probeItem(path: "p", result: result).text
        let keys = ["\"path\"", "\"outcome\"", "\"reason\"", "\"message\"", "\"mime\"", "\"fileExtension\""]
        let positions = keys.map { text.range(of: $0)?.lowerBound }
        #expect(positions.allSatisfy { $0 != nil })
        #expect(positions.compactMap { $0 } == positions.compactMap { $0 }.sorted())
    }

    @Test("a batch probed by several probers prints in the order of the walk, with the right counts")
    func parallelBatchesKeepTheirOrder() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("probe-order-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var batch: [(path: String, problem: String?)] = []
        for index in 0..<300 {
            let path = folder.appendingPathComponent(String(format: "f%03d.txt", index)).path
            // Every third file is a GIF header (accepted or corrupt, never text), the others are text (rejected).
            let data = index % 3 == 0 ? Data("GIF89a".utf8) : Data("line \(index)\n".utf8)
            try data.write(to: URL(fileURLWithPath: path))
            batch.append((path, nil))
        }
        batch.append((folder.appendingPathComponent("missing").path, "cannot read 'missing': No such file"))
        let probers = try (0..<4).map { _ in try MediaProber() }
        let (text, tally) = ProbeCommand.probe(batch, with: probers, json: true)
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.count == batch.count)
        let paths = try lines.map { try object($0)["path"] as? String }
        #expect(paths == batch.map(\.path))
        #expect(tally.total == batch.count)
        #expect(tally.failed == 1)
        #expect(tally.rejected >= 200)
        let outcomes = try lines.dropLast().map { try object($0)["outcome"] as? String }
        for (index, outcome) in outcomes.enumerated() where index % 3 != 0 {
            #expect(outcome == "rejected", "\(batch[index].path)")
        }
    }
}
