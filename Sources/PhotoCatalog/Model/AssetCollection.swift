import FoundationEssentials

/// An album or smart album (`PHAssetCollection`): a snapshot of it when it was fetched.
///
/// Fetch its assets with ``Asset/fetchAssets(in:options:)``; change a regular album through
/// ``AssetCollectionChangeRequest``. Smart albums are computed by queries and cannot be changed.
public struct AssetCollection: PhotoObject, CustomStringConvertible {
    struct Record: Sendable, Hashable {
        /// The album's row, nil for smart albums.
        var rowID: Int64?
        var localIdentifier: String
        var type: AssetCollectionType
        var subtype: AssetCollectionSubtype
        var title: String
        var creationDate: Date?
        var estimatedAssetCount: Int
        /// The UUID of the folder the album is in; nil at the top level and for smart albums.
        var parentUUID: String? = nil
        var bindingKey: String? = nil
        var summary: String? = nil
    }

    let record: Record
    /// The library the collection was fetched from.
    public let photoLibrary: PhotoLibrary

    init(record: Record, library: PhotoLibrary) {
        self.record = record
        self.photoLibrary = library
    }

    /// The collection's identifier: opaque and stable forever.
    public var localIdentifier: String { record.localIdentifier }
    /// Album or smart album.
    public var assetCollectionType: AssetCollectionType { record.type }
    /// The specific kind.
    public var assetCollectionSubtype: AssetCollectionSubtype { record.subtype }
    /// The title, exactly as it was given (no Unicode normalisation, no trimming).
    public var localizedTitle: String? { record.title }
    /// The title (same as ``localizedTitle``).
    public var title: String { record.title }
    /// When the album was created (nil for smart albums).
    public var creationDate: Date? { record.creationDate }
    /// How many visible (not hidden, not deleted) assets it held when fetched; Recently Deleted counts deleted ones.
    public var estimatedAssetCount: Int { record.estimatedAssetCount }

    /// The identifier of the folder (``CollectionList``) the album is in; nil at the top level (photodrop: PhotoKit
    /// answers this with `fetchCollectionListsContaining(_:)`, which works here too).
    public var parentFolderIdentifier: String? { record.parentUUID.map(LocalIdentifier.collectionList(uuid:)) }
    /// The key a client bound to this album, if any (photodrop; PhotoKit has no such thing): unique among albums
    /// and kept when the album is renamed, so that the client finds the album it made again whatever people renamed
    /// it to. A key without `/` also finds, while no album is bound to it, the oldest top-level album of that title
    /// (albums made before keys were recorded). photodrop's ingest binds the inbox folder path (`Trip`,
    /// `2023/Paris`) the album files.
    public var bindingKey: String? { record.bindingKey }
    /// What the album is about, when known: e.g. the `description` of a Google Takeout album's `metadata.json`
    /// (photodrop; nil for smart albums).
    public var summary: String? { record.summary }

    /// What a change request may do with a collection (`PHCollectionEditOperation`).
    public enum EditOperation: Sendable, CaseIterable {
        case deleteContent, removeContent, addContent, createContent, rearrangeContent, delete, rename
    }

    /// Whether the operation is allowed: everything for albums, nothing for smart albums.
    public func canPerform(_ operation: EditOperation) -> Bool { record.type == .album }

    public static func == (lhs: AssetCollection, rhs: AssetCollection) -> Bool {
        lhs.record == rhs.record && lhs.photoLibrary === rhs.photoLibrary
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(record) }

    public var description: String { "AssetCollection(\(localIdentifier), \(title))" }
}
