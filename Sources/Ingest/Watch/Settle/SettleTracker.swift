import PhotodropSystem
import PhotodropConcurrency
import PhotodropConfiguration

/// Decides when a file in the inbox is finished, as a pure state machine: events and looks in, decisions out.
///
/// The tracker does no I/O and reads no clock: every call takes `now`, and the caller feeds it what it saw
/// (``FileLook/take(atPath:)``). That keeps the rules testable with a mock clock and no sleeping.
///
/// The rules (the README's "Watching the inbox" tells users the same):
/// - Temp and hidden names (``IgnoreRules``) are never tracked: the watcher and the scanner drop them before they
///   get here, so the rules run once per entry.
/// - Every change event (close, rename, create, modify, attrib) (re)arms a deadline `settle` after it; a file is
///   looked at only when that deadline passes without further events. `CLOSE_WRITE` is never "done": a writer that
///   appends in open/close cycles re-arms it with every cycle.
/// - At the deadline the caller looks at the file. Gone → forgotten. Still open for writing → look again later.
///   Changed since the previous look (which only exists when a look was not final) → wait again. Otherwise ready.
/// - A file found by polling a folder without a watch (no events can tell about writes) needs two equal looks
///   `settle` apart; the first is due at once. A file found by listing a watched folder needs one look, like events.
/// - With `settle == 0` a file is ready after one look that finds no writer: no added latency.
/// - A file the probe found truncated waits in ``markIncomplete(path:identity:at:)`` until it has been quiet for
///   `incompleteGrace`; then, if unchanged, ``Decision/incompleteExpired(_:)`` lets the caller reject it. Any new
///   event restarts the whole settle.
/// - Once a file is ready the tracker forgets it; events for an unknown path that say "gone" are harmless, so
///   photodrop's own renames out of the inbox cannot confuse it.
///
/// Memory: one entry per file currently waiting, plus at most one live heap item per entry.
struct SettleTracker<Instant: InstantProtocol & Sendable>: Sendable where Instant.Duration == Duration {
    /// What a due check is for.
    public enum Purpose: Sendable, Hashable {
        /// The quiet period after the last event ended.
        case settle
        /// The incomplete-file grace period ended.
        case incompleteGrace
        /// A failed attempt's back-off ended.
        case retry
        /// The time left to another node of a shared inbox to take the file ended (``yield(path:identity:at:until:)``).
        case yield
    }

    /// A request to look at one file now; pass it back to ``inspect(_:_:at:)`` with what the look found.
    public struct Check: Sendable, Hashable {
        public let path: String
        public let purpose: Purpose
        let instance: UInt64
        let generation: UInt64
    }

    /// What happened to an event.
    public enum Observation: Sendable, Hashable {
        /// A look is due at this instant (unless more events come).
        case scheduled(at: Instant)
        /// A listing or poll found a file that is already being tracked; nothing changed.
        case alreadyTracked
    }

    /// Why the tracker dropped a file.
    public enum ForgetReason: Sendable, Hashable {
        case missing
        case notRegularFile
        case unreadable(SystemError)
    }

    /// What to do with a file after a look.
    public enum Decision: Sendable, Hashable {
        /// Finished: take it. The identity is what the look saw; the claim should find the same.
        case ready(FileIdentity)
        /// Not yet: the next check is due at this instant.
        case wait(until: Instant)
        /// The file is gone, not a regular file, or unreadable; it is no longer tracked.
        case forgotten(ForgetReason)
        /// The grace period of a truncated file ended and it did not change: reject it as `corrupt`.
        case incompleteExpired(FileIdentity)
        /// An event arrived after the check was handed out (or the file was forgotten); ignore this look.
        case superseded
    }

    /// Where a tracked file stands; for status output and tests.
    public enum Phase: Sendable, Hashable {
        case settling
        case checking(Purpose)
        case incomplete(FileIdentity)
        case retrying
        case yielding
    }

