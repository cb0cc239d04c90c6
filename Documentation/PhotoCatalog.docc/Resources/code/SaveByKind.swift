import Foundation
import MediaProbe
import PhotoCatalog

/// Why a file was not saved.
public struct NotSaved: Error, CustomStringConvertible {
    /// The reason code photodrop gives such a file (`unsupportedVideo`, `unsupportedType`, `corrupt`, …).
    public let reason: String
    public let description: String
}

/// Saves a photo, a GIF or a video, decided by its content (not its name); a video that Apple devices cannot play
/// (an `hev1` HEVC, an MKV) is refused with the reason photodrop gives everywhere, as PhotoKit apps check
/// `UIVideoAtPathIsCompatibleWithSavedPhotosAlbum` first.
public func saveByKind(_ file: URL, library: PhotoLibrary) async throws -> AssetCreationOutcome {
    // One read of the file: what it is, and whether Photos could play it.
    let probe = try SavedPhotosAlbumCheck.check(atPath: file.path)
    guard let kind = probe.kind, probe.rejection == nil else {
        throw NotSaved(reason: probe.rejection?.rawValue ?? "unsupportedType", description: probe.message)
    }
    let report = try await library.performChanges {
        let request = try AssetCreationRequest.forAsset()
        // A GIF is a photo resource; the library marks it animated by its content type.
        request.addResource(
            with: kind == .video ? .video : .photo, fileURL: file,
            options: AssetResourceCreationOptions(mimeType: probe.mime, fileExtension: probe.fileExtension))
    }
    return report.assetCreations[0]
}
