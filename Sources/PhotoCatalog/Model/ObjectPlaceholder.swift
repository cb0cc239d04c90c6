import Synchronization

/// Stands for an object created in a `performChanges` block (`PHObjectPlaceholder`): use it to add a new asset to an
/// album in the same block, and read its ``localIdentifier`` to fetch the object after the block committed.
///
/// For an asset whose content is already in the library (a duplicate), the placeholder resolves to the existing asset:
/// its identifier becomes the existing asset's as soon as the resource is added, and album additions point there.
public final class ObjectPlaceholder: AssetReference, Hashable, CustomStringConvertible {
    private struct State {
        var identifier: String
        weak var assetRequest: AssetCreationRequest?
        weak var collectionRequest: AssetCollectionChangeRequest?
        weak var listRequest: CollectionListChangeRequest?
    }

    private let state: Mutex<State>

    init(localIdentifier: String) {
        state = Mutex(State(identifier: localIdentifier, assetRequest: nil, collectionRequest: nil, listRequest: nil))
    }

    func attach(assetRequest: AssetCreationRequest) {
        state.withLock { $0.assetRequest = assetRequest }
    }

    func attach(collectionRequest: AssetCollectionChangeRequest) {
        state.withLock { $0.collectionRequest = collectionRequest }
    }

    func attach(listRequest: CollectionListChangeRequest) {
        state.withLock { $0.listRequest = listRequest }
    }

    /// The identifier of the created object (or, for a duplicate asset, of the existing one).
    public var localIdentifier: String { state.withLock { $0.identifier } }

    /// The creation request of the asset, while it exists.
    var assetRequest: AssetCreationRequest? { state.withLock { $0.assetRequest } }
    /// The creation request of the album, while it exists.
    var collectionRequest: AssetCollectionChangeRequest? { state.withLock { $0.collectionRequest } }
    /// The creation request of the folder, while it exists.
    var listRequest: CollectionListChangeRequest? { state.withLock { $0.listRequest } }

    func resolve(to localIdentifier: String) {
        state.withLock { $0.identifier = localIdentifier }
    }

    public static func == (lhs: ObjectPlaceholder, rhs: ObjectPlaceholder) -> Bool { lhs === rhs }
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
    public var description: String { "ObjectPlaceholder(\(localIdentifier))" }
}