    private struct Entry: Sendable {
        var instance: UInt64
        var generation: UInt64 = 0
        var phase: Phase = .settling
        var deadline: Instant
        var queuedAt: Instant?
        var queueToken: UInt64 = 0
        var lastLook: FileIdentity?
        var needsConfirmation: Bool
        /// When the tracker began tracking the file (this time).
        var firstSeen: Instant
    }

    /// Quiet time required after the last event.
    public let settle: Duration
    /// Quiet time a truncated file gets before it may be rejected.
    public let incompleteGrace: Duration
    /// How soon a file with an open writer is looked at again (at least one second, so that `settle == 0` does not
    /// spin; a writer's `CLOSE_WRITE` re-arms it earlier anyway).
    var writerRecheckInterval: Duration { max(settle, .seconds(1)) }

    private var entries: [String: Entry] = [:]
    private var heap = DeadlineHeap<Instant>()
    private var nextInstance: UInt64 = 1
    private var nextToken: UInt64 = 1

    public init(settle: Duration, incompleteGrace: Duration) {
        self.settle = max(settle, .zero)
        self.incompleteGrace = max(incompleteGrace, .zero)
    }

    /// A tracker with `settleMilliseconds` and `incompleteGraceSeconds` from the configuration.
    public init(config: IngestConfig) {
        self.init(settle: config.settle, incompleteGrace: config.incompleteGrace)
    }

    /// Files currently tracked.
    public var count: Int { entries.count }

    /// When the file tracked longest was first seen (nil when none is): a look at every entry, for metrics.
    var oldestFirstSeen: Instant? { entries.values.lazy.map(\.firstSeen).min() }

    /// Where `path` stands, or nil when it is not tracked.
    public func phase(of path: String) -> Phase? { entries[path]?.phase }

    /// Heap items, live and stale; for tests that check memory stays bounded under event storms.
    var scheduledItemCount: Int { heap.count }

    /// The earliest instant a check may be due; may be early (a superseded deadline), never late. Nil when idle.
    var nextDeadline: Instant? { heap.first?.deadline }

    // MARK: - Events

    /// Records an event or a sighting of the file at `path` (relative to the inbox). Names the ignore rules exclude
    /// never get here: the watcher and the scanner apply the rules once, where they list or hear about an entry.
    public mutating func observe(_ activity: FileActivity, path: String, at now: Instant) -> Observation {
        if var entry = entries[path] {
            guard activity.isChange else { return .alreadyTracked }
            entry.generation += 1
            entry.lastLook = nil
            entry.needsConfirmation = false
            entry.phase = .settling
            schedule(&entry, path: path, at: now.advanced(by: settle))
            entries[path] = entry
            return .scheduled(at: entry.deadline)
        }
        let polled = activity == .polled
        var entry = Entry(instance: nextInstance, deadline: now, needsConfirmation: polled && settle > .zero, firstSeen: now)
        nextInstance += 1
        schedule(&entry, path: path, at: polled ? now : now.advanced(by: settle))
        entries[path] = entry
        return .scheduled(at: entry.deadline)
    }

    /// Stops tracking `path` (`IN_DELETE`, `IN_MOVED_FROM`, or the pipeline took it). Returns whether it was tracked.
    @discardableResult
    public mutating func forget(path: String) -> Bool {
        entries.removeValue(forKey: path) != nil
    }

    /// Stops tracking everything below the folder `directory` (relative; `""` is the whole inbox).
    @discardableResult
    mutating func forgetAll(under directory: String) -> Int {
        if directory.isEmpty {
            let count = entries.count
            entries.removeAll()
            heap.removeAll()
            return count
        }
        let prefix = directory.hasSuffix("/") ? directory : directory + "/"
        let doomed = entries.keys.filter { $0.hasPrefix(prefix) }
        for path in doomed { entries.removeValue(forKey: path) }
        return doomed.count
    }

    // MARK: - Checks

