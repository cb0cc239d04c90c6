import Foundation
import TestFixtures
import Testing

@testable import Ingest
@testable import PhotoCatalog

@Suite(
    "The v12 migration: capture details re-read from the originals in the background",
    .timeLimit(.minutes(3)),
    .requires(MediaTools.hasExifTool, "exiftool (apt-get install libimage-exiftool-perl)"))
struct CaptureDetailsBackfillTests {
    /// A v11 library (the schema before capture details) with rows as the v11 code wrote them; the originals are
    /// JPEGs that ExifTool tagged.
    private func makeVersion11Library(in folder: TemporaryFolder) async throws -> PhotoLibrary {
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        try FileManager.default.createDirectory(at: library.originalsURL, withIntermediateDirectories: true)
        let database = try Database(path: library.databasePath, mode: .readWrite(create: true))
        try database.execute("PRAGMA journal_mode = WAL")
        #expect(try Schema.migrator.migrate(database, upTo: 11) == Array(1...11))
        // id, file name, ExifTool's tags (nil: the original is missing), the title the library has already.
        let rows: [(Int, String, [String]?, String?)] = [
            (1, "camera.jpg",
             ["-exif:FNumber=2.8", "-exif:ExposureTime=1/250", "-exif:ISO=400", "-exif:LensModel=RF35mm F1.8",
              "-exif:Make=Canon", "-xmp:Title=From the file", "-iptc:Keywords=beach"], nil),
            // A title given before (a sidecar, a user): the file's does not replace it.
            (2, "titled.jpg", ["-exif:Artist=Jane", "-xmp:Title=File title", "-xmp:Rating=3"], "Kept title"),
            // Nothing to find.
            (3, "plain.jpg", [], nil),
            // The original is gone: taken off the list all the same.
            (4, "gone.jpg", nil, nil),
        ]
        for (id, name, tags, title) in rows {
            let path = "originals/0\(id)/\(id).jpg"
            if let tags {
                let url = library.url.appendingPathComponent(path)
                try FileManager.default.createDirectory(
                    at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
                try Data(SyntheticJPEG.bytes(seed: id)).write(to: url)
                if !tags.isEmpty { try await MediaTools.exiftool(tags, on: url.path) }
            }
            let uuid = "0000000\(id)-2222-3333-4444-555555555555"
            try database.run(
                """
                INSERT INTO assets(id, uuid, media_type, playback_style, creation_date, creation_date_source,
                    added_date, modification_date, title) VALUES (?, ?, 1, 1, 0, 'fileModificationDate', 0, 0, ?)
                """, [.integer(Int64(id)), .text(uuid), title.map { .text($0) } ?? .null])
            try database.run(
                """
                INSERT INTO resources(asset_id, type, sha256, byte_count, mime_type, original_filename, path)
                    VALUES (?, 1, ?, 1, 'image/jpeg', ?, ?)
                """, [.integer(Int64(id)), .text(String(repeating: String(id), count: 64)), .text(name), .text(path)])
        }
        return library
    }

    @Test("details and the file's own words filled once; what the library had is kept; a missing original ends too")
    func backfill() async throws {
        let folder = try TemporaryFolder("details")
        let library = try await makeVersion11Library(in: folder)
        #expect(try library.countAssetsAwaitingCaptureDetails() == 4, "opening migrates every asset onto the list")
        let log = LogCapture()
        #expect(await CaptureDetailsBackfill(library: library, logger: log.logger(), batchSize: 3).run() == 2)
        #expect(try library.countAssetsAwaitingCaptureDetails() == 0)
        let after = Dictionary(
            uniqueKeysWithValues: try Asset.fetchAssets(with: nil, library: library).map {
                ($0.originalFilename ?? "", $0)
            })
        let camera = try #require(after["camera.jpg"])
        #expect(camera.captureDetails.fNumber == 2.8 && camera.captureDetails.exposureTime == 0.004)
        #expect(camera.captureDetails.iso == 400 && camera.captureDetails.lensModel == "RF35mm F1.8")
        #expect(camera.cameraMake == "Canon" && camera.title == "From the file" && camera.keywords == ["beach"])
        let titled = try #require(after["titled.jpg"])
        #expect(titled.title == "Kept title" && titled.rating == 3 && titled.captureDetails.artist == "Jane")
        #expect(after["plain.jpg"]?.captureDetails.isEmpty == true && after["gone.jpg"]?.captureDetails.isEmpty == true)
        #expect(log.all.contains { $0.contains("capture details") && $0.contains("assets=4") }, "\(log.all)")
        let quiet = LogCapture()
        #expect(await CaptureDetailsBackfill(library: library, logger: quiet.logger()).run() == 0)
        #expect(quiet.all.isEmpty)
    }

    @Test("a library made since v12 has nothing to re-read; details round-trip through a change request")
    func newLibrary() async throws {
        let folder = try TemporaryFolder("details-new")
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        #expect(await library.requestAuthorization(for: .readWrite) == .authorized)
        let photo = folder.url("p.jpg")
        try Data(SyntheticJPEG.bytes(seed: 9)).write(to: URL(fileURLWithPath: photo))
        let details = CaptureDetails(
            fNumber: 1.8, exposureTime: 1.0 / 60, iso: 3200, focalLength: 6.86, focalLength35mm: 24, flashFired: false,
            lensMake: "Apple", lensModel: "iPhone 15 Pro back camera", artist: "A \"quoted\" name", copyright: "©",
            imageDirection: 359.5, frameRate: nil)
        try await library.performChanges {
            let request = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: URL(fileURLWithPath: photo))
            request.captureDetails = details
        }
        #expect(try library.countAssetsAwaitingCaptureDetails() == 0)
        let asset = try #require(Asset.fetchAssets(with: nil, library: library).first)
        #expect(asset.captureDetails == details)
        try await library.performChanges { try AssetChangeRequest(for: asset).captureDetails = CaptureDetails() }
        #expect(try Asset.fetchAssets(with: nil, library: library).first?.captureDetails.isEmpty == true)
    }
}
