import FoundationEssentials

/// The ordered result of a fetch (`PHFetchResult`), a `RandomAccessCollection` of assets or collections.
///
/// A fetch result is a snapshot: it does not change when the library does. Observers get
/// ``FetchResultChangeDetails/fetchResultAfterChanges`` from ``PhotoLibraryChange/changeDetails(for:)-(FetchResult<T>)``.
/// The objects are read when the fetch runs; for very large libraries prefer a ``FetchOptions/fetchLimit`` or a
/// predicate over fetching everything.
public final class FetchResult<ObjectType: PhotoObject>: RandomAccessCollection, Sendable, CustomStringConvertible {
    /// The objects in order.
    public let objects: [ObjectType]
    /// Re-runs the fetch on a connection; nil for results that cannot be refetched.
    let refetch: (@Sendable (Database, PhotoLibrary) throws -> [ObjectType])?
    /// The library the fetch ran on; nil for the empty result of a library that does not exist yet.
    let library: PhotoLibrary?
    /// The object kinds whose changes can affect this result.
    let dependsOn: ChangeDependency

    init(
        objects: [ObjectType], library: PhotoLibrary?, dependsOn: ChangeDependency,
        refetch: (@Sendable (Database, PhotoLibrary) throws -> [ObjectType])?
    ) {
        self.objects = objects
        self.library = library
        self.dependsOn = dependsOn
        self.refetch = refetch
    }

    /// A result holding exactly these objects, which never changes.
    public convenience init(_ objects: [ObjectType]) {
        self.init(objects: objects, library: nil, dependsOn: [], refetch: nil)
    }

    public var startIndex: Int { objects.startIndex }
    public var endIndex: Int { objects.endIndex }
    public subscript(position: Int) -> ObjectType { objects[position] }

    /// The object at `index` (PhotoKit's spelling of the subscript).
    public func object(at index: Int) -> ObjectType { objects[index] }
    /// The objects at `indexes`, in index order.
    public func objects(at indexes: IndexSet) -> [ObjectType] { indexes.map { objects[$0] } }
    /// The first object, if any.
    public var firstObject: ObjectType? { objects.first }
    /// The last object, if any.
    public var lastObject: ObjectType? { objects.last }
    /// Whether an object with the same identifier is in the result.
    public func contains(_ object: ObjectType) -> Bool { index(of: object) != nil }
    /// The index of the object with the same identifier, if present.
    public func index(of object: ObjectType) -> Int? {
        objects.firstIndex { $0.localIdentifier == object.localIdentifier }
    }
    /// How many objects are of a media type (for asset results).
    public func countOfAssets(with mediaType: AssetMediaType) -> Int where ObjectType == Asset {
        objects.reduce(0) { $0 + ($1.mediaType == mediaType ? 1 : 0) }
    }
    /// Calls `body` for each object with its index, until `stop` is set.
    public func enumerateObjects(_ body: (ObjectType, Int, inout Bool) throws -> Void) rethrows {
        var stop = false
        for (index, object) in objects.enumerated() {
            try body(object, index, &stop)
            if stop { break }
        }
    }

    public var description: String { "FetchResult(\(objects.count) \(ObjectType.self))" }
}

/// Which kinds of change can alter a fetch result.
struct ChangeDependency: OptionSet, Sendable, Hashable {
    let rawValue: Int
    static let assets = ChangeDependency(rawValue: 1)
    static let collections = ChangeDependency(rawValue: 2)
    static let memberships = ChangeDependency(rawValue: 4)
}