    /// The files whose deadline has passed at `now`; look at each and pass the result to ``inspect(_:_:at:)``.
    mutating func dueChecks(at now: Instant) -> [Check] {
        var checks: [Check] = []
        while let top = heap.first, top.deadline <= now {
            _ = heap.popFirst()
            guard var entry = entries[top.path], entry.instance == top.instance, entry.queueToken == top.token else {
                continue  // forgotten, replaced or re-queued earlier: a stale item
            }
            entry.queuedAt = nil
            if entry.deadline > now {
                schedule(&entry, path: top.path, at: entry.deadline)
                entries[top.path] = entry
                continue
            }
            let purpose: Purpose
            switch entry.phase {
            case .settling: purpose = .settle
            case .incomplete: purpose = .incompleteGrace
            case .retrying: purpose = .retry
            case .yielding: purpose = .yield
            case .checking: continue  // cannot be queued while checking
            }
            entry.phase = .checking(purpose)
            entries[top.path] = entry
            checks.append(
                Check(path: top.path, purpose: purpose, instance: entry.instance, generation: entry.generation))
        }
        return checks
    }

    /// Decides about a due file from what a look at it found.
    public mutating func inspect(_ check: Check, _ outcome: FileLook.Outcome, at now: Instant) -> Decision {
        guard var entry = entries[check.path], entry.instance == check.instance, entry.generation == check.generation,
            case .checking(let purpose) = entry.phase
        else { return .superseded }
        let look: FileLook
        switch outcome {
        case .file(let found): look = found
        case .missing:
            entries.removeValue(forKey: check.path)
            return .forgotten(.missing)
        case .notRegularFile:
            entries.removeValue(forKey: check.path)
            return .forgotten(.notRegularFile)
        case .failed(let error):
            entries.removeValue(forKey: check.path)
            return .forgotten(.unreadable(error))
        }
        // While incomplete, `lastLook` holds the identity the probe saw (set by `markIncomplete`).
        let probedIdentity = purpose == .incompleteGrace ? entry.lastLook : nil

        if look.writers == .open {
            entry.lastLook = look.identity
            entry.phase = .settling
            return wait(&entry, path: check.path, until: now.advanced(by: writerRecheckInterval))
        }
        switch purpose {
        case .settle:
            if entry.needsConfirmation {
                guard entry.lastLook == look.identity else {
                    entry.lastLook = look.identity
                    entry.phase = .settling
                    return wait(&entry, path: check.path, until: now.advanced(by: settle))
                }
            } else if let last = entry.lastLook, last != look.identity, settle > .zero {
                // Changed without an event telling us (an mmap write, a folder without a watch): quiet again first.
                entry.lastLook = look.identity
                entry.phase = .settling
                return wait(&entry, path: check.path, until: now.advanced(by: settle))
            }
            entries.removeValue(forKey: check.path)
            return .ready(look.identity)
        case .incompleteGrace:
            if look.identity == probedIdentity {
                entries.removeValue(forKey: check.path)
                return .incompleteExpired(look.identity)
            }
            // It grew or was replaced without an event (or the event was missed): an upload resumed. Settle again,
            // and since no event vouches for the quiet time, the next look must match this one.
            entry.lastLook = look.identity
            entry.needsConfirmation = true
            entry.phase = .settling
            return wait(&entry, path: check.path, until: now.advanced(by: settle))
        case .retry:
            entries.removeValue(forKey: check.path)
            return .ready(look.identity)
        case .yield:
            // Left unlooked (``yield(_:until:)``): this look is the settle check. Left after a look: it must not
            // have changed since.
            if entry.lastLook == nil || look.identity == entry.lastLook {
                entries.removeValue(forKey: check.path)
                return .ready(look.identity)
            }
            // Changed while it was left to another node, without an event telling us: settle again, and since no
            // event vouches for the quiet time, the next look must match this one.
            entry.lastLook = look.identity
            entry.needsConfirmation = true
            entry.phase = .settling
            return wait(&entry, path: check.path, until: now.advanced(by: settle))
        }
    }

