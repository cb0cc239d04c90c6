import PhotodropSystem
import PhotodropTelemetry

/// One thing that keeps photodrop from doing its job, as `photodrop status` reports it: the definition of health.
///
/// photodrop is healthy when the list of problems is empty. The codes are stable (`status --json` prints them):
///
/// | code | meaning |
/// |---|---|
/// | `stuckFiles` | files the daemon could not take or store, retried with back-off (unreadable, a read-only folder, a full disk, an I/O error) for at least a minute or three attempts |
/// | `libraryLocked` | another process holds the library's write lock longer than the busy timeout; files wait |
/// | `rejectedUnreadable` | rejected files cannot be moved into the rejected folder (missing permissions, a link, a full disk); they stay in the inbox |
/// | `inboxUnreadable` | folders of the inbox cannot be listed; files in them are not seen |
/// | `untakeableEntries` | entries in the inbox photodrop never takes: symbolic links, FIFOs, sockets |
/// | `watchLimit` | inotify's `max_user_watches` is used up; some folders are only rescanned periodically |
/// | `notWatching` | files wait in the inbox but no `photodrop watch` runs |
/// | `daemonUnresponsive` | a daemon holds the library but has not reported for a while |
/// | `claimsWaiting` | files were claimed from the inbox, but no daemon runs to finish them |
/// | `inboxMissing` | the inbox does not exist |
/// | `libraryReadOnly` | the library is on a read-only file system |
/// | `libraryUnreadable` | the library's database cannot be read |
public struct HealthProblem: Sendable, Hashable {
    /// A stable code (see the type).
    public var code: String
    /// How many files or folders it concerns (1 for conditions).
    public var count: Int
    /// The file or folder that has had the problem longest, relative to the inbox where it is one of its files.
    public var oldestPath: String?
    /// Since when.
    public var since: UTCTimestamp?
    /// What is wrong and what to do.
    public var message: String

    /// Every problem health can report: the stable codes of `status --json` and `/api/status`. docs/troubleshooting.md
    /// has a section for each, which a test checks against this list.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        case stuckFiles, libraryLocked, catalogUnreachable, rejectedUnreadable, inboxUnreadable, untakeableEntries
        case watchLimit, notWatching, daemonUnresponsive, claimsWaiting, inboxMissing, libraryReadOnly
        case libraryUnreadable
    }

    /// A problem with one of the codes of ``Code``.
    public init(
        _ code: Code, count: Int = 1, oldestPath: String? = nil, since: UTCTimestamp? = nil, message: String
    ) {
        self.init(code: code.rawValue, count: count, oldestPath: oldestPath, since: since, message: message)
    }

    /// A problem as read back from a status file (its code as written).
    public init(code: String, count: Int = 1, oldestPath: String? = nil, since: UTCTimestamp? = nil, message: String) {
        self.code = code
        self.count = count
        self.oldestPath = oldestPath
        self.since = since
        self.message = message
    }

    /// The problem as JSON (one object).
    public var json: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    /// Writes the object as the next value of `writer`.
    public func write(to writer: inout JSONWriter) {
        writer.beginObject()
        writer.member("code", code)
        writer.member("count", count)
        writer.member("oldestPath", oldestPath)
        writer.member("since", since?.iso8601)
        writer.member("message", message)
        writer.endObject()
    }

    /// A problem read back from ``json``; nil for anything else.
    public init?(json value: JSONValue) {
        guard case .object(let members) = value.kind else { return nil }
        var fields: [String: JSONValue.Kind] = [:]
        for member in members { fields[member.key] = member.value.kind }
        guard case .string(let code)? = fields["code"], case .string(let message)? = fields["message"],
            case .number(let count)? = fields["count"], let number = Int(count)
        else { return nil }
        var path: String?
        if case .string(let text)? = fields["oldestPath"] { path = text }
        var since: UTCTimestamp?
        if case .string(let text)? = fields["since"] { since = UTCTimestamp(iso8601: text) }
        self.init(code: code, count: number, oldestPath: path, since: since, message: message)
    }
}
