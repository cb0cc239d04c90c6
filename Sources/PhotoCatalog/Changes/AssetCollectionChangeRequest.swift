import FoundationEssentials
import Synchronization

/// Creates, renames, fills and deletes albums (`PHAssetCollectionChangeRequest`). Make requests only inside
/// ``PhotoLibrary/performChanges(_:)``.
///
/// Titles are stored exactly as given (no trimming, no Unicode normalisation), and two albums may share a title, as in
/// PhotoKit. Index-based changes (``insertAssets(_:at:)``, ``removeAssets(at:)``, ``moveAssets(at:to:)``) refer to
/// the album's visible assets in album order at the moment the change is applied.
public final class AssetCollectionChangeRequest: @unchecked Sendable {
    // Invariant: the mutable state (title) lives in a Mutex; everything else is immutable.

    let blockSerial: UInt64
    /// The album: an existing one, or `.created(self)` for a creation request. Computed: a stored `.created(self)`
    /// was a reference cycle that kept every album creation request (and its placeholder) alive for good.
    var target: CollectionTarget { existingTarget ?? .created(self) }
    /// The existing album changed; nil for a creation request.
    private let existingTarget: CollectionTarget?
    /// The UUID of a new album.
    let uuid: String?
    private let placeholder: ObjectPlaceholder?
    private let titleState: Mutex<(title: String, changed: Bool)>
    private let binding: Mutex<(bindingKey: String?, changed: Bool)>
    /// A find-or-create request (``creationRequestForAssetCollection(withTitle:bindingKey:)``): an album that holds
    /// the key at the commit is the one meant, and the request resolves to it instead of making a second.
    let joinsBoundAlbum: Bool
    private let summaryState: Mutex<(summary: String?, changed: Bool)>

    private init(blockSerial: UInt64, existing: AssetCollection?, title: String, joinsBoundAlbum: Bool = false) {
        self.blockSerial = blockSerial
        self.joinsBoundAlbum = joinsBoundAlbum
        if let existing {
            uuid = nil
            placeholder = nil
            existingTarget = .existing(
                uuid: LocalIdentifier.collectionUUID(existing.localIdentifier) ?? "",
                identifier: existing.localIdentifier)
        } else {
            let uuid = LocalIdentifier.newUUID()
            self.uuid = uuid
            placeholder = ObjectPlaceholder(localIdentifier: LocalIdentifier.collection(uuid: uuid))
            existingTarget = nil
        }
        titleState = Mutex((title, false))
        binding = Mutex((existing?.bindingKey, false))
        summaryState = Mutex((existing?.summary, false))
        if existing == nil { placeholder?.attach(collectionRequest: self) }
    }

    /// A request that creates an album with `title` (`creationRequestForAssetCollection(withTitle:)`).
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block.
    public class func creationRequestForAssetCollection(withTitle title: String) throws
        -> AssetCollectionChangeRequest
    {
        let context = try ChangeContext.active(for: "AssetCollectionChangeRequest.creationRequestForAssetCollection")
        let request = AssetCollectionChangeRequest(blockSerial: context.serial, existing: nil, title: title)
        context.collectionCreations.append(request)
        if let uuid = request.uuid { context.collectionCreationByUUID[uuid] = request }
        return request
    }

    /// Find-or-create of the album bound to `bindingKey` (a photodrop addition): a request that creates an album with
    /// `title` bound to the key, unless, when the block commits, an album holds the key already (made by another
    /// process or node since the caller looked): then the request, its placeholder and the assets added through it
    /// resolve to that album, as a duplicate asset's request resolves to the stored asset, and no second album is
    /// made. Setting ``bindingKey`` on a plain creation request instead moves the key to the new album.
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block.
    public class func creationRequestForAssetCollection(withTitle title: String, bindingKey: String) throws
        -> AssetCollectionChangeRequest
    {
        let context = try ChangeContext.active(for: "AssetCollectionChangeRequest.creationRequestForAssetCollection")
        let request = AssetCollectionChangeRequest(
            blockSerial: context.serial, existing: nil, title: title, joinsBoundAlbum: true)
        request.binding.withLock { $0 = (bindingKey, true) }
        context.collectionCreations.append(request)
        if let uuid = request.uuid { context.collectionCreationByUUID[uuid] = request }
        return request
    }

    /// A request that changes `collection` (`init(for:)`).
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block, `.changeNotSupported` for a
    ///   smart album.
    public init(for collection: AssetCollection) throws {
        let context = try ChangeContext.active(for: "AssetCollectionChangeRequest(for:)")
        guard collection.assetCollectionType == .album else {
            throw PhotosError(
                .changeNotSupported, title: "Smart albums cannot be changed",
                message: "'\(collection.title)' is a smart album, computed from the assets' properties; change the "
                    + "assets instead, or use a regular album.")
        }
        self.blockSerial = context.serial
        self.joinsBoundAlbum = false
        self.uuid = nil
        self.placeholder = nil
        self.existingTarget = .existing(
            uuid: LocalIdentifier.collectionUUID(collection.localIdentifier) ?? "",
            identifier: collection.localIdentifier)
        self.titleState = Mutex((collection.title, false))
        self.binding = Mutex((collection.bindingKey, false))
        self.summaryState = Mutex((collection.summary, false))
    }