    // MARK: - After the probe

    /// Keeps a file that probed as truncated until it has been quiet for `incompleteGrace` from `now`.
    ///
    /// Returns the instant the grace check will be due, or nil when the file got new events since it was handed out
    /// (it is settling again and will be ready again; the caller does nothing).
    @discardableResult
    mutating func markIncomplete(path: String, identity: FileIdentity, at now: Instant) -> Instant? {
        guard entries[path] == nil else { return nil }
        var entry = Entry(instance: nextInstance, deadline: now, needsConfirmation: false, firstSeen: now)
        nextInstance += 1
        entry.phase = .incomplete(identity)
        entry.lastLook = identity
        schedule(&entry, path: path, at: now.advanced(by: incompleteGrace))
        entries[path] = entry
        return entry.deadline
    }

    /// Leaves a file whose settle check is due (`check`) to another node sharing the inbox until `deadline`, without a
    /// look: its quiet period passed without an event, so the look at the end is its settle check (and a file gone by
    /// then was never looked at at all). Returns false, and the caller looks at the file as usual, when the check is
    /// stale or is not a settle check, or when the file needs two equal looks (found by polling, where no event
    /// vouches for the quiet time); such a file can be left after its look (``yield(path:identity:at:until:)``).
    mutating func yield(_ check: Check, until deadline: Instant) -> Bool {
        guard var entry = entries[check.path], entry.instance == check.instance, entry.generation == check.generation,
            entry.phase == .checking(.settle), !entry.needsConfirmation
        else { return false }
        entry.phase = .yielding
        schedule(&entry, path: check.path, at: deadline)
        entries[check.path] = entry
        return true
    }

    /// Leaves a file that was ready (``Decision/ready(_:)``, with `identity`) to another node sharing the inbox until
    /// `deadline`: the check then due (``Purpose/yield``) finds it gone (that node took it) or, when the file is
    /// unchanged, ready again, and this node takes it after all. Returns false when the file got new events meanwhile
    /// (it is settling again anyway).
    @discardableResult
    mutating func yield(path: String, identity: FileIdentity, at now: Instant, until deadline: Instant) -> Bool {
        guard entries[path] == nil else { return false }
        var entry = Entry(instance: nextInstance, deadline: deadline, needsConfirmation: false, firstSeen: now)
        nextInstance += 1
        entry.phase = .yielding
        entry.lastLook = identity
        schedule(&entry, path: path, at: deadline)
        entries[path] = entry
        return true
    }

    /// Tries a file again at `deadline` after a failed attempt (I/O or database error; the caller picks the
    /// back-off). Returns false when the file got new events meanwhile (it is settling again anyway).
    @discardableResult
    public mutating func retry(path: String, at deadline: Instant) -> Bool {
        guard entries[path] == nil else { return false }
        var entry = Entry(instance: nextInstance, deadline: deadline, needsConfirmation: false, firstSeen: deadline)
        nextInstance += 1
        entry.phase = .retrying
        schedule(&entry, path: path, at: deadline)
        entries[path] = entry
        return true
    }

    // MARK: - Internals

    private mutating func wait(_ entry: inout Entry, path: String, until deadline: Instant) -> Decision {
        schedule(&entry, path: path, at: deadline)
        entries[path] = entry
        return .wait(until: deadline)
    }

    /// Sets the entry's deadline and makes sure a heap item fires no later than it.
    private mutating func schedule(_ entry: inout Entry, path: String, at deadline: Instant) {
        entry.deadline = deadline
        if let queuedAt = entry.queuedAt, queuedAt <= deadline { return }  // fires earlier; re-queued then
        entry.queueToken = nextToken
        nextToken += 1
        entry.queuedAt = deadline
        heap.push(.init(deadline: deadline, path: path, instance: entry.instance, token: entry.queueToken))
    }
}
