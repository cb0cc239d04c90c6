import FoundationEssentials

/// The kinds of object the persistent history reports (`PHObjectType`).
public enum PhotoObjectType: Int, Sendable, Hashable, Codable, CaseIterable {
    case asset = 1
    case assetCollection = 2
    /// A folder (``CollectionList``).
    case collectionList = 3
}

/// One committed transaction of the library (`PHPersistentChange`): its token, when it committed, and which objects it
/// inserted, updated or deleted.
///
/// Moving an asset to Recently Deleted and purging it are deletions; restoring it is an insertion; adding assets to
/// an album, removing them or renaming it updates the album.
public struct PersistentChange: Sendable, Hashable {
    /// The token after this change; pass it to ``PhotoLibrary/fetchPersistentChanges(since:limit:)`` to read what follows.
    public let changeToken: PersistentChangeToken
    /// When the transaction committed (millisecond precision).
    public let date: Date
    let assets: PersistentObjectChangeDetails
    let collections: PersistentObjectChangeDetails
    let collectionLists: PersistentObjectChangeDetails

    /// The changes of one object type.
    public func changeDetails(for objectType: PhotoObjectType) -> PersistentObjectChangeDetails {
        switch objectType {
        case .asset: assets
        case .assetCollection: collections
        case .collectionList: collectionLists
        }
    }
}

/// The objects of one type changed by a ``PersistentChange`` (`PHPersistentObjectChangeDetails`).
public struct PersistentObjectChangeDetails: Sendable, Hashable {
    /// The type of the objects.
    public let objectType: PhotoObjectType
    /// Objects that appeared.
    public var insertedLocalIdentifiers: Set<String>
    /// Objects that changed.
    public var updatedLocalIdentifiers: Set<String>
    /// Objects that went away.
    public var deletedLocalIdentifiers: Set<String>

    init(objectType: PhotoObjectType) {
        self.objectType = objectType
        insertedLocalIdentifiers = []
        updatedLocalIdentifiers = []
        deletedLocalIdentifiers = []
    }
}

/// How long the persistent history is kept.
///
/// The log grows by about one row per changed object. After commits the writer deletes, in bounded chunks,
/// transactions that are both older than ``maximumAge`` and beyond the newest ``minimumTransactions``, and all
/// transactions beyond the newest ``maximumTransactions``. A token older than what is kept is *expired*
/// (``PhotosError/Code-swift.enum/persistentChangeTokenExpired``): its holder must re-read the library.
public struct HistoryRetention: Sendable, Hashable {
    /// Transactions older than this may be pruned (default: 30 days).
    public var maximumAge: TimeInterval
    /// At least this many recent transactions are always kept, however old (default: 10,000).
    public var minimumTransactions: Int
    /// At most this many transactions are kept, however young (default: 1,000,000).
    public var maximumTransactions: Int
    /// File records (``FileRecord``) older than this are removed (default: 30 days).
    public var fileRecordAge: TimeInterval

    /// A policy; see the type's description for how the three limits combine.
    public init(
        maximumAge: TimeInterval = 30 * 24 * 3600, minimumTransactions: Int = 10_000,
        maximumTransactions: Int = 1_000_000, fileRecordAge: TimeInterval = 30 * 24 * 3600
    ) {
        self.fileRecordAge = fileRecordAge
        self.maximumAge = maximumAge
        self.minimumTransactions = minimumTransactions
        self.maximumTransactions = max(1, maximumTransactions)
    }

    /// 30 days, at least 10,000 and at most 1,000,000 transactions.
    public static let `default` = HistoryRetention()
}

/// What a change did to an object, as stored in the change log.
enum ObjectChangeKind: Int, Sendable {
    case inserted = 0
    case updated = 1
    case deleted = 2

    /// The net effect of `self` followed by `next` in one transaction; nil when nothing is left to report.
    func followed(by next: ObjectChangeKind) -> ObjectChangeKind? {
        switch (self, next) {
        case (.inserted, .deleted): return nil
        case (.inserted, _): return .inserted
        case (.deleted, .inserted): return .updated
        case (.deleted, _): return .deleted
        case (.updated, let next): return next
        }
    }
}
