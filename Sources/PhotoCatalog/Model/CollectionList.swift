import FoundationEssentials

/// A folder of albums and other folders (`PHCollectionList` of type `.folder`): a snapshot of it when it was fetched.
///
/// Fetch its children with ``Collection/fetchCollections(in:options:)``, the top level of the library with
/// ``CollectionList/fetchTopLevelUserCollections(options:library:)``; change it through
/// ``CollectionListChangeRequest``.
public struct CollectionList: PhotoObject, CustomStringConvertible {
    struct Record: Sendable, Hashable {
        var rowID: Int64
        var uuid: String
        var title: String
        var creationDate: Date
        var parentUUID: String?
        var bindingKey: String?
        var childCount: Int
    }

    let record: Record
    /// The library the folder was fetched from.
    public let photoLibrary: PhotoLibrary

    init(record: Record, library: PhotoLibrary) {
        self.record = record
        self.photoLibrary = library
    }

    /// The folder's identifier: opaque and stable forever.
    public var localIdentifier: String { LocalIdentifier.collectionList(uuid: record.uuid) }
    /// Always a folder (PhotoKit's other kinds, smart folders and moment lists, do not exist here).
    public var collectionListType: CollectionListType { .folder }
    /// The title, exactly as it was given.
    public var localizedTitle: String? { record.title }
    /// The title (same as ``localizedTitle``).
    public var title: String { record.title }
    /// When the folder was created.
    public var creationDate: Date? { record.creationDate }
    /// The identifier of the folder this one is in; nil at the top level (photodrop).
    public var parentFolderIdentifier: String? { record.parentUUID.map(LocalIdentifier.collectionList(uuid:)) }
    /// The key a client bound to this folder, if any (photodrop): unique among folders and kept when the folder is
    /// renamed, so that the client finds the folder it made again (photodrop's ingest binds the inbox folder path it
    /// made the folder for, `2023` for `Inbox/2023/Paris/`).
    public var bindingKey: String? { record.bindingKey }
    /// How many albums and folders it held when fetched.
    public var estimatedChildCollectionCount: Int { record.childCount }

    /// What a change request may do with a folder: everything but adding assets (folders hold collections).
    public func canPerform(_ operation: AssetCollection.EditOperation) -> Bool {
        switch operation {
        case .addContent, .removeContent, .createContent, .rearrangeContent, .delete, .rename: true
        case .deleteContent: false
        }
    }

    public static func == (lhs: CollectionList, rhs: CollectionList) -> Bool {
        lhs.record == rhs.record && lhs.photoLibrary === rhs.photoLibrary
    }

    public func hash(into hasher: inout Hasher) { hasher.combine(record) }

    public var description: String { "CollectionList(\(localIdentifier), \(title))" }

    // MARK: Fetching

    /// Every folder, in creation order unless `options` sorts (by title or creation date) or filters by title
    /// (`fetchCollectionLists(with:subtype:options:)`).
    public static func fetchCollectionLists(
        with type: CollectionListType = .folder, options: FetchOptions? = nil, library: PhotoLibrary
    ) throws -> FetchResult<CollectionList> {
        try library.fetchCollectionLists(CollectionListQuery(source: .all, options: options ?? FetchOptions()))
    }

    /// The folders with these identifiers, in the order given (`fetchCollectionLists(withLocalIdentifiers:options:)`).
    public static func fetchCollectionLists(
        withLocalIdentifiers identifiers: [String], options: FetchOptions? = nil, library: PhotoLibrary
    ) throws -> FetchResult<CollectionList> {
        try library.fetchCollectionLists(
            CollectionListQuery(
                source: .identifiers(identifiers.compactMap(LocalIdentifier.collectionListUUID)),
                options: options ?? FetchOptions()))
    }

    /// The folder that holds `collection` (empty at the top level) (`fetchCollectionListsContaining(_:options:)`).
    public static func fetchCollectionListsContaining(_ collection: Collection, options: FetchOptions? = nil) throws
        -> FetchResult<CollectionList>
    {
        let parent: String?
        switch collection {
        case .album(let album): parent = album.record.parentUUID
        case .folder(let folder): parent = folder.record.parentUUID
        }
        guard let parent else { return FetchResult([]) }
        return try collection.photoLibrary.fetchCollectionLists(
            CollectionListQuery(source: .identifiers([parent]), options: options ?? FetchOptions()))
    }

    /// The folders and albums at the top level of the library, folders first, each by creation order
    /// (`fetchTopLevelUserCollections(with:)`). Smart albums are not included.
    public static func fetchTopLevelUserCollections(options: FetchOptions? = nil, library: PhotoLibrary) throws
        -> FetchResult<Collection>
    {
        try Collection.fetch(parentUUID: nil, options: options, library: library)
    }

    /// The folder bound to `key`, if any (photodrop; see ``bindingKey``).
    public static func fetchCollectionList(forBindingKey key: String, library: PhotoLibrary) throws
        -> CollectionList?
    {
        try library.fetchCollectionLists(CollectionListQuery(source: .bindingKey(key), options: FetchOptions()))
            .firstObject
    }
}
