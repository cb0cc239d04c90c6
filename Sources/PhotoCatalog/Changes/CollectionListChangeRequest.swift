import FoundationEssentials
import Synchronization

/// Creates, renames, fills and deletes folders (`PHCollectionListChangeRequest`). Make requests only inside
/// ``PhotoLibrary/performChanges(_:)``.
///
/// A folder holds albums and other folders; an album or folder is in at most one folder, so adding it to a folder
/// moves it there. A folder cannot be put inside itself or one of its own subfolders. Deleting a folder keeps what it
/// held: its albums and folders move up to the folder's own parent (photodrop's choice; Apple Photos asks).
public final class CollectionListChangeRequest: @unchecked Sendable {
    // Invariant: the mutable state (title, binding key) lives in a Mutex; everything else is immutable.

    let blockSerial: UInt64
    private let existingTarget: CollectionListTarget?
    /// The UUID of a new folder.
    let uuid: String?
    private let placeholder: ObjectPlaceholder?
    private let state: Mutex<(title: String, renamed: Bool, bindingKey: String?, bound: Bool)>

    var target: CollectionListTarget { existingTarget ?? .created(self) }

    private init(blockSerial: UInt64, existing: CollectionList?, title: String) {
        self.blockSerial = blockSerial
        if let existing {
            uuid = nil
            placeholder = nil
            existingTarget = .existing(uuid: existing.record.uuid, identifier: existing.localIdentifier)
            state = Mutex((title, false, existing.bindingKey, false))
        } else {
            let uuid = LocalIdentifier.newUUID()
            self.uuid = uuid
            placeholder = ObjectPlaceholder(localIdentifier: LocalIdentifier.collectionList(uuid: uuid))
            existingTarget = nil
            state = Mutex((title, false, nil, false))
        }
        placeholder?.attach(listRequest: self)
    }

    /// A request that creates a folder with `title`, at the top level until added to another folder
    /// (`creationRequestForCollectionList(withTitle:)`).
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block.
    public class func creationRequestForCollectionList(withTitle title: String) throws -> CollectionListChangeRequest {
        let context = try ChangeContext.active(for: "CollectionListChangeRequest.creationRequestForCollectionList")
        let request = CollectionListChangeRequest(blockSerial: context.serial, existing: nil, title: title)
        context.collectionListCreations.append(request)
        return request
    }

    /// A request that changes `collectionList` (`init(for:)`).
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block.
    public convenience init(for collectionList: CollectionList) throws {
        let context = try ChangeContext.active(for: "CollectionListChangeRequest(for:)")
        self.init(blockSerial: context.serial, existing: collectionList, title: collectionList.title)
    }

    /// The placeholder of the folder a creation request makes; nil for requests that change an existing folder.
    public var placeholderForCreatedCollectionList: ObjectPlaceholder? { placeholder }

    /// The folder's title; setting it renames the folder.
    public var title: String {
        get { state.withLock { $0.title } }
        set {
            guard let context = ChangeContext.active(serial: blockSerial) else { return }
            let first = state.withLock { state -> Bool in
                defer {
                    state.title = newValue
                    state.renamed = true
                }
                return !state.renamed
            }
            if first, uuid == nil { context.operations.append(.renameCollectionList(self)) }
        }
    }

    /// The key bound to this folder (photodrop; see ``CollectionList/bindingKey``). A key bound to another folder
    /// moves to this one; nil unbinds it.
    public var bindingKey: String? {
        get { state.withLock { $0.bindingKey } }
        set {
            guard let context = ChangeContext.active(serial: blockSerial) else { return }
            let first = state.withLock { state -> Bool in
                defer {
                    state.bindingKey = newValue
                    state.bound = true
                }
                return !state.bound
            }
            if first { context.operations.append(.bindCollectionListKey(self)) }
        }
    }

    var currentTitle: String { state.withLock { $0.title } }
    var currentBindingKey: String? { state.withLock { $0.bindingKey } }

    private func record(_ body: (ChangeContext) throws -> ChangeOperation) {
        ChangeContext.appendOperation(serial: blockSerial, body)
    }

    /// Moves albums and folders (or placeholders of ones created in this block) into this folder
    /// (`addChildCollections(_:)`).
    public func addChildCollections(_ collections: [any CollectionReference]) {
        record { context in .addChildCollections(self, try collections.map { try ChildCollectionTarget($0, in: context) }) }
    }

    /// Moves albums and folders out of this folder to the top level (`removeChildCollections(_:)`); they are kept.
    public func removeChildCollections(_ collections: [any CollectionReference]) {
        record { context in
            .removeChildCollections(self, try collections.map { try ChildCollectionTarget($0, in: context) })
        }
    }

    /// Deletes folders (`deleteCollectionLists(_:)`); what they held moves up to their parents.
    ///
    /// - Throws: ``PhotosError`` outside a block.
    public class func deleteCollectionLists<S: Sequence>(_ lists: S) throws where S.Element == CollectionList {
        let context = try ChangeContext.active(for: "CollectionListChangeRequest.deleteCollectionLists(_:)")
        context.operations.append(
            .deleteCollectionLists(lists.map { .existing(uuid: $0.record.uuid, identifier: $0.localIdentifier) }))
    }
}

/// Something that names an album or a folder in a change request: an ``AssetCollection``, a ``CollectionList``, a
/// ``Collection``, or the ``ObjectPlaceholder`` of one created in the same block.
public protocol CollectionReference: Sendable {
    var localIdentifier: String { get }
}

extension AssetCollection: CollectionReference {}
extension CollectionList: CollectionReference {}
extension Collection: CollectionReference {}
extension ObjectPlaceholder: CollectionReference {}

/// A folder named in a change: an existing one, or one created in the same block.
enum CollectionListTarget {
    case existing(uuid: String, identifier: String)
    case created(CollectionListChangeRequest)
}

/// An album or folder moved by a folder change.
enum ChildCollectionTarget {
    case album(CollectionTarget)
    case folder(CollectionListTarget)

    init(_ reference: any CollectionReference, in context: ChangeContext) throws {
        if let placeholder = reference as? ObjectPlaceholder {
            if let request = placeholder.collectionRequest, request.blockSerial == context.serial {
                self = .album(.created(request))
                return
            }
            if let request = placeholder.listRequest, request.blockSerial == context.serial {
                self = .folder(.created(request))
                return
            }
        }
        let identifier = reference.localIdentifier
        if identifier.hasSuffix(LocalIdentifier.collectionListSuffix),
            let uuid = LocalIdentifier.collectionListUUID(identifier)
        {
            self = .folder(.existing(uuid: uuid, identifier: identifier))
        } else if identifier.hasSuffix(LocalIdentifier.collectionSuffix),
            let uuid = LocalIdentifier.collectionUUID(identifier)
        {
            self = .album(.existing(uuid: uuid, identifier: identifier))
        } else {
            throw PhotosError.invalidParameter(
                "'\(identifier)' is neither an album nor a folder identifier; smart albums cannot be put in folders.")
        }
    }
}
