import PhotodropSystem
import PhotodropTelemetry

/// What a running `photodrop watch` tells other processes about itself: `<library>/watch.status.json`, rewritten
/// (atomically: a temporary file renamed over it) whenever its problems or counts change, and at least every
/// ``heartbeat`` so that `photodrop status` can tell a wedged daemon from a quiet one. When the library cannot be
/// written (read-only, full), the status goes to `<inbox>/.photodrop/watch.status.json` instead, so that the problem
/// can still be reported; readers take the newer of the two.
public struct DaemonStatus: Sendable, Equatable {
    /// The file's name in the library folder.
    public static let fileName = "watch.status.json"

    /// The status file of `node` on a shared library (`watch-<node>.status.json`), or of the one daemon (`fileName`).
    public static func fileName(node: String?) -> String { node.map { "watch-\($0).status.json" } ?? fileName }
    /// The longest a running daemon leaves its status unwritten.
    static let heartbeat: Duration = .seconds(30)
    /// A status older than this, from a daemon that still holds its lock, means it has stopped working.
    static let staleAfterSeconds: Int64 = 120

    public var pid: Int32
    public var started: UTCTimestamp
    public var updated: UTCTimestamp
    /// Files tracked in the inbox (settling, waiting to be retried, incomplete).
    public var waiting: Int
    /// Claimed files that wait for a partner (a Live Photo's other half, a RAW's JPEG, a sidecar's photo).
    public var waitingForPartner: Int
    public var counts: IngestStatistics.Counts
    public var problems: [HealthProblem]
    /// The inotify watch budget: folders watched, folders polled because the limit was reached, and the limit.
    public var watches: InotifyWatcher.Status?
    /// The configuration file the daemon runs with, absolute; nil when it runs on the built-in defaults (or was
    /// written by a photodrop that did not say).
    public var configFile: String?
    /// Whether the status said which configuration the daemon runs with (``configFile`` nil then means defaults).
    public var saysConfiguration = true

    public init(
        pid: Int32, started: UTCTimestamp, updated: UTCTimestamp, waiting: Int, waitingForPartner: Int = 0,
        counts: IngestStatistics.Counts, problems: [HealthProblem], watches: InotifyWatcher.Status? = nil,
        configFile: String? = nil
    ) {
        self.configFile = configFile
        self.waitingForPartner = waitingForPartner
        self.pid = pid
        self.started = started
        self.updated = updated
        self.waiting = waiting
        self.counts = counts
        self.problems = problems
        self.watches = watches
    }

    /// The JSON text.
    public var json: String {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.member("pid", pid)
        writer.member("started", started.iso8601)
        writer.member("updated", updated.iso8601)
        writer.member("waiting", waiting)
        writer.member("waitingForPartner", waitingForPartner)
        writer.member("stored", counts.imported)
        writer.member("duplicates", counts.duplicates)
        writer.member("rejected", counts.rejected)
        writer.member("failed", counts.failed)
        writer.key("config")
        if let configFile { writer.string(configFile) } else { writer.null() }
        if let watches {
            writer.key("watches")
            writer.beginObject()
            writer.member("folders", watches.watchedFolders)
            writer.member("polled", watches.unwatchedFolders)
            writer.key("maxUserWatches")
            if let limit = watches.maxUserWatches { writer.int(limit) } else { writer.null() }
            writer.member("inboxPresent", watches.inboxPresent)
            if let polled = watches.polledInbox {
                writer.member("inboxPolled", polled)
                writer.member("rescanSeconds", watches.rescanSeconds ?? 0)
            }
            writer.endObject()
        }
        writer.key("problems")
        writer.beginArray()
        for problem in problems { problem.write(to: &writer) }
        writer.endArray()
        writer.endObject()
        return writer.text + "\n"
    }

    /// The newer status of the daemon of `library` (and its `inbox`); nil when there is none or none can be read.
    public static func read(library: String, inbox: String, node: String? = nil) -> DaemonStatus? {
        let name = fileName(node: node)
        let candidates = [read(path: library + "/" + name), read(path: inbox + "/.photodrop/" + name)]
        return candidates.compactMap { $0 }.max { $0.updated < $1.updated }
    }

    static func read(path: String) -> DaemonStatus? {
        guard let file = try? FileSystem.open(path, [.readOnly, .noFollow]),
            let bytes = try? file.readToEnd(limit: 1 << 20, path: path)
        else { return nil }
        guard let value = try? JSONParser.parse(bytes), case .object(let members) = value.kind else { return nil }
        var fields: [String: JSONValue] = [:]
        for member in members { fields[member.key] = member.value }
        func number(_ key: String) -> Int? {
            if case .number(let text)? = fields[key]?.kind { return Int(text) }
            return nil
        }
        func time(_ key: String) -> UTCTimestamp? {
            if case .string(let text)? = fields[key]?.kind { return UTCTimestamp(iso8601: text) }
            return nil
        }
        guard let pid = number("pid"), let started = time("started"), let updated = time("updated") else { return nil }
        var counts = IngestStatistics.Counts()
        counts.photos = number("stored") ?? 0
        counts.duplicates = number("duplicates") ?? 0
        counts.rejected = number("rejected") ?? 0
        counts.failed = number("failed") ?? 0
        var problems: [HealthProblem] = []
        if case .array(let items)? = fields["problems"]?.kind {
            problems = items.compactMap(HealthProblem.init(json:))
        }
        var watches: InotifyWatcher.Status?
        if case .object(let members)? = fields["watches"]?.kind {
            var budget: [String: JSONValue.Kind] = [:]
            for member in members { budget[member.key] = member.value.kind }
            if case .number(let folders)? = budget["folders"], case .number(let polled)? = budget["polled"] {
                var limit: Int?
                if case .number(let text)? = budget["maxUserWatches"] { limit = Int(text) }
                var present = true
                if case .bool(let value)? = budget["inboxPresent"] { present = value }
                watches = InotifyWatcher.Status(
                    watchedFolders: Int(folders) ?? 0, unwatchedFolders: Int(polled) ?? 0, maxUserWatches: limit,
                    inboxPresent: present)
                if case .string(let reason)? = budget["inboxPolled"] {
                    watches?.polledInbox = reason
                    if case .number(let seconds)? = budget["rescanSeconds"] { watches?.rescanSeconds = Int(seconds) }
                }
            }
        }
        var configFile: String?
        if case .string(let text)? = fields["config"]?.kind { configFile = text }
        var status = DaemonStatus(
            pid: Int32(pid), started: started, updated: updated, waiting: number("waiting") ?? 0,
            waitingForPartner: number("waitingForPartner") ?? 0, counts: counts, problems: problems, watches: watches,
            configFile: configFile)
        status.saysConfiguration = fields["config"] != nil
        return status
    }

    /// Writes the status into `folder`: a temporary file, then a rename over the old one.
    func write(into library: Directory, named name: String = DaemonStatus.fileName, mode: UInt32 = 0o640)
        throws(SystemError)
    {
        try library.replaceFile(named: name, with: json, mode: mode)
    }
}
