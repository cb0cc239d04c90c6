import Foundation
import PhotoCatalog

/// `albums`, `assets` and `show`: reading the library. They never create or change it and work while a daemon
/// writes it (reads run in their own snapshot).
enum BrowseCommands {
    /// `photodrop albums [--json]`: regular albums in creation order, then the smart albums.
    static func albums(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let collections = try access.allCollections()
            if context.command.flag("json") {
                for collection in collections { context.print(CatalogJSON.album(collection).text) }
                return ExitStatus.success
            }
            var table = TextTable(["ID", "TYPE", "COUNT", "TITLE"], alignments: [.left, .left, .right, .left])
            for collection in collections {
                table.append([
                    TextFormat.shortIdentifier(collection.localIdentifier),
                    collection.assetCollectionType == .smartAlbum ? "smart" : "album",
                    TextFormat.count(collection.estimatedAssetCount), collection.title,
                ])
            }
            context.console.output(table.render())
            let regular = collections.filter { $0.assetCollectionType == .album }.count
            context.print(
                "\(TextFormat.plural(regular, "album")) and \(TextFormat.plural(collections.count - regular, "smart album"))"
            )
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
                    CaptureTime(asset)?.short ?? "-", TextFormat.bytes(asset.byteCount),
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
            if context.command.flag("json") {
                context.print(CatalogJSON.asset(asset, albums: albums).text)
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
                lines.append(("Location", String(format: "%.6f, %.6f", location.latitude, location.longitude)))
            }
            lines.append(("Albums", albums.isEmpty ? "none" : albums.joined(separator: ", ")))
            lines.append(("Original", asset.originalURL?.path ?? "-"))
            let width = lines.map(\.0.count).max() ?? 0
            for (key, value) in lines {
                context.print(key + String(repeating: " ", count: width - key.count) + "  " + value)
            }
            return ExitStatus.success
        }
    }
}
