import Foundation
import PhotoCatalog

/// Saves a Live Photo: its still photo and its movie become one asset (subtype `photoLive`), as PhotoKit's
/// `PHAssetCreationRequest` with a `.photo` and a `.pairedVideo` resource does.
public func saveLivePhoto(photo: URL, movie: URL, library: PhotoLibrary) async throws -> Asset? {
    // Both files must be accepted together; the library says which combinations make an asset.
    guard AssetCreationRequest.supportsAssetResourceTypes([.photo, .pairedVideo]) else { return nil }
    let report = try await library.performChanges {
        let request = try AssetCreationRequest.forAsset()
        request.addResource(with: .photo, fileURL: photo, options: nil)
        request.addResource(with: .pairedVideo, fileURL: movie, options: nil)
    }
    let identifier = report.assetCreations[0].localIdentifier
    return try Asset.fetchAssets(withLocalIdentifiers: [identifier], library: library).firstObject
}
