import FoundationEssentials
import Ingest
import LibraryJSON
import PhotoCatalog

/// `photodrop events [--since TOKEN] [--follow] [--json]`: the library's persistent change history as JSON lines
/// (``CatalogJSON/change(_:)``), oldest first, from the oldest change still kept or from after `TOKEN`.
///
/// `--follow` keeps polling the history (every ``pollInterval``; a poll is one small read transaction) and prints
/// changes of any process as they commit, until SIGINT or SIGTERM (exit 0). Without a library yet, `--follow` waits
/// for one to appear; a plain `events` fails. A malformed token is a usage error (2); a token that is expired or
/// belongs to another library is a failure (1).
enum EventsCommand {
    /// How often `--follow` looks for new changes.
    static let pollInterval: Duration = .milliseconds(200)
    /// Changes read per query, so that a long history never sits in memory at once.
    static let pageSize = 500

    static func run(_ context: CommandContext) async -> Int32 {
        await context.run {
            var since: PersistentChangeToken?
            if let text = context.command.value("since") {
                guard let token = PersistentChangeToken(string: text) else {
                    throw CommandFailure.usage(
                        "'\(text)' is not a change token; tokens look like '<library id>:<number>', as printed in the "
                            + "'token' field of 'photodrop events'")
                }
                since = token
            }
            guard context.command.flag("follow") else {
                let access = try LibraryAccess.open(context.config)
                var token = try since ?? access.library.earliestChangeToken
                while try printChanges(context, access.library, since: &token) == pageSize {}
                return ExitStatus.success
            }
            return try await follow(context, since: since)
        }
    }

    /// Prints one page of changes after `token` and advances it; returns how many were printed.
    private static func printChanges(
        _ context: CommandContext, _ library: PhotoLibrary, since token: inout PersistentChangeToken
    ) throws -> Int {
        let changes: [PersistentChange]
        do {
            changes = try library.fetchPersistentChanges(since: token, limit: pageSize)
        } catch let error as PhotosError where error.code == .persistentChangeTokenExpired {
            throw CommandFailure(
                "the history after \(token) is no longer kept (\(error.message)); run 'photodrop events' without "
                    + "--since to print from the oldest change kept")
        } catch let error as PhotosError where error.code == .persistentChangeDetailsUnavailable {
            throw CommandFailure("\(token) is not a token of this library: \(error.message)")
        }
        var text = ""
        for change in changes {
            text += CatalogJSON.change(change).text
            text += "\n"
            token = change.changeToken
        }
        if !text.isEmpty { context.console.output(text) }
        return changes.count
    }

    /// Polls until a signal arrives.
    private static func follow(_ context: CommandContext, since: PersistentChangeToken?) async throws -> Int32 {
        let signals = UnixSignalSequence(trapping: .interrupt, .terminate)
        return try await withThrowingTaskGroup(of: Int32.self) { group in
            group.addTask {
                for await _ in signals { return ExitStatus.success }
                return ExitStatus.success
            }
            group.addTask {
                if !LibraryAccess.exists(context.config) {
                    context.fail(
                        "there is no library yet at '\(context.config.library)' "
                            + "(\(LibraryAccess.configurationSource(context.config))); waiting for it to be created")
                    while !LibraryAccess.exists(context.config) { try await Task.sleep(for: pollInterval) }
                }
                let access = try LibraryAccess.open(context.config)
                var token = try since ?? access.library.earliestChangeToken
                while true {
                    if try printChanges(context, access.library, since: &token) == pageSize { continue }
                    try await Task.sleep(for: pollInterval)
                }
            }
            defer { group.cancelAll() }
            do {
                return try await group.next() ?? ExitStatus.success
            } catch is CancellationError {
                return ExitStatus.success
            }
        }
    }
}