    /// A request that changes `collection`, whose index-based changes refer to `assets` (PhotoKit's
    /// `init(for:assets:)`). photodrop applies indexes to the album's current visible assets, which are `assets`
    /// when it came from ``Asset/fetchAssets(in:options:)`` without options.
    public convenience init(for collection: AssetCollection, assets: FetchResult<Asset>) throws {
        try self.init(for: collection)
    }

    /// The placeholder of the album a creation request makes; nil for requests that change an existing album.
    public var placeholderForCreatedAssetCollection: ObjectPlaceholder? { placeholder }

    /// The album's title; setting it renames the album.
    public var title: String {
        get { titleState.withLock { $0.title } }
        set {
            guard let context = ChangeContext.active(serial: blockSerial) else { return }
            let first = titleState.withLock { state -> Bool in
                let first = !state.changed
                state = (newValue, true)
                return first
            }
            if first, uuid == nil { context.operations.append(.renameCollection(self)) }
        }
    }

    var currentTitle: String { titleState.withLock { $0.title } }

    /// The key bound to this album (photodrop; see ``AssetCollection/bindingKey``). Setting it binds the key to this
    /// album (a key bound to another album moves here); nil unbinds it.
    public var bindingKey: String? {
        get { binding.withLock { $0.bindingKey } }
        set {
            guard let context = ChangeContext.active(serial: blockSerial) else { return }
            let first = binding.withLock { state -> Bool in
                let first = !state.changed
                state = (newValue, true)
                return first
            }
            if first, uuid == nil { context.operations.append(.bindCollectionKey(self)) }
        }
    }

    var currentBindingKey: String? { binding.withLock { $0.bindingKey } }

    /// What the album is about (photodrop; see ``AssetCollection/summary``); nil removes it.
    public var summary: String? {
        get { summaryState.withLock { $0.summary } }
        set {
            guard let context = ChangeContext.active(serial: blockSerial) else { return }
            let first = summaryState.withLock { state -> Bool in
                let first = !state.changed
                state = (newValue, true)
                return first
            }
            if first, uuid == nil { context.operations.append(.describeCollection(self)) }
        }
    }

    var currentSummary: String? { summaryState.withLock { $0.summary } }

    private func record(_ body: (ChangeContext) throws -> ChangeOperation) {
        ChangeContext.appendOperation(serial: blockSerial, body)
    }

    /// Appends assets (or placeholders of assets created in this block) at the end; assets already in the album stay
    /// where they are.
    public func addAssets<S: Sequence>(_ assets: S) where S.Element: AssetReference {
        record { context in .addAssets(self, try assets.map { try AssetTarget($0, in: context) }) }
    }

    /// Appends a mixed list of assets and placeholders.
    public func addAssets(_ assets: [any AssetReference]) {
        record { context in .addAssets(self, try assets.map { try AssetTarget($0, in: context) }) }
    }

    /// Inserts assets at `indexes` of the album's visible assets (as `NSMutableArray.insert(_:at:)`: the indexes are
    /// where the assets end up). An asset already in the album moves there.
    public func insertAssets<S: Sequence>(_ assets: S, at indexes: IndexSet) where S.Element: AssetReference {
        record { context in .insertAssets(self, try assets.map { try AssetTarget($0, in: context) }, indexes) }
    }

    /// Removes assets from the album; they stay in the library.
    public func removeAssets<S: Sequence>(_ assets: S) where S.Element: AssetReference {
        record { context in .removeAssets(self, try assets.map { try AssetTarget($0, in: context) }) }
    }

    /// Removes the assets at `indexes` of the album's visible assets.
    public func removeAssets(at indexes: IndexSet) {
        record { _ in .removeAssetsAt(self, indexes) }
    }

    /// Moves the assets at `fromIndexes` so that they start at `toIndex` (as `NSMutableArray.moveObjects`).
    public func moveAssets(at fromIndexes: IndexSet, to toIndex: Int) {
        record { _ in .moveAssets(self, fromIndexes, toIndex) }
    }

    /// Deletes albums (`deleteAssetCollections(_:)`); their assets stay in the library.
    ///
    /// - Throws: ``PhotosError`` outside a block, `.changeNotSupported` for smart albums.
    public class func deleteAssetCollections<S: Sequence>(_ collections: S) throws where S.Element == AssetCollection {
        let context = try ChangeContext.active(for: "AssetCollectionChangeRequest.deleteAssetCollections(_:)")
        var targets: [CollectionTarget] = []
        for collection in collections {
            guard collection.assetCollectionType == .album,
                let uuid = LocalIdentifier.collectionUUID(collection.localIdentifier)
            else {
                throw PhotosError(
                    .changeNotSupported, title: "Smart albums cannot be deleted",
                    message: "'\(collection.title)' is a smart album; only regular albums can be deleted.")
            }
            targets.append(.existing(uuid: uuid, identifier: collection.localIdentifier))
        }
        context.operations.append(.deleteCollections(targets))
    }
}
