import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem
import PhotodropConfiguration
import Uploads

/// A Google Takeout album's own `metadata.json` (`Takeout/Google Photos/Trip/metadata.json`) describes the album its
/// folder files into: its `description` becomes the album's ``AssetCollection/summary``. The file is then done with:
/// removed where a duplicate copy would be (watch, `import --move`), left where it is otherwise.
extension Committer {
    func applyAlbumMetadata(_ items: [StoreItem]) async {
        for item in items {
            let job = item.job
            guard let key = job.album else {
                reject(
                    job, code: .unsupportedType,
                    message: "a Google Takeout album's metadata.json outside an album folder: there is no album for "
                        + "it to describe; drop it into the album's folder", mime: item.mime, bytes: item.digest.size)
                continue
            }
            func unreadable(_ why: String) {
                reject(
                    job, code: .corrupt,
                    message: "a Google Takeout album's metadata.json that is not valid JSON (\(why)); the album is left "
                        + "as it is", mime: item.mime, bytes: item.digest.size)
            }
            guard let bytes = item.contents(atMost: TakeoutMetadata.maximumBytes) else {
                unreadable("larger than \(TakeoutMetadata.maximumBytes >> 20) MB, or unreadable")
                continue
            }
            let metadata: TakeoutMetadata
            do {
                metadata = try TakeoutMetadata.parse(bytes)
            } catch {
                unreadable(error.description)
                continue
            }
            let title = AlbumRule.title(forAlbum: key)
            let description = metadata.description
            let message =
                description.map { "applied to album '\(title)' as its description: \($0)" }
                ?? "a Takeout album's metadata without a description: album '\(title)' is left as it is"
            if settings.placement == .none {
                finish(item, message: "would be " + message)
                continue
            }
            if let description {
                do {
                    try await describeAlbum(key, as: description, finishing: item, message: message)
                } catch let error as PhotosError where error.code == .libraryVolumeOffline {
                    loseLibrary(.catalog(error))
                    putBackUnwritten(job)
                    continue
                } catch {
                    albums.removeAll()
                    failStored(item, error)
                    continue
                }
            } else {
                markClaimDone(job, outcome: outcome(item, message: message))
            }
            if settings.removesDuplicateCopies { Committer.remove(job.source, logger: logger) }
            finish(item, message: message)
        }
    }

    /// Sets the description of the album `key` files into, making the album (as storing a file would) when it does
    /// not exist yet; the file's claim entry goes in the same change.
    private func describeAlbum(
        _ key: String, as description: String, finishing item: StoreItem, message: String
    ) async throws {
        let record = item.job.node.map { OutcomeRecord(outcome(item, message: message)).draft(for: $0) }
        let existing = try album(forKey: key)
        let parent: CollectionList? =
            if existing == nil, let path = AlbumRule.folders(forAlbum: key).last {
                try await folder(forPath: path)
            } else { nil }
        let fencedKind = fencedClaimKind
        try await library.performChanges {
            if let existing {
                try AssetCollectionChangeRequest(for: existing).summary = description
            } else {
                try Committer.newAlbum(forKey: key, in: parent).summary = description
            }
            if let claim = item.job.claimID { try Committer.finishClaims([claim], fencedKind: fencedKind) }
            if let record = record { try FileRecordChangeRequest.append([record]) }
        }
        // The album may be new, and a cached one has an old description: fetch it again when next needed.
        albums[key] = nil
    }

    private func finish(_ item: StoreItem, message: String) {
        hooks.finished(outcome(item, message: message))
    }

    /// A Takeout album's metadata file, finished: applied to its album (or not needed).
    private nonisolated func outcome(_ item: StoreItem, message: String) -> FileOutcome {
        FileOutcome(
            path: item.job.displayPath, kind: .attached, message: message, mime: item.mime,
            album: item.job.album, bytes: item.digest.size, elapsed: item.job.startedAt.duration(to: .now))
    }
}
