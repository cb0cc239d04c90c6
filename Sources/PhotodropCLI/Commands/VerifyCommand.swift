import FoundationEssentials
import LibraryJSON
import PhotoCatalog
import PhotodropSystem

/// `photodrop verify [--deep] [--library PATH] [--compare] [--json]`: ``PhotoLibrary/verify(deep:readOnly:)`` printed. Exit status
/// 0 when the library is consistent, 1 when problems were found (or there is no library).
enum VerifyCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
            if let path = context.command.value("library") { return try verifyCopy(path, context) }
            if context.command.flag("compare") {
                throw CommandFailure.usage(
                    "--compare compares another copy of the library with the configured one: name it with --library PATH")
            }
            let access = try LibraryAccess.open(context.config)
            let report = try access.library.verify(deep: context.command.flag("deep"))
            if context.command.flag("json") {
                context.print(CatalogJSON.verification(report).text)
            } else {
                context.console.output(describe(report, library: access.path))
            }
            if let note = report.note { context.console.error("photodrop verify: note: \(note)\n") }
            return report.isClean ? ExitStatus.success : ExitStatus.failure
        }
    }

    /// `verify --library PATH`: a backup or a library folder other than the configured one, checked without writing
    /// anything into it (no damage recorded, no upgrade, no lock, no library created).
    private static func verifyCopy(_ argument: String, _ context: CommandContext) throws -> Int32 {
        let (path, note) = try resolveCopy(Path.resolve(argument, against: Path.currentDirectory()))
        let library = PhotoLibrary(url: URL(fileURLWithPath: path))
        let report: VerificationReport
        do {
            report = try library.verify(deep: context.command.flag("deep"), readOnly: true)
        } catch {
            throw CommandFailure("cannot check '\(path)': \(error)")
        }
        var comparison: CatalogCopy.Report?
        if context.command.flag("compare") {
            let access = try LibraryAccess.open(context.config)
            let own = Path.join(path, PhotoLibrary.databaseName)
            do {
                comparison = try CatalogCopy.compare(
                    access.library, with: .sqlite, sqlitePath: own)
            } catch {
                throw CommandFailure("cannot compare '\(own)' with the configured catalog: \(error)")
            }
        }
        if context.command.flag("json") {
            var members = [("library", JSONNode.string(path))] + CatalogJSON.verification(report).members
            if let comparison {
                members.append(
                    ("comparison",
                     .object([
                        ("same", .bool(comparison.isExact)),
                        ("differences", .strings(comparison.differences)),
                     ])))
            }
            context.print(JSONNode.object(members).text)
        } else {
            var text = (note.map { $0 + "\n" } ?? "") + describe(report, library: path)
            if let comparison {
                let configured = context.config.catalog.isPostgres ? "the PostgreSQL catalog" : "the configured catalog"
                text +=
                    comparison.isExact
                    ? "Compared with \(configured): every table has the same rows "
                        + "(\(comparison.rows.map { "\($0.table): \($0.count)" }.joined(separator: ", "))).\n"
                    : "Compared with \(configured): they differ: \(comparison.differences.joined(separator: "; ")).\n"
            }
            context.console.output(text)
        }
        return report.isClean && comparison?.isExact != false ? ExitStatus.success : ExitStatus.failure
    }

    /// The library folder to check for `--library PATH`: PATH itself when it holds a catalog, else the newest complete
    /// backup in it (with a line saying so).
    static func resolveCopy(_ path: String) throws(CommandFailure) -> (String, String?) {
        if FileSystem.exists(atPath: Path.join(path, PhotoLibrary.databaseName)) { return (path, nil) }
        guard FileSystem.exists(atPath: path) else {
            throw CommandFailure(
                "'\(path)' does not exist; give a backup folder (photodrop backup DEST) or a library folder")
        }
        let backups = (try? BackupFolder.backups(in: path)) ?? []
        guard !backups.isEmpty else {
            throw CommandFailure(
                "'\(path)' holds neither a library (no \(PhotoLibrary.databaseName)) nor backups made by "
                    + "'photodrop backup'; give a backup folder or a library folder")
        }
        guard let newest = backups.last(where: \.isComplete) else {
            throw CommandFailure(
                "'\(path)' holds only incomplete backups (\(backups.map(\.name).joined(separator: ", "))); check one "
                    + "by naming it: photodrop verify --library \(Path.join(path, backups.last!.name))")
        }
        let chosen = Path.join(path, newest.name)
        let count = backups.filter(\.isComplete).count
        let note = "Backup \(newest.name), the newest of \(TextFormat.plural(count, "complete backup")) in \(path)."
        return (chosen, note)
    }

    static func describe(_ report: VerificationReport, library: String) -> String {
        var text =
            "Checked \(TextFormat.plural(report.assetCount, "asset")), "
            + "\(TextFormat.plural(report.originalCount, "original")) and "
            + "\(TextFormat.plural(report.filesOnDisk, "file")) under \(library)/originals.\n"
        if report.isDeep {
            text += "Deep check: re-hashed \(TextFormat.bytes(report.hashedBytes)) (SHA-256), SQLite integrity_check.\n"
        } else {
            text += "Quick check: sizes and SQLite's quick_check ('--deep' also re-hashes every original).\n"
        }
        if report.changesInFlight > 0 {
            text +=
                "\(TextFormat.plural(report.changesInFlight, "file")) being placed by a running writer "
                + "(not checked).\n"
        }
        guard !report.isClean else { return text + "No problems found.\n" }
        var counts: [VerificationIssue.Kind: Int] = [:]
        for issue in report.issues { counts[issue.kind, default: 0] += 1 }
        let summary = VerificationIssue.Kind.allCases.compactMap { kind in
            counts[kind].map { "\($0) \(kind.rawValue)" }
        }
        text += "\(TextFormat.plural(report.issues.count, "problem")) (\(summary.joined(separator: ", "))):\n"
        for issue in report.issues {
            text += "  \(issue.kind.rawValue): \(issue.message)\n"
        }
        return text
    }
}
