import Foundation
import PhotodropSystem
import TestFixtures
import PhotoCatalog
import Testing

/// Small media files written by the tests (no downloads, no corpus): a JPEG with an EXIF capture date, a PNG, a GIF,
/// and things photodrop rejects.
enum MediaFixtures {
    private static func be16(_ value: Int) -> [UInt8] { [UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)] }
    private static func be32(_ value: Int) -> [UInt8] { be16(value >> 16) + be16(value) }
    private static func le16(_ value: Int) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF)] }

    /// A baseline JPEG of `width`×`height` with `seed` in its scan data (so that every seed hashes differently) and,
    /// when given, an EXIF DateTimeOriginal.
    static func jpeg(seed: Int, width: Int = 64, height: Int = 48, taken: String? = nil, complete: Bool = true)
        -> [UInt8]
    {
        SyntheticJPEG.bytes(seed: seed, width: width, height: height, taken: taken, complete: complete)
    }

    /// A GIF89a of `width`×`height`, one frame.
    static func gif(width: Int = 8, height: Int = 8) -> [UInt8] {
        var bytes: [UInt8] = Array("GIF89a".utf8) + le16(width) + le16(height) + [0xF1, 0, 0]
        bytes += [UInt8](repeating: 0x80, count: 12)
        bytes += [0x21, 0xF9, 4, 0] + le16(10) + [0, 0]
        bytes += [0x2C] + le16(0) + le16(0) + le16(width) + le16(height) + [0]
        bytes += [2, 5, 0x84, 0x8F, 0xA9, 0xCB, 0xED, 3, 0x0F, 0xA3, 0x9C, 0, 0x3B]
        return bytes
    }

    /// A PNG of `width`×`height` (chunks with correct CRCs; the image data is not decoded by the probe).
    static func png(width: Int = 30, height: Int = 20) -> [UInt8] {
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            var crc: UInt32 = 0xFFFF_FFFF
            for byte in body {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = crc & 1 != 0 ? 0xEDB8_8320 ^ (crc >> 1) : crc >> 1 }
            }
            return be32(data.count) + body + be32(Int(crc ^ 0xFFFF_FFFF))
        }
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
            + chunk("IHDR", be32(width) + be32(height) + [8, 6, 0, 0, 0])
            + chunk("IDAT", [UInt8](repeating: 7, count: 200)) + chunk("IEND", [])
    }

    /// Plain text: not a photo, GIF or video.
    static let text = Array("just some notes, not a photo\n".utf8)
}

/// What ``Sandbox/populateCatalog()`` put into the library.
struct CatalogContent {
    /// Album "Trip": photo1, photo2, video.
    var trip: String
    /// Album "Family": photo1.
    var family: String
    /// `IMG_0001.JPG`, 640×480, taken 2021-06-05 14:30 UTC (exif), a favourite, in Trip and Family.
    var photo1: String
    /// `IMG_0002.JPG`, in Trip.
    var photo2: String
    /// `clip.mov`, 12.5 s, in Trip.
    var video: String
    /// `party.gif`, in no album.
    var gif: String

    var assets: [String] { [photo1, photo2, video, gif] }
}

extension Sandbox {
    /// The sandbox's library through the catalog API (created at the first write).
    func openCatalog() -> PhotoLibrary { PhotoLibrary(url: library) }

    /// Writes source files under `Sources/` and files them into the library through the catalog API: two albums,
    /// two photos, a video and a GIF (see ``CatalogContent``).
    @discardableResult
    func populateCatalog() throws -> CatalogContent {
        let photo1 = try write("Sources/IMG_0001.JPG", MediaFixtures.jpeg(seed: 1))
        let photo2 = try write("Sources/IMG_0002.JPG", MediaFixtures.jpeg(seed: 2))
        let video = try write("Sources/clip.mov", Array("not really a movie \(UUID())".utf8))
        let gif = try write("Sources/party.gif", MediaFixtures.gif())
        let taken = Date(timeIntervalSince1970: 1_622_903_400)  // 2021-06-05T14:30:00Z
        let report = try openCatalog().performChangesAndWait {
            let trip = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            let family = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Family")
            let first = try AssetCreationRequest.forAsset()
            first.addResource(
                with: .photo, fileURL: photo1, options: AssetResourceCreationOptions(mimeType: "image/jpeg"))
            first.creationDate = taken
            first.creationDateSource = "exif"
            first.pixelWidth = 640
            first.pixelHeight = 480
            first.isFavorite = true
            let second = try AssetCreationRequest.forAsset()
            second.addResource(
                with: .photo, fileURL: photo2, options: AssetResourceCreationOptions(mimeType: "image/jpeg"))
            second.creationDate = taken.addingTimeInterval(60)
            let movie = try AssetCreationRequest.forAsset()
            movie.addResource(
                with: .video, fileURL: video, options: AssetResourceCreationOptions(mimeType: "video/quicktime"))
            movie.duration = 12.5
            movie.creationDate = taken.addingTimeInterval(120)
            let animated = try AssetCreationRequest.forAsset()
            animated.addResource(
                with: .photo, fileURL: gif, options: AssetResourceCreationOptions(mimeType: "image/gif"))
            trip.addAssets([
                first.placeholderForCreatedAsset!, second.placeholderForCreatedAsset!,
                movie.placeholderForCreatedAsset!,
            ])
            family.addAssets([first.placeholderForCreatedAsset!])
        }
        let assets = report.assetCreations.map(\.localIdentifier)
        let albums = report.createdCollectionIdentifiers
        return CatalogContent(
            trip: albums[0], family: albums[1], photo1: assets[0], photo2: assets[1], video: assets[2],
            gif: assets[3])
    }

    /// Adds `count` photos (distinct JPEGs) outside any album; returns their identifiers.
    func addPhotos(_ count: Int, startingAt seed: Int = 100) throws -> [String] {
        let files = try (0..<count).map {
            try write("Sources/bulk-\(seed + $0).jpg", MediaFixtures.jpeg(seed: seed + $0))
        }
        let report = try openCatalog().performChangesAndWait {
            for file in files { _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file) }
        }
        return report.assetCreations.map(\.localIdentifier)
    }

    /// The stored original of an asset.
    func originalURL(of identifier: String) throws -> URL {
        let asset = try #require(
            try Asset.fetchAssets(withLocalIdentifiers: [identifier], library: openCatalog()).firstObject)
        return try #require(asset.originalURL)
    }
}

/// Holds `<library>/watch.lock` the way a running `photodrop watch` does (exclusive `flock`, pid in the file) until
/// released or deinitialised.
final class WatchLockHolder {
    private var descriptor: Int32

    init(library: URL, pid: Int32 = getpid()) throws {
        try FileManager.default.createDirectory(at: library, withIntermediateDirectories: true)
        let path = library.appendingPathComponent("watch.lock").path
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw HarnessError("cannot open \(path): errno \(errno)") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { throw HarnessError("cannot lock \(path)") }
        let text = Array("\(pid)\n".utf8)
        _ = ftruncate(descriptor, 0)
        _ = text.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
    }

    func release() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
    }

    deinit { release() }
}

