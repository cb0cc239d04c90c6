import FoundationEssentials
import Ingest
import PhotoCatalog
import Uploads

/// `album create|rename|delete`, `favorite`, `remove` and `delete`: one change each, through `performChanges`, so
/// that every change lands in the persistent history (`photodrop events`) like the daemon's own. They work while a
/// daemon runs (the catalog serialises writers), and refuse to create a library that does not exist.
///
/// Each prints one line saying what it did; a change that is already in effect (favouriting a favourite) succeeds
/// and says so.
enum ChangeCommands {
    /// `photodrop album create NAME`: titles are stored in Unicode NFC, like album folders of the inbox, and must be
    /// unique, because the inbox folder of that name files into the album with that title.
    static func createAlbum(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let title = try albumTitle(context.command.argument("NAME") ?? "")
            if let existing = try access.albums(titled: title).first {
                throw CommandFailure(
                    "an album titled '\(title)' already exists (\(existing.localIdentifier)); titles are kept unique "
                        + "because the inbox folder '\(title)' files into the album of that title")
            }
            let report = try await access.library.performChanges {
                _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
            }
            let identifier = report.createdCollectionIdentifiers.first ?? "?"
            context.print("Created album '\(title)': \(identifier)")
            return ExitStatus.success
        }
    }

    /// `photodrop album rename ID NAME`.
    static func renameAlbum(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let album = try access.album(identifier: context.command.argument("ID") ?? "")
            try requireRegular(album, "rename")
            let title = try albumTitle(context.command.argument("NAME") ?? "")
            if album.title == title {
                context.print("Album \(album.localIdentifier) is already titled '\(title)'")
                return ExitStatus.success
            }
            if let other = try access.albums(titled: title).first(where: { $0.localIdentifier != album.localIdentifier }
            ) {
                throw CommandFailure(
                    "another album is already titled '\(title)' (\(other.localIdentifier)); titles are kept unique "
                        + "because the inbox folder '\(title)' files into the album of that title")
            }
            try await access.library.performChanges {
                try AssetCollectionChangeRequest(for: album).title = title
            }
            context.print("Renamed album '\(album.title)' to '\(title)' (\(album.localIdentifier))")
            return ExitStatus.success
        }
    }

    /// `photodrop album delete ID`: the album goes, its assets stay in the library.
    static func deleteAlbum(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let album = try access.album(identifier: context.command.argument("ID") ?? "")
            try requireRegular(album, "delete")
            try await access.library.performChanges {
                try AssetCollectionChangeRequest.deleteAssetCollections([album])
            }
            context.print(
                "Deleted album '\(album.title)' (\(album.localIdentifier)); its "
                    + "\(TextFormat.plural(album.estimatedAssetCount, "asset")) stay in the library")
            return ExitStatus.success
        }
    }

    /// `photodrop favorite ID [--off]`.
    static func favorite(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let asset = try access.asset(context.command.argument("ID") ?? "")
            let wanted = !context.command.flag("off")
            if asset.isFavorite == wanted {
                context.print("Asset \(asset.localIdentifier) is already \(wanted ? "a favourite" : "not a favourite")")
                return ExitStatus.success
            }
            try await access.library.performChanges { try AssetChangeRequest(for: asset).isFavorite = wanted }
            context.print(
                wanted
                    ? "Marked asset \(asset.localIdentifier) as a favourite"
                    : "Removed the favourite mark from asset \(asset.localIdentifier)")
            return ExitStatus.success
        }
    }

    /// `photodrop remove ID --from ALBUM`: the asset leaves the album (title or identifier), not the library.
    static func remove(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let asset = try access.asset(context.command.argument("ID") ?? "")
            let album = try access.album(titleOrIdentifier: context.command.value("from") ?? "")
            guard album.assetCollectionType == .album else {
                throw CommandFailure(
                    "'\(album.title)' is a smart album: its members follow from the assets' properties and cannot be "
                        + "removed by hand (use 'photodrop favorite ID --off' for Favorites, 'photodrop delete ID' to "
                        + "delete)")
            }
            let members = try access.library.albumMemberships(of: [asset])[asset.localIdentifier] ?? []
            guard members.contains(where: { $0.localIdentifier == album.localIdentifier }) else {
                throw CommandFailure(
                    "asset \(asset.localIdentifier) is not in album '\(album.title)' (\(album.localIdentifier)); "
                        + (members.isEmpty
                            ? "it is in no album"
                            : "it is in " + members.map { "'\($0.title)'" }.joined(separator: ", ")))
            }
            try await access.library.performChanges {
                try AssetCollectionChangeRequest(for: album).removeAssets([asset])
            }
            context.print(
                "Removed asset \(asset.localIdentifier) from album '\(album.title)'; it stays in the library")
            return ExitStatus.success
        }
    }

    /// `photodrop delete ID`: the asset moves to Recently Deleted (its original stays until it is purged).
    static func delete(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let asset = try access.asset(context.command.argument("ID") ?? "")
            if asset.isDeleted {
                context.print("Asset \(asset.localIdentifier) is already in Recently Deleted")
                return ExitStatus.success
            }
            try await access.library.performChanges { try AssetChangeRequest.deleteAssets([asset]) }
            context.print("Deleted asset \(asset.localIdentifier) (moved to Recently Deleted)")
            return ExitStatus.success
        }
    }

    /// `photodrop restore ID`: the asset leaves Recently Deleted and is back in its albums.
    static func restore(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let asset = try access.asset(context.command.argument("ID") ?? "")
            guard asset.isDeleted else {
                context.print("Asset \(asset.localIdentifier) is not in Recently Deleted")
                return ExitStatus.success
            }
            try await access.library.performChanges { try AssetChangeRequest.restoreAssets([asset]) }
            let albums = try access.albumTitles(of: [asset])[asset.localIdentifier] ?? []
            context.print(
                "Restored asset \(asset.localIdentifier) from Recently Deleted"
                    + (albums.isEmpty ? "" : " (in \(albums.map { "'\($0)'" }.joined(separator: ", ")))"))
            return ExitStatus.success
        }
    }

    /// A title as stored: NFC; blank titles are refused.
    private static func albumTitle(_ text: String) throws -> String {
        switch AlbumTitle.validated(text) {
        case .success(let title): return title
        case .failure(let problem):
            throw CommandFailure.usage("'\(text)' cannot be an album title: \(problem) (album titles name inbox folders)")
        }
    }

    private static func requireRegular(_ album: AssetCollection, _ action: String) throws {
        guard album.assetCollectionType == .album else {
            throw CommandFailure(
                "'\(album.title)' is a smart album (\(album.localIdentifier)); smart albums are computed and cannot be "
                    + "\(action)d")
        }
    }
}
