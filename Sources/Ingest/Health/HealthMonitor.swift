import Synchronization
import PhotodropTelemetry
import PhotodropConfiguration

/// What the watch daemon knows about its own health: the ``HealthProblem``s it reports through its status file
/// (``DaemonStatus``) to `photodrop status`.
///
/// The watch loop tells it about files that failed and were put back (and files that finally made it), the
/// committer about a database held by another process, the watcher about the watch limit, the scans about folders
/// they cannot read. Bounded: at most ``trackedPaths`` paths per kind are remembered; counts stay exact.
public final class HealthMonitor: Sendable {
    /// What kind of failure put a file back into the inbox.
    public enum FailureKind: Sendable, Hashable {
        /// The file could not be read or moved, or the library not written (I/O, permissions, a full disk).
        case file
        /// Another process holds the library's write lock longer than the busy timeout.
        case databaseBusy
        /// The file was rejected, but could not be moved into the rejected folder.
        case quarantine
        /// The PostgreSQL catalog could not be reached (down, restarting, the network away).
        case catalogUnreachable
    }

    private struct Failure {
        var since: UTCTimestamp
        var attempts: Int
        var message: String
        var kind: FailureKind
    }

    private struct State {
        var failures: [String: Failure] = [:]
        var failureCount: [FailureKind: Int] = [:]
        var busySince: UTCTimestamp?
        var busyMessage = ""
        var unreachableSince: UTCTimestamp?
        var unreachableMessage = ""
        var unreadableFolders: [String: (since: UTCTimestamp, message: String)] = [:]
        var watchLimit: (since: UTCTimestamp, unwatched: Int)?
    }

    /// The most paths remembered per kind.
    static let trackedPaths = 10_000
    /// A file counts as stuck once it failed this often, or for this long.
    static let stuckAttempts = 3
    static let stuckSeconds: Int64 = 60

    private let state = Mutex(State())
    private let waitingFiles = Atomic<Int>(0)
    private let oldestWaiting = Mutex<Duration?>(nil)
    private let partnerWaits = Atomic<Int>(0)
    private let revision = Atomic<Int>(0)

    public init() {}

    /// Files the watch loop tracks in the inbox now.
    /// How long the file waiting longest has waited (nil: none waits), as the watch loop last looked.
    var oldestWaitingAge: Duration? { oldestWaiting.withLock { $0 } }

    /// Sets ``oldestWaitingAge``.
    func setOldestWaitingAge(_ age: Duration?) { oldestWaiting.withLock { $0 = age } }

    public var waiting: Int { waitingFiles.load(ordering: .relaxed) }

    /// Sets ``waiting``.
    func setWaiting(_ count: Int) {
        if waitingFiles.exchange(count, ordering: .relaxed) != count { revision.add(1, ordering: .relaxed) }
    }

    /// Claimed files that wait for a partner in the committer now.
    public var waitingForPartner: Int { partnerWaits.load(ordering: .relaxed) }

    /// Sets ``waitingForPartner``.
    func setWaitingForPartner(_ count: Int) {
        if partnerWaits.exchange(count, ordering: .relaxed) != count { revision.add(1, ordering: .relaxed) }
    }

    /// Changes whenever something reported here changed (for writing the status only when needed).
    var changeCount: Int { revision.load(ordering: .relaxed) }

    /// `path` (relative to the inbox) was put back after a failure of `kind`.
    func fileFailed(_ path: String, kind: FailureKind, message: String, at now: UTCTimestamp = .now()) {
        revision.add(1, ordering: .relaxed)
        state.withLock { state in
            if var failure = state.failures[path] {
                failure.attempts += 1
                failure.message = message
                if failure.kind != kind {
                    state.failureCount[failure.kind, default: 1] -= 1
                    state.failureCount[kind, default: 0] += 1
                    failure.kind = kind
                }
                state.failures[path] = failure
            } else if state.failures.count < HealthMonitor.trackedPaths {
                state.failures[path] = Failure(since: now, attempts: 1, message: message, kind: kind)
                state.failureCount[kind, default: 0] += 1
            }
            if kind == .databaseBusy && state.busySince == nil {
                state.busySince = now
                state.busyMessage = message
            }
            if kind == .catalogUnreachable {
                if state.unreachableSince == nil { state.unreachableSince = now }
                state.unreachableMessage = message
            }
        }
    }

    /// `path` reached an outcome (stored, duplicate, rejected): whatever failed before is over.
    func fileFinished(_ path: String) {
        state.withLock { state in
            if let failure = state.failures.removeValue(forKey: path) {
                revision.add(1, ordering: .relaxed)
                state.failureCount[failure.kind, default: 1] -= 1
            }
        }
    }

