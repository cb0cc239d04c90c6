import Foundation
import Ingest
import MediaProbe
import PhotoCatalog

/// What became of one saved file.
struct SaveOutcome: Sendable {
    /// The asset's identifier (for a duplicate: the asset that already held the content).
    let localIdentifier: String
    /// Whether the content was already in the library.
    let isDuplicate: Bool
    /// Whether this save created the album.
    let createdAlbum: Bool
}

/// The well-known protocol-oriented "save to a custom album" snippet, ported: a type names its album, and the
/// extension checks authorization, finds the album by title or creates it (once), and saves files into it through a
/// creation request and its placeholder.
protocol PhotoAlbumHandler: Sendable {
    /// The album's title.
    var albumName: String { get }
    /// The library to save into.
    var library: PhotoLibrary { get }
}

extension PhotoAlbumHandler {
    /// Checks (and if needed requests) authorization; throws the classic handler's "unauthorized".
    func checkAuthorization() async throws {
        var status = library.authorizationStatus(for: .addOnly)
        if status == .notDetermined {
            status = await library.requestAuthorization(for: .addOnly)
        }
        switch status {
        case .authorized, .limited:
            return
        case .restricted:
            throw PhotosError(
                .accessRestricted, title: "Photo library is read-only",
                message: "The library at '\(library.url.path)' is on read-only storage; choose another --library.")
        case .denied, .notDetermined:
            throw PhotosError(
                PhotosError.Code.unauthorized, title: "Not authorised",
                message: "This user may not write the library at '\(library.url.path)'; fix its permissions or "
                    + "choose another --library.")
        }
    }

    /// Saves the file at `url` into the album, creating the album if it does not exist yet. The source is kept.
    ///
    /// Finding and creating happen inside the change block, which the library runs one at a time: however many
    /// saves run at once, the album is created exactly once.
    func save(_ url: URL) async throws -> SaveOutcome {
        let albumName = albumName
        let library = library
        // The seed checks UIVideoAtPathIsCompatibleWithSavedPhotosAlbum before it saves; this checks by content,
        // photos too, and refuses what photodrop would reject (a PDF, an hev1 movie) with the same message.
        let probe: ProbeResult
        do {
            probe = try SavedPhotosAlbumCheck.check(atPath: url.path)
        } catch {
            throw PhotosError(.invalidResource, title: "Cannot read the file", message: error.message)
        }
        guard let kind = probe.kind, probe.rejection == nil else {
            throw PhotosError(
                .invalidResource, title: "Not saved (\(probe.rejection?.rawValue ?? "unsupported"))",
                message: probe.message)
        }
        let createdAlbum = Locked(false)
        let report = try await library.performChanges {
            let existing = try AssetCollection.fetchAssetCollections(
                with: .album, subtype: .albumRegular, options: FetchOptions(predicate: .title(.equals(albumName))),
                library: library
            ).firstObject
            let album: AssetCollectionChangeRequest
            if let existing {
                album = try AssetCollectionChangeRequest(for: existing)
            } else {
                album = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: albumName)
                createdAlbum.set(true)
            }
            // creationRequestForAssetFromImage/FromVideo, chosen by the content, not the name, with the content's
            // MIME type and the metadata the daemon would store (capture date, size, location …).
            let request = try AssetCreationRequest.forAsset()
            request.addResource(
                with: kind == .video ? .video : .photo, fileURL: url,
                options: AssetResourceCreationOptions(mimeType: probe.mime, fileExtension: probe.fileExtension))
            AssetMetadata.apply(probe.metadata, to: request)
            guard let placeholder = request.placeholderForCreatedAsset else {
                throw PhotosError(
                    PhotosError.Code.saveFailed, title: "Save failed", message: "No placeholder for '\(url.path)'.")
            }
            album.addAssets([placeholder])
        }
        guard let outcome = report.assetCreations.first else {
            throw PhotosError(
                PhotosError.Code.saveFailed, title: "Save failed", message: "'\(url.path)' was not saved.")
        }
        return SaveOutcome(
            localIdentifier: outcome.localIdentifier, isDuplicate: outcome.isDuplicate, createdAlbum: createdAlbum.get()
        )
    }

    /// The album, if it exists (the classic handler's `fetchAssetCollectionForAlbum`).
    func fetchAlbum() throws -> AssetCollection? {
        try AssetCollection.fetchAssetCollections(
            with: .album, subtype: .albumRegular, options: FetchOptions(predicate: .title(.equals(albumName))),
            library: library
        ).firstObject
    }

}

/// A value shared with a `@Sendable` change block.
final class Locked<Value: Sendable>: @unchecked Sendable {
    // Invariant: `value` is only touched while holding `lock`.
    private let lock = NSLock()
    private var value: Value
    init(_ value: Value) { self.value = value }
    func get() -> Value { lock.withLock { value } }
    func set(_ newValue: Value) { lock.withLock { value = newValue } }
}
