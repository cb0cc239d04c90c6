import PhotodropSystem
import FoundationEssentials
import LibraryJSON
import PhotoCatalog
import PhotodropConfiguration

/// `albums`, `assets` and `show`: reading the library. They never create or change it and work while a daemon
/// writes it (reads run in their own snapshot).
enum BrowseCommands {
    /// `photodrop albums [--json]`: the folders and albums as a tree (each level folders first, then albums, in
    /// creation order), then the smart albums.
    static func albums(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            var rows: [(collection: Collection, depth: Int)] = []
            func walk(_ level: FetchResult<Collection>, depth: Int) throws {
                for collection in level {
                    rows.append((collection, depth))
                    if case .folder(let folder) = collection {
                        try walk(Collection.fetchCollections(in: folder), depth: depth + 1)
                    }
                }
            }
            try walk(CollectionList.fetchTopLevelUserCollections(library: access.library), depth: 0)
            let smart = try access.allCollections().filter { $0.assetCollectionType == .smartAlbum }
            if context.command.flag("json") {
                for (collection, _) in rows {
                    switch collection {
                    case .album(let album): context.print(CatalogJSON.album(album).text)
                    case .folder(let folder): context.print(CatalogJSON.folder(folder).text)
                    }
                }
                for album in smart { context.print(CatalogJSON.album(album).text) }
                return ExitStatus.success
            }
            var table = TextTable(["ID", "TYPE", "COUNT", "TITLE"], alignments: [.left, .left, .right, .left])
            for (collection, depth) in rows {
                let indent = String(repeating: "  ", count: depth)
                switch collection {
                case .album(let album):
                    table.append([
                        TextFormat.shortIdentifier(album.localIdentifier), "album",
                        TextFormat.count(album.estimatedAssetCount), indent + album.title,
                    ])
                case .folder(let folder):
                    table.append([
                        TextFormat.shortIdentifier(folder.localIdentifier), "folder",
                        TextFormat.count(folder.estimatedChildCollectionCount), indent + folder.title + "/",
                    ])
                }
            }
            for album in smart {
                table.append([
                    TextFormat.shortIdentifier(album.localIdentifier), "smart",
                    TextFormat.count(album.estimatedAssetCount), album.title,
                ])
            }
            context.console.output(table.render())
            let folders = rows.filter { !$0.collection.canContainAssets }.count
            let albums = TextFormat.plural(rows.count - folders, "album")
            let smartAlbums = TextFormat.plural(smart.count, "smart album")
            context.print(
                folders == 0
                    ? "\(albums) and \(smartAlbums)"
                    : "\(albums) in \(TextFormat.plural(folders, "folder")) and \(smartAlbums)")
            return ExitStatus.success
        }
    }

    /// `photodrop assets [--album NAME] [--kind photo|gif|video] [--favorites] [--json]`.
    static func assets(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            var filters: [FetchPredicate] = []
            switch context.command.value("kind") {
            case "photo": filters += [.mediaType(.image), .not(.playbackStyle(.imageAnimated))]
            case "gif": filters.append(.playbackStyle(.imageAnimated))
            case "video": filters.append(.mediaType(.video))
            default: break
            }
            if context.command.flag("favorites") { filters.append(.isFavorite(true)) }
            let options = FetchOptions(predicate: filters.isEmpty ? nil : .and(filters))
            let assets: [Asset]
            if let album = context.command.value("album") {
                let collection = try access.album(titleOrIdentifier: album)
                assets = Array(try Asset.fetchAssets(in: collection, options: options))
            } else {
                assets = Array(try Asset.fetchAssets(with: options, library: access.library))
            }
            let titles = try access.albumTitles(of: assets)
            if context.command.flag("json") {
                for asset in assets {
                    context.print(CatalogJSON.asset(asset, albums: titles[asset.localIdentifier] ?? []).text)
                }
                return ExitStatus.success
            }
            var table = TextTable(
                ["ID", "KIND", "TAKEN (LOCAL TIME)", "SIZE", "PIXELS", "FAV", "NAME", "ALBUMS"],
                alignments: [.left, .left, .left, .right, .right, .left, .left, .left])
            for asset in assets {
                table.append([
                    TextFormat.shortIdentifier(asset.localIdentifier), asset.kind,
                    CaptureTime(asset)?.short ?? "-", TextFormat.bytesForColumn(asset.byteCount),
                    TextFormat.pixels(asset.pixelWidth, asset.pixelHeight), asset.isFavorite ? "*" : "",
                    asset.originalFilename ?? "-", (titles[asset.localIdentifier] ?? []).joined(separator: ", "),
                ])
            }
            if !assets.isEmpty { context.console.output(table.render()) }
            context.print(
                assets.isEmpty
                    ? "No assets match."
                    : "\(TextFormat.plural(assets.count, "asset")); IDs are shortened, every command accepts them "
                        + "(or see 'photodrop show ID')")
            return ExitStatus.success
        }
    }

    /// `photodrop show ID [--json]`.
    static func show(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let asset = try access.asset(context.command.argument("ID") ?? "")
            let albums = try access.albumTitles(of: [asset])[asset.localIdentifier] ?? []
            // Only those made from the asset's current original (an older one is about to be made again).
            let current = try access.library.derivativeSource(ofAsset: asset.localIdentifier)?.sha256
            let recorded = try access.library.derivatives(ofAsset: asset.localIdentifier)
            // Pictures made from the asset's current original (an older one is about to be made again), and a
            // playable video (made from its video or paired movie).
            let derivatives = recorded.filter { $0.sourceSHA256 == current || $0.kind == .playableVideo }
            if context.command.flag("json") {
                context.print(CatalogJSON.asset(asset, albums: albums, derivatives: derivatives).text)
                return ExitStatus.success
            }
            var lines: [(String, String)] = [
                ("ID", asset.localIdentifier),
                ("Kind", "\(asset.kind) (\(asset.mimeType ?? "unknown type"))"),
                ("File", asset.originalFilename ?? "-"),
                (
                    "Taken",
                    CaptureTime(asset).map { taken in
                        var notes: [String] = []
                        if taken.offset != nil { notes.append(TextFormat.date(taken.date)) }
                        if let source = asset.creationDateSource { notes.append("from \(source)") }
                        return taken.long + (notes.isEmpty ? "" : " (" + notes.joined(separator: ", ") + ")")
                    } ?? "unknown"
                ),
                ("Added", TextFormat.date(asset.addedDate)),
                ("Pixels", asset.pixelWidth > 0 ? "\(asset.pixelWidth) × \(asset.pixelHeight)" : "unknown"),
            ]
            if asset.kind == "video" { lines.append(("Duration", TextFormat.duration(asset.duration))) }
            lines.append(("Size", "\(TextFormat.bytes(asset.byteCount)) (\(TextFormat.count(asset.byteCount)) bytes)"))
            lines.append(("SHA-256", asset.sha256 ?? "-"))
            lines.append(("Favorite", asset.isFavorite ? "yes" : "no"))
            if asset.isHidden { lines.append(("Hidden", "yes")) }
            if let deleted = asset.deletedDate {
                lines.append(("Deleted", TextFormat.date(deleted) + " (in Recently Deleted)"))
            }
            if let location = asset.location {
                lines.append(("Location", NumberText.fixed(location.latitude, places: 6) + ", " + NumberText.fixed(location.longitude, places: 6)))
            }
            lines.append(
                (
                    "Camera",
                    asset.cameraMake != nil || asset.cameraModel != nil
                        ? TextFormat.camera(make: asset.cameraMake, model: asset.cameraModel)
                        : "unknown (the file names no camera)"
                ))
            lines += TextFormat.captureLines(asset.captureDetails)
            lines.append(("Albums", albums.isEmpty ? "none" : albums.joined(separator: ", ")))
            lines.append(("Original", asset.originalURL?.path ?? "-"))
            if let title = asset.title { lines.append(("Title", title)) }
            if let caption = asset.caption { lines.append(("Caption", caption)) }
            if !asset.keywords.isEmpty { lines.append(("Keywords", asset.keywords.joined(separator: ", "))) }
            if let rating = asset.rating {
                lines.append(("Rating", rating < 0 ? "rejected" : String(repeating: "★", count: rating) + " (\(rating))"))
            }
            if !asset.mediaSubtypes.names.isEmpty {
                lines.append(("Subtypes", asset.mediaSubtypes.names.joined(separator: ", ")))
            }
            if asset.resources.count > 1 {
                for resource in asset.resources.dropFirst() {
                    lines.append(
                        ("+ " + resource.type.name,
                         "\(resource.originalFilename), \(TextFormat.bytes(resource.byteCount)): \(resource.fileURL.path)"))
                }
            }
            for kind in DerivativeKind.pictures {
                let label = kind == .thumbnail ? "Thumbnail" : "Preview"
                guard let derivative = derivatives.first(where: { $0.kind == kind }) else {
                    lines.append((label, "not made yet ('photodrop thumbnails' makes it)"))
                    continue
                }
                if let file = derivative.file {
                    lines.append(
                        (label,
                         "\(file.pixelWidth) × \(file.pixelHeight) \(file.mimeType), \(TextFormat.bytes(file.byteCount)): "
                            + file.fileURL.path))
                } else {
                    lines.append((label, "could not be made: \(derivative.failure ?? "unknown error")"))
                }
            }
            if let video = derivatives.first(where: { $0.kind == .playableVideo }) {
                if let file = video.file {
                    lines.append(
                        ("Video",
                         "H.264 \(file.pixelWidth) × \(file.pixelHeight), \(TextFormat.bytes(file.byteCount)): \(file.fileURL.path)"))
                } else {
                    lines.append(("Video", "no playable version could be made: \(video.failure ?? "unknown error")"))
                }
            }
            let width = lines.map(\.0.count).max() ?? 0
            for (key, value) in lines {
                context.print(key + String(repeating: " ", count: width - key.count) + "  " + value)
            }
            return ExitStatus.success
        }
    }
}
