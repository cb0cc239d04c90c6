import FoundationEssentials
import Ingest
import LibraryJSON
import PhotoCatalog
import PhotodropSystem
import PhotodropConfiguration

/// `photodrop backup DEST [--json]`: one consistent, verified, incremental backup of the library into the folder DEST
/// (``PhotoCatalog/LibraryBackup``), beside a running daemon. Exit status 0 when the backup is complete, 1 when it is
/// not (it keeps its `.incomplete` name and the problems say what to do), 2 when DEST lies in the library, the inbox
/// or the rejected folder.
enum BackupCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
            let access = try LibraryAccess.open(context.config)
            guard let argument = context.command.argument("DEST") else {
                throw CommandFailure.usage("give the backup folder: photodrop backup DEST")
            }
            let destination = Path.resolve(argument, against: Path.currentDirectory())
            try refuseInside(destination, context.config)
            let report: BackupReport
            do {
                report = try LibraryBackup(library: access.library, destination: destination).run()
            } catch let error as PhotosError where error.code == .invalidParameter {
                throw CommandFailure.usage(error.message)
            } catch {
                throw CommandFailure("the backup to '\(destination)' failed: \(error)")
            }
            if context.command.flag("json") {
                context.print(CatalogJSON.backup(report).text)
            } else {
                context.console.output(describe(report))
            }
            return report.isComplete ? ExitStatus.success : ExitStatus.failure
        }
    }

    /// DEST must not be (or lie inside) the library, the inbox or the rejected folder: a backup there would be taken
    /// for photos to ingest, reported as orphans, or be lost with the library's own disk.
    static func refuseInside(_ destination: String, _ config: IngestConfig) throws(CommandFailure) {
        let physical = Path.physical(destination)
        let folders = [("library", config.library), ("inbox", config.inbox), ("rejected folder", config.rejected)]
        for (role, folder) in folders where Path.isSameOrBelow(physical, Path.physical(folder)) {
            throw CommandFailure.usage(
                "the backup folder '\(destination)' is inside the \(role) '\(folder)' "
                    + "(\(LibraryAccess.configurationSource(config))); choose a folder outside the library, inbox and "
                    + "rejected folders, ideally on another disk")
        }
    }

    static func describe(_ report: BackupReport) -> String {
        let files = report.originalCount + report.derivativeCount
        var text =
            "\(report.isComplete ? "Backed up" : "Incomplete backup of") \(TextFormat.plural(report.assetCount, "asset")) "
            + "(\(TextFormat.plural(report.originalCount, "original")), "
            + "\(TextFormat.plural(report.derivativeCount, "thumbnail or preview", "thumbnails and previews"))) to "
            + "\(report.path) in \(NumberText.fixed(report.seconds, places: 1)) s.\n"
        if let previous = report.previousPath {
            text +=
                "Linked \(TextFormat.plural(report.linkedFiles, "unchanged file")) "
                + "(\(TextFormat.bytes(report.linkedBytes))) from \(previous); "
        } else {
            text += "No earlier complete backup to link from; "
        }
        text +=
            "copied \(TextFormat.plural(report.copiedFiles, "file")) (\(TextFormat.bytes(report.copiedBytes))) and "
            + "the catalog (\(TextFormat.bytes(report.databaseBytes))).\n"
        if report.derivativesLeftOut > 0 {
            text +=
                "\(TextFormat.plural(report.derivativesLeftOut, "thumbnail or preview", "thumbnails and previews")) "
                + "changed in the library during the backup and were left out ('photodrop thumbnails' makes them "
                + "again after a restore).\n"
        }
        if let verification = report.verification {
            text +=
                "Verified: \(TextFormat.plural(files, "file")) present with their sizes, the "
                + "\(TextFormat.plural(report.copiedFiles, "copied file")) read back with their SHA-256, SQLite "
                + "integrity_check; \(verification.isClean && report.problems.isEmpty ? "no problems" : "problems below").\n"
        }
        if report.isComplete { return text }
        var problems = report.problems.map { "  \($0.kind.rawValue): \($0.message)\n" }
        problems += (report.verification?.issues ?? []).map { "  \($0.kind.rawValue): \($0.message)\n" }
        text += "\(TextFormat.plural(problems.count, "problem")):\n" + problems.joined()
        text +=
            "The backup keeps the name \(Path.lastComponent(of: report.path)) and is never linked from; delete it "
            + "once a later backup is complete.\n"
        return text
    }
}
