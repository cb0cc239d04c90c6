import FoundationEssentials
import Ingest
import PhotoCatalog
import PhotodropConfiguration
import PhotodropSystem

/// `photodrop migrate --to postgres URL` / `--to sqlite PATH`: copies the configured library's catalog into an empty
/// PostgreSQL database, or out of PostgreSQL into a new SQLite file, and checks the copy row for row
/// (``PhotoCatalog/CatalogCopy``). The library's files stay where they are; config.json is not changed.
enum MigrateCommand {
    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
            let config = context.config
            let access = try LibraryAccess.open(config)
            guard let kind = context.command.value("to"), let argument = context.command.argument("TARGET") else {
                throw CommandFailure.usage(
                    "give where to: photodrop migrate --to postgres 'postgresql:///photodrop?host=/run/postgresql', or "
                        + "photodrop migrate --to sqlite Library/library.sqlite")
            }
            // A daemon writing meanwhile would commit into the source after the snapshot was copied.
            if case .running(let pid) = DaemonLock.inspect(library: config.library, node: config.sharedNode) {
                throw CommandFailure(
                    "a photodrop watch (process \(pid.map(String.init) ?? "?")) is running on this library; stop watch "
                        + "and serve on every node first, so that nothing is committed while the catalog is copied")
            }
            let target: CatalogLocation
            var sqlitePath: String?
            switch kind {
            case "postgres":
                target = .postgres(connectionString: argument, password: try? config.catalog.password())
            default:
                target = .sqlite
                sqlitePath = Path.resolve(argument, against: Path.currentDirectory())
            }
            let report: CatalogCopy.Report
            do {
                report = try CatalogCopy.copy(access.library, to: target, sqlitePath: sqlitePath)
            } catch let error as PhotosError where error.code == .invalidParameter {
                throw CommandFailure.usage(error.message)
            } catch {
                throw CommandFailure("the catalog could not be copied: \(error)")
            }
            var text = ""
            for (table, count) in report.rows { text += "  \(table): \(TextFormat.count(count)) rows\n" }
            let place = sqlitePath.map { "'\($0)'" } ?? target.description
            if report.isExact {
                text = "Copied the catalog of '\(config.library)' into \(place) and checked it: every table has the "
                    + "same rows.\n" + text
                if target.isPostgres {
                    text += "Now set \"catalog\": {\"postgres\": \"\(CatalogLocation.redacted(argument))\"} in "
                        + "\(config.sourceFile ?? "config.json") (and \"node\" on each machine); library.sqlite stays "
                        + "as it was, a copy of the catalog as of now.\n"
                } else {
                    text += "Now remove \"catalog\" from \(config.sourceFile ?? "config.json") and put the file at "
                        + "'\(config.library)/library.sqlite' (with watch and serve stopped).\n"
                }
                context.console.output(text)
                return ExitStatus.success
            }
            text = "The copy in \(place) differs from the source; do not use it:\n" + text
            for difference in report.differences { text += "  - \(difference)\n" }
            context.console.output(text)
            return ExitStatus.failure
        }
    }
}
