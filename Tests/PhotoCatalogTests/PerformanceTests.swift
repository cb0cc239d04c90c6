import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Performance", CatalogGate.one)
struct PerformanceTests {
    @Test("2,000 creation requests group-committed in one block (move, hash given, into an album)")
    func groupCommit() async throws {
        // Other suites share the machine's two cores while this runs (a browser, servers, daemons): the best of up to
        // three runs is judged, so that a burst of load elsewhere does not read as a regression here.
        var best = Double.infinity
        for _ in 0..<3 where best >= 2000 {
            best = min(best, try await groupCommitMicroseconds())
        }
        // A loose bound that holds even for a debug build on a busy 2-core machine; release builds are far below it.
        #expect(best < 2000)
    }

    /// One run: 2,000 creations in one block, in microseconds per request.
    private func groupCommitMicroseconds() async throws -> Double {
        let folder = try TemporaryDirectory()
        let library = folder.library()
        try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Burst")
        }
        let album = try #require(
            AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library).firstObject)
        let count = 2000
        let files = try folder.makeFiles(count, size: 64)
        // The ingest pipeline hashes while reading; here the digests are computed beforehand, as it would.
        let digests = try files.map { sha256Hex(try Data(contentsOf: $0)) }
        let clock = ContinuousClock()
        var report: ChangeReport?
        let elapsed = try await clock.measure {
            report = try await library.performChanges {
                let albumRequest = try AssetCollectionChangeRequest(for: album)
                for (file, digest) in zip(files, digests) {
                    let request = try AssetCreationRequest.forAsset()
                    request.addResource(
                        with: .photo, fileURL: file,
                        options: AssetResourceCreationOptions(
                            shouldMoveFile: true, mimeType: "image/jpeg", contentSHA256: digest, fileExtension: "jpg"))
                    request.creationDate = Date(timeIntervalSince1970: 1_700_000_000)
                    request.creationDateSource = "exif"
                    request.pixelWidth = 640
                    request.pixelHeight = 480
                    albumRequest.addAssets([request.placeholderForCreatedAsset!])
                }
            }
        }
        let perRequest = elapsed / count
        let microseconds =
            Double(perRequest.components.attoseconds) / 1e12 + Double(perRequest.components.seconds) * 1e6
        #if DEBUG
            let build = "debug"
        #else
            let build = "release"
        #endif
        print(
            "group commit: \(count) creation requests in \(elapsed) (\(String(format: "%.1f", microseconds)) µs per request, \(build) build)"
        )
        #expect(report?.createdAssetCount == count)
        #expect(try Asset.fetchAssets(in: album).count == count)
        #expect(try rawCount(library, "SELECT count(*) FROM change_log") == Int64(count + 2))
        return microseconds
    }
}
