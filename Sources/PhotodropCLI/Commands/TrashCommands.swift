import FoundationEssentials
import Ingest
import LibraryJSON
import PhotoCatalog

/// `photodrop trash [list]` and `photodrop trash empty [--older-than DAYS]`: Recently Deleted, listed and emptied.
enum TrashCommands {
    /// `photodrop trash [list] [--json]`.
    static func list(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            let assets = try access.library.recentlyDeletedAssets()
            let titles = try access.albumTitles(of: assets)
            let retention = context.config.trashRetention
            func purgeDate(_ asset: Asset) -> Date? {
                guard let retention, let deleted = asset.deletedDate else { return nil }
                return deleted.addingTimeInterval(Double(retention.components.seconds))
            }
            if context.command.flag("json") {
                for asset in assets {
                    guard case .object(var members) = CatalogJSON.asset(asset, albums: titles[asset.localIdentifier] ?? [])
                    else { continue }
                    members.append(("purgeDate", CatalogJSON.date(purgeDate(asset))))
                    context.print(JSONNode.object(members).text)
                }
                return ExitStatus.success
            }
            guard !assets.isEmpty else {
                context.print("Recently Deleted is empty.")
                return ExitStatus.success
            }
            var table = TextTable(
                ["ID", "KIND", "DELETED (UTC)", "PURGED (UTC)", "SIZE", "NAME", "ALBUMS"],
                alignments: [.left, .left, .left, .left, .right, .left, .left])
            for asset in assets {
                table.append([
                    TextFormat.shortIdentifier(asset.localIdentifier), asset.kind,
                    TextFormat.shortDate(asset.deletedDate), purgeDate(asset).map(TextFormat.shortDate) ?? "never",
                    TextFormat.bytesForColumn(asset.byteCount), asset.originalFilename ?? "-",
                    (titles[asset.localIdentifier] ?? []).joined(separator: ", "),
                ])
            }
            context.console.output(table.render())
            let bytes = assets.reduce(Int64(0)) { $0 + $1.byteCount }
            context.print(
                "\(TextFormat.plural(assets.count, "asset")) (\(TextFormat.bytes(bytes))) in Recently Deleted; "
                    + "'photodrop restore ID' brings one back, 'photodrop trash empty' purges them")
            return ExitStatus.success
        }
    }

    /// `photodrop trash empty [--older-than DAYS] [--json]`.
    static func empty(_ context: CommandContext) async -> Int32 {
        await context.run {
            var cutoff: Date?
            var days: Int?
            if let text = context.command.value("older-than") {
                guard let number = Int(text), (0...36_500).contains(number) else {
                    throw CommandFailure.usage("--older-than takes a number of days from 0 to 36500, not '\(text)'")
                }
                days = number
                cutoff = Date().addingTimeInterval(-Double(number) * 86_400)
            }
            let access = try LibraryAccess.open(context.config)
            let purged = try await access.library.purgeRecentlyDeleted(deletedBefore: cutoff)
            if context.command.flag("json") {
                context.print(JSONNode.object([("purged", .int(Int64(purged)))]).text)
                return ExitStatus.success
            }
            let which = days.map { " deleted more than \(TextFormat.plural($0, "day")) ago" } ?? ""
            context.print(
                purged == 0
                    ? "Nothing to purge: no asset in Recently Deleted\(which)"
                    : "Purged \(TextFormat.plural(purged, "asset"))\(which) from Recently Deleted, with \(purged == 1 ? "its original" : "their originals")")
            return ExitStatus.success
        }
    }
}
