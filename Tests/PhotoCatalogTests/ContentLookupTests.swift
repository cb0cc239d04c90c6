import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Content lookup", CatalogGate.one)
struct ContentLookupTests {
    @Test("finds stored content by SHA-256, tells album membership, and never creates a library", arguments: CatalogBackend.all)
    func lookups(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let lookup = ContentLookup(library: library)
        let bytes = TestFiles.distinctBytes(size: 500)
        let sha = sha256Hex(bytes)
        #expect(try lookup.asset(withSHA256: sha) == nil)
        #expect(!FileManager.default.fileExists(atPath: library.url.path), "a lookup created the library")

        let file = try folder.write(bytes, to: "a.jpg")
        let report = try await library.performChanges {
            let first = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Other")
            let request = try AssetCreationRequest.forAsset()
            request.addResource(
                with: .photo, fileURL: file, options: AssetResourceCreationOptions(mimeType: "image/jpeg"))
            first.addAssets([request.placeholderForCreatedAsset!])
        }
        // The same lookup opens the library once it exists.
        let found = try #require(try lookup.asset(withSHA256: sha, bindingKey: "Trip"))
        #expect(found.localIdentifier == report.assetCreations.first?.localIdentifier)
        #expect(found.mimeType == "image/jpeg" && found.mediaType == .image && !found.isDeleted)
        #expect(found.isInAlbum == true)
        #expect(try lookup.asset(withSHA256: sha, bindingKey: "Other")?.isInAlbum == false)
        #expect(try lookup.asset(withSHA256: sha, bindingKey: "Missing")?.isInAlbum == false)
        #expect(try lookup.asset(withSHA256: sha)?.isInAlbum == nil)
        #expect(try lookup.asset(withSHA256: String(repeating: "0", count: 64)) == nil)

        let asset = try #require(Asset.fetchAssets(with: nil, library: library).firstObject)
        try await library.performChanges { try AssetChangeRequest.deleteAssets([asset]) }
        #expect(try lookup.asset(withSHA256: sha)?.isDeleted == true)
    }
}
