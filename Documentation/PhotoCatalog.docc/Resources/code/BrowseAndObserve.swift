import Foundation
import PhotoCatalog

/// Keeps a list of the library's favourite photos up to date, as a view would: it fetches them once, then applies
/// each change the library reports.
public final class FavoritesWatcher: PhotoLibraryChangeObserver, @unchecked Sendable {
    // @unchecked: `favorites` is only touched under `lock`.
    private let lock = NSLock()
    private var favorites: FetchResult<Asset>

    /// The current list (newest capture first).
    public var current: [Asset] { lock.withLock { Array(favorites) } }

    public init(library: PhotoLibrary) throws {
        let options = FetchOptions(
            predicate: .isFavorite(true), sortDescriptors: [FetchSortDescriptor(key: .creationDate, ascending: false)])
        favorites = try Asset.fetchAssets(with: options, library: library)
        library.register(self)
    }

    public func photoLibraryDidChange(_ changeInstance: PhotoLibraryChange) {
        lock.withLock {
            // The details of this fetch result: what was inserted, removed or changed, and the result after.
            if let details = try? changeInstance.changeDetails(for: favorites) {
                favorites = details.fetchResultAfterChanges
            }
        }
    }
}

/// Marks `asset` a favourite.
public func markFavorite(_ asset: Asset, library: PhotoLibrary) async throws {
    try await library.performChanges {
        try AssetChangeRequest(for: asset).isFavorite = true
    }
}

/// Takes `asset` out of `album` only: it stays in the library and in its other albums.
public func remove(_ asset: Asset, from album: AssetCollection, library: PhotoLibrary) async throws {
    try await library.performChanges {
        try AssetCollectionChangeRequest(for: album).removeAssets([asset])
    }
}

/// Deletes `asset`: it goes to Recently Deleted (out of every album), from where it can be restored until purged.
public func delete(_ asset: Asset, library: PhotoLibrary) async throws {
    try await library.performChanges {
        try AssetChangeRequest.deleteAssets([asset])
    }
}

/// What changed since `token` (a token kept from an earlier call, or from another process): the history is
/// persistent, so a program that was not running learns what others did meanwhile.
public func changes(
    since token: PersistentChangeToken, library: PhotoLibrary
) throws -> (inserted: Set<String>, deleted: Set<String>, next: PersistentChangeToken) {
    var inserted = Set<String>()
    var deleted = Set<String>()
    var next = token
    for change in try library.fetchPersistentChanges(since: token) {
        let details = change.changeDetails(for: .asset)
        inserted.formUnion(details.insertedLocalIdentifiers)
        deleted.formUnion(details.deletedLocalIdentifiers)
        next = change.changeToken
    }
    return (inserted, deleted, next)
}
