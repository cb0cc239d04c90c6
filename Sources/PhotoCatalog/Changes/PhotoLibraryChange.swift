import FoundationEssentials
import Synchronization

/// One committed change, as given to observers (`PHChange`): ask it how your fetch results and objects changed.
///
/// While the observers of a change are being called, its details are computed against the library exactly as the
/// change left it. Asked later, they compare against the library at that later moment.
public final class PhotoLibraryChange: Sendable {
    /// The library that changed.
    public let photoLibrary: PhotoLibrary
    /// The persistent change token of the commit.
    public let changeToken: PersistentChangeToken?
    let changes: ChangeSet
    private let snapshot: Mutex<ReaderConnection?>

    init(library: PhotoLibrary, token: PersistentChangeToken?, changes: ChangeSet, snapshot: ReaderConnection?) {
        self.photoLibrary = library
        self.changeToken = token
        self.changes = changes
        self.snapshot = Mutex(snapshot)
    }

    deinit {
        if let connection = snapshot.withLock({ $0.take() }) { photoLibrary.readers.release(snapshot: connection) }
    }

    /// Releases the snapshot; returns whether there was one.
    func endSnapshot() -> Bool {
        guard let connection = snapshot.withLock({ $0.take() }) else { return false }
        photoLibrary.readers.release(snapshot: connection)
        return true
    }

    /// Identifiers of assets this change inserted, updated or deleted.
    public var assetIdentifiers: (inserted: Set<String>, updated: Set<String>, deleted: Set<String>) {
        split(changes.assets, LocalIdentifier.asset(uuid:))
    }

    /// Identifiers of albums this change inserted, updated or deleted.
    public var collectionIdentifiers: (inserted: Set<String>, updated: Set<String>, deleted: Set<String>) {
        split(changes.collections, LocalIdentifier.collection(uuid:))
    }

    /// Identifiers of folders this change inserted, updated or deleted.
    public var collectionListIdentifiers: (inserted: Set<String>, updated: Set<String>, deleted: Set<String>) {
        split(changes.collectionLists, LocalIdentifier.collectionList(uuid:))
    }

    private func split(_ map: [String: ObjectChangeKind], _ identifier: (String) -> String)
        -> (inserted: Set<String>, updated: Set<String>, deleted: Set<String>)
    {
        var result: (inserted: Set<String>, updated: Set<String>, deleted: Set<String>) = ([], [], [])
        for (uuid, kind) in map {
            switch kind {
            case .inserted: result.inserted.insert(identifier(uuid))
            case .updated: result.updated.insert(identifier(uuid))
            case .deleted: result.deleted.insert(identifier(uuid))
            }
        }
        return result
    }

    /// How `fetchResult` changed, or nil when this change did not affect it (`changeDetails(for:)`).
    ///
    /// Runs the fetch again and compares object by object (see ``FetchResultChangeDetails`` for the index
    /// conventions).
    public func changeDetails<T>(for fetchResult: FetchResult<T>) throws -> FetchResultChangeDetails<T>? {
        guard fetchResult.library === photoLibrary, let refetch = fetchResult.refetch else { return nil }
        let relevant =
            (fetchResult.dependsOn.contains(.assets) && !changes.assets.isEmpty)
            || (fetchResult.dependsOn.contains(.collections)
                && (!changes.collections.isEmpty || !changes.collectionLists.isEmpty))
            || (fetchResult.dependsOn.contains(.memberships) && changes.membershipsChanged)
        guard relevant else { return nil }
        let objects = try read { try refetch($0, photoLibrary) }
        let after = FetchResult(
            objects: objects, library: photoLibrary, dependsOn: fetchResult.dependsOn, refetch: refetch)
        let details = FetchResultChangeDetails(before: fetchResult, after: after)
        return details.isEmpty ? nil : details
    }

    /// How an asset changed, or nil when this change did not touch it.
    public func changeDetails(for asset: Asset) throws -> ObjectChangeDetails<Asset>? {
        guard asset.photoLibrary === photoLibrary, let uuid = LocalIdentifier.assetUUID(asset.localIdentifier),
            changes.assets[uuid] != nil
        else { return nil }
        let query = AssetQuery(
            source: .identifiers([asset.localIdentifier]), options: FetchOptions(includeHiddenAssets: true))
        let after = try read { try query.fetch($0, library: photoLibrary) }.first
        return ObjectChangeDetails(
            objectBeforeChanges: asset, objectAfterChanges: after,
            assetContentChanged: after.map { $0.resources != asset.resources } ?? false,
            objectWasDeleted: after == nil || (after?.isDeleted == true && !asset.isDeleted))
    }

    /// How an album changed, or nil when this change did not touch it.
    public func changeDetails(for collection: AssetCollection) throws -> ObjectChangeDetails<AssetCollection>? {
        guard collection.photoLibrary === photoLibrary else { return nil }
        let touched =
            if let uuid = LocalIdentifier.collectionUUID(collection.localIdentifier), changes.collections[uuid] != nil {
                true
            } else {
                !changes.assets.isEmpty
            }
        guard touched else { return nil }
        let query = CollectionQuery(source: .identifiers([collection.localIdentifier]), options: FetchOptions())
        let after = try read { try query.fetch($0, library: photoLibrary) }.first
        guard after != collection else { return nil }
        return ObjectChangeDetails(
            objectBeforeChanges: collection, objectAfterChanges: after, assetContentChanged: false,
            objectWasDeleted: after == nil)
    }

    /// Reads through the snapshot while it is held, else through a fresh read transaction.
    private func read<R>(_ body: (Database) throws -> R) throws -> R {
        do {
            let fromSnapshot: R? = try snapshot.withLock { connection in
                guard let connection else { return nil }
                return try body(connection.database)
            }
            if let fromSnapshot { return fromSnapshot }
            return try photoLibrary.read("compute change details", body)
                ?? {
                    throw PhotosError(
                        .libraryVolumeOffline, title: "Library missing",
                        message: "The library at '\(photoLibrary.url.path)' no longer exists.")
                }()
        } catch let error as DatabaseError {
            throw PhotosError.database(error, action: "compute change details", library: photoLibrary.url.path)
        }
    }
}
