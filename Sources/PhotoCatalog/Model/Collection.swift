import FoundationEssentials

/// An album or a folder (`PHCollection`, the common superclass of `PHAssetCollection` and `PHCollectionList`): what a
/// folder holds and what the top level of the library holds.
public enum Collection: PhotoObject, CustomStringConvertible {
    case album(AssetCollection)
    case folder(CollectionList)

    public var localIdentifier: String {
        switch self {
        case .album(let album): album.localIdentifier
        case .folder(let folder): folder.localIdentifier
        }
    }

    /// The title.
    public var localizedTitle: String? {
        switch self {
        case .album(let album): album.localizedTitle
        case .folder(let folder): folder.localizedTitle
        }
    }

    /// Whether it can hold assets (albums) rather than collections (folders).
    public var canContainAssets: Bool { if case .album = self { true } else { false } }
    /// Whether it can hold collections (folders).
    public var canContainCollections: Bool { !canContainAssets }

    /// The library it was fetched from.
    public var photoLibrary: PhotoLibrary {
        switch self {
        case .album(let album): album.photoLibrary
        case .folder(let folder): folder.photoLibrary
        }
    }

    public var description: String {
        switch self {
        case .album(let album): album.description
        case .folder(let folder): folder.description
        }
    }

    /// The folders and albums in `folder`, folders first, each in creation order (`fetchCollections(in:options:)`);
    /// `options` may filter by title.
    public static func fetchCollections(in folder: CollectionList, options: FetchOptions? = nil) throws
        -> FetchResult<Collection>
    {
        try fetch(parentUUID: folder.record.uuid, options: options, library: folder.photoLibrary)
    }

    static func fetch(parentUUID: String?, options: FetchOptions?, library: PhotoLibrary) throws
        -> FetchResult<Collection>
    {
        let options = options ?? FetchOptions()
        let folders = CollectionListQuery(source: .parent(folderUUID: parentUUID), options: options)
        let albums = CollectionQuery(source: .parent(folderUUID: parentUUID), options: options)
        _ = try albums.compile()
        let read: @Sendable (Database, PhotoLibrary) throws -> [Collection] = { database, library in
            try folders.fetch(database, library: library).map(Collection.folder)
                + albums.fetch(database, library: library).map(Collection.album)
        }
        let objects = try library.read("fetch folders and albums") { try read($0, library) } ?? []
        return FetchResult(
            objects: objects, library: library, dependsOn: [.assets, .collections, .memberships], refetch: read)
    }
}
