import FoundationEssentials

extension Asset {
    /// The visible assets of a collection (`fetchAssets(in:options:)`): album order for albums, the smart album's
    /// order for smart albums, unless `options` sorts. Uses the library the collection came from.
    public static func fetchAssets(in collection: AssetCollection, options: FetchOptions? = nil) throws
        -> FetchResult<Asset>
    {
        let library = collection.photoLibrary
        let source: AssetQuery.Source
        if let rowID = collection.record.rowID {
            source = .album(rowID: rowID)
        } else if let smart = SmartAlbum(subtype: collection.assetCollectionSubtype) {
            source = .smart(smart)
        } else {
            throw PhotosError.invalidParameter("'\(collection.title)' is not a collection of this library.")
        }
        return try library.fetchAssets(AssetQuery(source: source, options: options ?? FetchOptions()))
    }

    /// Every visible asset matching `options` (`fetchAssets(with:)`), by creation date unless `options` sorts.
    public static func fetchAssets(with options: FetchOptions? = nil, library: PhotoLibrary) throws
        -> FetchResult<Asset>
    {
        try library.fetchAssets(AssetQuery(source: .all, options: options ?? FetchOptions()))
    }

    /// Every visible asset of a media type (`fetchAssets(with:options:)`).
    public static func fetchAssets(with mediaType: AssetMediaType, options: FetchOptions? = nil, library: PhotoLibrary)
        throws -> FetchResult<Asset>
    {
        var options = options ?? FetchOptions()
        let byType = FetchPredicate.mediaType(mediaType)
        options.predicate = options.predicate.map { .and([byType, $0]) } ?? byType
        return try library.fetchAssets(AssetQuery(source: .all, options: options))
    }

    /// The assets with these identifiers, in the order given unless `options` sorts
    /// (`fetchAssets(withLocalIdentifiers:options:)`). Unknown identifiers are skipped; hidden assets and assets in
    /// Recently Deleted are included (check ``isHidden`` and ``isDeleted``).
    public static func fetchAssets(
        withLocalIdentifiers identifiers: [String], options: FetchOptions? = nil, library: PhotoLibrary
    ) throws -> FetchResult<Asset> {
        var options = options ?? FetchOptions()
        options.includeHiddenAssets = true
        var seen = Set<String>()
        let unique = identifiers.filter { seen.insert(LocalIdentifier.assetUUID($0) ?? $0).inserted }
        return try library.fetchAssets(AssetQuery(source: .identifiers(unique), options: options))
    }
}

extension AssetCollection {
    /// Collections of a type and subtype (`fetchAssetCollections(with:subtype:options:)`): albums in creation order,
    /// smart albums in a fixed order, unless `options` sorts. Filter albums by title with
    /// `FetchOptions(predicate: .title(.equals("Landscapes")))`.
    public static func fetchAssetCollections(
        with type: AssetCollectionType, subtype: AssetCollectionSubtype, options: FetchOptions? = nil,
        library: PhotoLibrary
    ) throws -> FetchResult<AssetCollection> {
        try library.fetchCollections(
            CollectionQuery(source: .type(type, subtype), options: options ?? FetchOptions()))
    }

    /// The collections with these identifiers, in the order given unless `options` sorts
    /// (`fetchAssetCollections(withLocalIdentifiers:options:)`).
    public static func fetchAssetCollections(
        withLocalIdentifiers identifiers: [String], options: FetchOptions? = nil, library: PhotoLibrary
    ) throws -> FetchResult<AssetCollection> {
        var seen = Set<String>()
        let unique = identifiers.filter { seen.insert($0).inserted }
        return try library.fetchCollections(
            CollectionQuery(source: .identifiers(unique), options: options ?? FetchOptions()))
    }

    /// The album bound to `key`, if any (photodrop; see ``AssetCollection/bindingKey``).
    public static func fetchAlbum(forBindingKey key: String, library: PhotoLibrary) throws -> AssetCollection? {
        try library.fetchCollections(CollectionQuery(source: .bindingKey(key), options: FetchOptions())).firstObject
    }

    /// The collections of a type that contain `asset` (`fetchAssetCollectionsContaining(_:with:options:)`), e.g. the
    /// albums to list beside an asset.
    public static func fetchAssetCollectionsContaining(
        _ asset: Asset, with type: AssetCollectionType, options: FetchOptions? = nil
    ) throws -> FetchResult<AssetCollection> {
        try asset.photoLibrary.fetchCollections(
            CollectionQuery(
                source: .containing(assetRowID: asset.rowID, type: type), options: options ?? FetchOptions()))
    }
}

extension PhotoLibrary {
    func fetchAssets(_ query: AssetQuery) throws -> FetchResult<Asset> {
        _ = try query.compile()  // report a bad predicate even when the library does not exist yet
        let objects = try read("fetch assets") { try query.fetch($0, library: self) } ?? []
        return FetchResult(
            objects: objects, library: self, dependsOn: [.assets, .memberships],
            refetch: { database, library in try query.fetch(database, library: library) })
    }

    func fetchCollections(_ query: CollectionQuery) throws -> FetchResult<AssetCollection> {
        _ = try query.compile()
        let objects = try read("fetch albums") { try query.fetch($0, library: self) } ?? []
        return FetchResult(
            objects: objects, library: self, dependsOn: [.assets, .collections, .memberships],
            refetch: { database, library in try query.fetch(database, library: library) })
    }
}
