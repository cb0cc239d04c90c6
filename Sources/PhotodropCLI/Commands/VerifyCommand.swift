import Foundation
import LibraryJSON
import PhotoCatalog

/// `photodrop verify [--deep] [--json]`: ``PhotoLibrary/verify(deep:)`` printed. Exit status 0 when the library is
/// consistent, 1 when problems were found (or there is no library).
enum VerifyCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
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
