import Foundation
import PhotoCatalog

/// Saves the photos at `files` into the album titled `title`, creating the album the first time.
///
/// Finding and creating the album happen inside the change block, which the library runs one block at a time:
/// however many saves run at once, there is one album of that title.
public func saveIntoCustomAlbum(
    _ files: [URL], title: String, library: PhotoLibrary
) async throws -> [AssetCreationOutcome] {
    let report = try await library.performChanges {
        // The album, if it exists already.
        let existing = try AssetCollection.fetchAssetCollections(
            with: .album, subtype: .albumRegular,
            options: FetchOptions(predicate: .title(.equals(title))), library: library
        ).firstObject
        // Its change request: for the existing album, or one that creates it.
        let album =
            try existing.map { try AssetCollectionChangeRequest(for: $0) }
            ?? AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
        // One creation request per file; its placeholder stands for the asset until the block commits.
        for file in files {
            let request = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: file)
            if let placeholder = request.placeholderForCreatedAsset { album.addAssets([placeholder]) }
        }
    }
    // After the commit: each file's asset, new or (same content stored before) the one already there.
    return report.assetCreations
}
