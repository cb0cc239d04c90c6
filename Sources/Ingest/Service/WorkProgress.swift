import Synchronization
import PhotodropConfiguration

/// What the pipeline's stages are busy with, and when each last made progress: how the watchdog tells a wedged
/// pipeline (a stage busy with the same thing, no progress, for longer than the stall limit) from a legitimate long
/// wait (a 5 GB file being hashed advances with every chunk; a library locked by another process makes the committer
/// give up after SQLite's busy timeout and retry later, so no activity lasts).
///
/// Stages mark an activity with ``begin(_:)`` and ``end(_:)``, and long ones ``advance(_:detail:)`` as they go. Two lock
/// operations per file: nothing next to reading and hashing it.
public final class WorkProgress: Sendable {
    /// One thing a stage is busy with.
    public struct Activity: Sendable, Equatable {
        /// What it is (`reading Trip/IMG_1.mov`), for `STATUS=` and the log.
        public var what: String
        /// How far it got (`2.1 of 5.0 GB`), when it reports that.
        public var detail: String?
        /// When it began.
        public var since: ContinuousClock.Instant
        /// When it last made progress.
        var lastProgress: ContinuousClock.Instant
    }

    /// An activity's handle.
    public struct Token: Sendable, Hashable {
        fileprivate let id: Int
    }

    private struct State {
        var next = 0
        var activities: [Int: Activity] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    /// A stage starts `what`.
    public func begin(_ what: @autoclosure () -> String) -> Token {
        let now = ContinuousClock.now
        let activity = Activity(what: what(), detail: nil, since: now, lastProgress: now)
        return state.withLock { state in
            state.next &+= 1
            state.activities[state.next] = activity
            return Token(id: state.next)
        }
    }

    /// The activity made progress (`detail`: how far, when known).
    public func advance(_ token: Token, detail: String? = nil) {
        let now = ContinuousClock.now
        state.withLock { state in
            state.activities[token.id]?.lastProgress = now
            if let detail { state.activities[token.id]?.detail = detail }
        }
    }

    /// The activity is over.
    public func end(_ token: Token) {
        _ = state.withLock { $0.activities.removeValue(forKey: token.id) }
    }

    /// The activity that has gone longest without progress, if that is longer than `limit`: the pipeline is wedged.
    public func stalled(limit: Duration, at now: ContinuousClock.Instant = .now) -> Activity? {
        state.withLock { state in
            state.activities.values.filter { now - $0.lastProgress > limit }.min { $0.lastProgress < $1.lastProgress }
        }
    }

    /// The longest-running activity that began more than `threshold` ago (still progressing or not): what a
    /// status line names as a long wait.
    public func longest(over threshold: Duration, at now: ContinuousClock.Instant = .now) -> Activity? {
        state.withLock { state in
            state.activities.values.filter { now - $0.since > threshold }.min { $0.since < $1.since }
        }
    }

    /// How many activities are under way.
    public var count: Int { state.withLock { $0.activities.count } }
}
