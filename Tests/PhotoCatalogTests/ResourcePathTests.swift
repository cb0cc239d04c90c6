import Foundation
import Testing

@testable import PhotoCatalog

/// Schema v4 has no index on `resources.path`; recovery and verify find a stored path through its asset's UUID.
@Suite("ResourcePath", CatalogGate.one)
struct ResourcePathTests {
    @Test(
        "the asset UUID a stored file's name starts with",
        arguments: [
            ("originals/ab/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jpg", "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D"),
            ("originals/ab/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d-2.mov", "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D"),
            ("originals/ab/0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D", "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D"),
            ("0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.heic", "0A1B2C3D-4E5F-4A6B-8C7D-9E0F1A2B3C4D"),
        ])
    func uuidOfStoredPath(_ path: String, _ uuid: String) {
        #expect(ResourcePath.assetUUID(inStoredPath: path) == uuid)
    }

    @Test(
        "names of another shape have no UUID",
        arguments: [
            "originals/ab/abc.jpg", "originals/ab/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4.jpg",
            "originals/ab/0a1b2c3dx4e5f-4a6b-8c7d-9e0f1a2b3c4d.jpg",
            "originals/ab/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4dz",
            "originals/ab/0g1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d.jpg", "",
            "originals/0a1b2c3d-4e5f-4a6b-8c7d-9e0f1a2b3c4d/",
        ])
    func noUUID(_ path: String) {
        #expect(ResourcePath.assetUUID(inStoredPath: path) == nil)
    }

    @Test("a stored path is found through its asset, a path of another shape by a scan; others are not found")
    func referenced() async throws {
        let folder = try TemporaryDirectory()
        let library = folder.library()
        let source = try folder.write(TestFiles.distinctBytes(size: 321), to: "a.jpg")
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: source)
        }
        let asset = try #require(Asset.fetchAssets(with: nil, library: library).firstObject)
        let stored = try #require(asset.primaryResource?.relativePath)
        let database = try Database(path: library.databasePath, mode: .readWrite(create: false))
        #expect(try ResourcePath.isReferenced(stored, in: database))
        #expect(try !ResourcePath.isReferenced(stored.replacingOccurrences(of: ".jpg", with: "-2.jpg"), in: database))
        let otherAsset = "originals/ab/" + UUID().uuidString.lowercased() + ".jpg"
        #expect(try !ResourcePath.isReferenced(otherAsset, in: database))
        // A row whose path has another shape (written by hand, say) is still found.
        try database.run("UPDATE resources SET path = 'originals/ab/by-hand.jpg'")
        #expect(try ResourcePath.isReferenced("originals/ab/by-hand.jpg", in: database))
        #expect(try !ResourcePath.isReferenced(stored, in: database))
    }
}
