import FoundationEssentials
import Synchronization

/// The `performChanges` block that is running: collects the change requests made in it, in order.
///
/// Requests find their block through the task-local ``current`` (bound on the writer queue while the block runs; the
/// synchronous `withValue` binds it for plain threads too), and remember the block's serial number so that a request
/// kept past its block changes nothing.
final class ChangeContext: @unchecked Sendable {
    // Invariant: a context is created on the writer queue, used there only while its block runs (every entry point
    // checks `ChangeContext.active(for:)`, which requires the writer queue), and read by the writer after the block
    // returned. No two threads ever touch its mutable state.

    @TaskLocal static var current: ChangeContext?

    private static let serials = Atomic<UInt64>(0)

    let serial: UInt64
    let library: PhotoLibrary
    let writer: WriterConnection
    /// Whether the block is still running; requests made or changed after it are ignored.
    private(set) var isOpen = true

    var assetCreations: [AssetCreationRequest] = []
    /// Files added to stored assets (``AssetChangeRequest/addResource(with:file:options:primaryBecomes:)``), one
    /// request per asset, applied after the creations.
    var resourceAdditions: [AssetCreationRequest] = []
    /// The SHA-256 of every file added to a stored asset in this block (a second copy is not added again).
    var additionSHA256: Set<String> = []
    var collectionCreations: [AssetCollectionChangeRequest] = []
    var collectionListCreations: [CollectionListChangeRequest] = []
    var operations: [ChangeOperation] = []
    /// The first creation request of the block for each SHA-256 (duplicates within one block resolve to it).
    var creationBySHA256: [String: AssetCreationRequest] = [:]
    /// Creation requests by the UUID of their placeholder.
    var creationByUUID: [String: AssetCreationRequest] = [:]
    /// Collection creation requests by the UUID of their placeholder.
    var collectionCreationByUUID: [String: AssetCollectionChangeRequest] = [:]
    /// The first error of a request method that cannot throw (`addResource`, `addAssets`); fails the block.
    private(set) var recordedError: PhotosError?

    init(library: PhotoLibrary, writer: WriterConnection) {
        self.serial = ChangeContext.serials.wrappingAdd(1, ordering: .relaxed).newValue
        self.library = library
        self.writer = writer
    }

    /// The context of the running block, or a ``PhotosError`` saying that `what` must be made inside one.
    static func active(for what: String) throws -> ChangeContext {
        guard let context = current, context.isOpen, context.library.writer.isOnWriterQueue else {
            throw PhotosError.outsideChangeBlock(what)
        }
        return context
    }

    /// The context of the running block if it is `serial`'s, for methods of requests made earlier.
    static func active(serial: UInt64) -> ChangeContext? {
        guard let context = current, context.isOpen, context.serial == serial,
            context.library.writer.isOnWriterQueue
        else { return nil }
        return context
    }

    /// Ends the block: later calls on its requests change nothing.
    func close() { isOpen = false }

    /// Appends the operation `body` makes, for a request method that cannot throw: nothing outside the request's
    /// block, and an error is remembered (it fails the block) instead of thrown.
    static func appendOperation(serial: UInt64, _ body: (ChangeContext) throws -> ChangeOperation) {
        guard let context = active(serial: serial) else { return }
        do {
            context.operations.append(try body(context))
        } catch let error as PhotosError {
            context.record(error)
        } catch {
            context.record(PhotosError.invalidParameter("\(error)"))
        }
    }

    /// Remembers the first error of a request method that cannot throw.
    func record(_ error: PhotosError) {
        if recordedError == nil { recordedError = error }
    }
}

/// One change recorded in a block, applied in order after the creations.
enum ChangeOperation {
    case updateAsset(AssetChangeRequest)
    case deleteAssets([AssetTarget])
    case restoreAssets([AssetTarget])
    case purgeAssets([AssetTarget])
    /// Purge those still in Recently Deleted when applied (deleted before the date, seconds since 1970, if given).
    case purgeDeletedAssets([AssetTarget], deletedBefore: Double?)
    case renameCollection(AssetCollectionChangeRequest)
    case addAssets(AssetCollectionChangeRequest, [AssetTarget])
    case insertAssets(AssetCollectionChangeRequest, [AssetTarget], IndexSet)
    case removeAssets(AssetCollectionChangeRequest, [AssetTarget])
    case removeAssetsAt(AssetCollectionChangeRequest, IndexSet)
    case moveAssets(AssetCollectionChangeRequest, IndexSet, Int)
    case deleteCollections([CollectionTarget])
    case bindCollectionKey(AssetCollectionChangeRequest)
    case describeCollection(AssetCollectionChangeRequest)
    case renameCollectionList(CollectionListChangeRequest)
    case bindCollectionListKey(CollectionListChangeRequest)
    case addChildCollections(CollectionListChangeRequest, [ChildCollectionTarget])
    case removeChildCollections(CollectionListChangeRequest, [ChildCollectionTarget])
    case deleteCollectionLists([CollectionListTarget])
    case removeJournalEntries([Int64])
    case consumeJournalEntries([Int64], kind: String)
    case appendFileRecords([FileRecord.Draft])
}

/// An asset named in a change: an existing one by UUID, or one created in the same block.
enum AssetTarget {
    case existing(uuid: String, identifier: String)
    case created(AssetCreationRequest)

    init(_ reference: any AssetReference, in context: ChangeContext) throws {
        if let placeholder = reference as? ObjectPlaceholder, let request = placeholder.assetRequest,
            request.blockSerial == context.serial
        {
            self = .created(request)
            return
        }
        // An asset, or the placeholder of an earlier block, which names the asset it created then.
        guard let uuid = LocalIdentifier.assetUUID(reference.localIdentifier) else {
            throw PhotosError.invalidParameter("'\(reference.localIdentifier)' is not an asset identifier.")
        }
        self = .existing(uuid: uuid, identifier: reference.localIdentifier)
    }
}

/// A regular album named in a change: an existing one, or one created in the same block.
enum CollectionTarget {
    case existing(uuid: String, identifier: String)
    case created(AssetCollectionChangeRequest)
}