    /// A write to the library succeeded: it is not held by another process (any more).
    func libraryWritable() {
        state.withLock { state in
            guard state.busySince != nil || state.unreachableSince != nil else { return }
            state.busySince = nil
            state.unreachableSince = nil
            revision.add(1, ordering: .relaxed)
        }
    }

    /// The folder at `path` (relative to the inbox) cannot be listed.
    func folderUnreadable(_ path: String, message: String, at now: UTCTimestamp = .now()) {
        state.withLock { state in
            guard state.unreadableFolders[path] == nil, state.unreadableFolders.count < HealthMonitor.trackedPaths
            else { return }
            state.unreadableFolders[path] = (now, message)
            revision.add(1, ordering: .relaxed)
        }
    }

    /// A rescan read the whole inbox: folders it could not read are reported again then.
    func scanCompleted() {
        state.withLock { $0.unreadableFolders.removeAll() }
        revision.add(1, ordering: .relaxed)
    }

    /// inotify's watch limit is used up (`unwatched` folders rescanned instead), or no longer (`0`).
    func watchLimit(unwatched: Int, at now: UTCTimestamp = .now()) {
        revision.add(1, ordering: .relaxed)
        state.withLock { state in
            if unwatched == 0 {
                state.watchLimit = nil
            } else {
                state.watchLimit = (state.watchLimit?.since ?? now, unwatched)
            }
        }
    }

    /// The problems now.
    public func problems(at now: UTCTimestamp = .now()) -> [HealthProblem] {
        state.withLock { state in
            var problems: [HealthProblem] = []
            let stuck = state.failures.filter { entry in
                entry.value.kind != .quarantine
                    && (entry.value.attempts >= HealthMonitor.stuckAttempts
                        || now.seconds - entry.value.since.seconds >= HealthMonitor.stuckSeconds)
            }
            if let oldest = stuck.min(by: { $0.value.since < $1.value.since }) {
                problems.append(
                    HealthProblem(
                        .stuckFiles, count: stuck.count, oldestPath: oldest.key, since: oldest.value.since,
                        message: "\(stuck.count) file\(stuck.count == 1 ? "" : "s") cannot be taken or stored and "
                            + "\(stuck.count == 1 ? "is" : "are") retried with back-off; the oldest: "
                            + oldest.value.message))
            }
            if let since = state.busySince {
                problems.append(
                    HealthProblem(
                        .libraryLocked, count: state.failureCount[.databaseBusy] ?? 0, since: since,
                        message: "another process holds the library's write lock longer than photodrop waits ("
                            + state.busyMessage + "); files wait in the inbox. Find it with 'fuser "
                            + "library.sqlite' and end its transaction"))
            }
            if let since = state.unreachableSince {
                problems.append(
                    HealthProblem(
                        .catalogUnreachable, count: state.failureCount[.catalogUnreachable] ?? 0, since: since,
                        message: "the PostgreSQL catalog cannot be reached (" + state.unreachableMessage + "); files "
                            + "wait in the inbox and are retried, and photodrop reconnects by itself. Check the server "
                            + "and \"catalog.postgres\""))
            }
            let quarantine = state.failures.filter { $0.value.kind == .quarantine }
            if let oldest = quarantine.min(by: { $0.value.since < $1.value.since }) {
                problems.append(
                    HealthProblem(
                        .rejectedUnreadable, count: quarantine.count, oldestPath: oldest.key,
                        since: oldest.value.since,
                        message: "rejected files cannot be moved into the rejected folder and stay in the inbox: "
                            + oldest.value.message))
            }
            if let oldest = state.unreadableFolders.min(by: { $0.value.since < $1.value.since }) {
                problems.append(
                    HealthProblem(
                        .inboxUnreadable, count: state.unreadableFolders.count, oldestPath: oldest.key,
                        since: oldest.value.since,
                        message: "inbox folders cannot be listed, so files in them are not seen: " + oldest.value.message))
            }
            if let limit = state.watchLimit {
                problems.append(
                    HealthProblem(
                        .watchLimit, count: limit.unwatched, since: limit.since,
                        message: "inotify's watch limit (fs.inotify.max_user_watches) is used up: \(limit.unwatched) "
                            + "folder\(limit.unwatched == 1 ? " is" : "s are") only rescanned periodically. Raise it, "
                            + "e.g. sysctl -w fs.inotify.max_user_watches=524288"))
            }
            return problems
        }
    }
}
