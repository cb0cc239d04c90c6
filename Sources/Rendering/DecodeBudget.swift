import FoundationEssentials
import PhotodropSystem
import Synchronization

/// The memory that the decodes of one photodrop process (its render helpers, however many pools it has) may use at
/// once, with each decode admitted against its estimate before it gets a helper.
///
/// - Small decodes (up to ``smallDecodeBytes``: a phone's photo) have a lane of their own, ``smallLaneBytes``, that
///   large ones never use: a queue of huge HEICs never holds back a normal photo's thumbnail. When no large decode
///   waits, small ones may also use the large lane's free room.
/// - Large decodes share the rest, first come first served.
/// - A decode larger than the large lane runs alone: it waits until nothing else runs, and nothing starts beside it
///   until it is done.
public final class DecodeBudget: Sendable {
    /// A decode's admission; give it back with ``release()`` (once) when the decode is done.
    public final class Grant: Sendable {
        fileprivate let bytes: Int64
        fileprivate let lane: Lane
        private let budget: DecodeBudget
        private let released = Atomic<Bool>(false)

        fileprivate init(bytes: Int64, lane: Lane, budget: DecodeBudget) {
            self.bytes = bytes
            self.lane = lane
            self.budget = budget
        }

        public func release() {
            guard !released.exchange(true, ordering: .acquiringAndReleasing) else { return }
            budget.release(self)
        }

        deinit { release() }
    }

    fileprivate enum Lane: Sendable { case small, smallInLarge, large, alone }

    private struct State {
        var total: Int64
        var smallInUse: Int64 = 0
        var largeInUse: Int64 = 0
        var running = 0
        /// Tickets of the large decodes waiting, oldest first.
        var largeQueue: [UInt64] = []
        var aloneWaiting = 0
        var aloneRunning = false
        var nextTicket: UInt64 = 0
        var waiting = 0
        var waitedTotal = 0
    }

    private let state: Mutex<State>
    private let condition = ConditionLock()

    /// A budget of `totalBytes` (at least 64 MiB).
    public init(totalBytes: Int64) {
        state = Mutex(State(total: max(64 << 20, totalBytes)))
    }

    /// The budget of a process that was not told one: half the memory this process may use (its cgroup's
    /// `memory.max`, e.g. systemd's `MemoryMax=`, where there is one, else the machine's memory).
    public static func automaticBytes() -> Int64 { MemoryLimit.available() / 2 }

    /// The budget every render pool of this process shares unless it is given another (``setTotal(_:)`` changes it,
    /// e.g. from the configuration).
    public static let shared = DecodeBudget(totalBytes: automaticBytes())

    /// The whole budget, in bytes.
    public var totalBytes: Int64 { state.withLock { $0.total } }
    /// The small decodes' own lane: a quarter of the budget, at most 1 GiB.
    public var smallLaneBytes: Int64 { Self.smallLane(of: totalBytes) }
    /// The largest decode that counts as small: half the small lane, so that two fit in it.
    public var smallDecodeBytes: Int64 { smallLaneBytes / 2 }
    /// How many decodes wait for memory now.
    public var waiting: Int { state.withLock { $0.waiting } }
    /// How many decodes had to wait for memory since the start.
    public var waitedTotal: Int { state.withLock { $0.waitedTotal } }
    /// The estimated bytes of the decodes running now.
    public var inUseBytes: Int64 { state.withLock { $0.smallInUse + $0.largeInUse } }

    private static func smallLane(of total: Int64) -> Int64 { min(total / 4, 1 << 30) }

    /// Changes the budget (a reload); decodes already admitted keep their memory.
    public func setTotal(_ bytes: Int64) {
        state.withLock { $0.total = max(64 << 20, bytes) }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until a decode of about `bytes` may start, blocking the calling thread.
    public func admit(_ bytes: Int64) -> Grant {
        let bytes = max(0, bytes)
        var ticket: UInt64?
        var counted = false
        // Whether it runs alone is decided once, against the budget as it is now.
        let alone = state.withLock { bytes > $0.total - Self.smallLane(of: $0.total) }
        condition.lock()
        defer { condition.unlock() }
        while true {
            let decision = state.withLock { state -> Lane? in
                let small = Self.smallLane(of: state.total)
                let large = state.total - small
                if alone {
                    // Runs alone: once nothing runs, and nothing else starts while it waits.
                    if ticket == nil {
                        ticket = 0
                        state.aloneWaiting += 1
                    }
                    guard state.running == 0, !state.aloneRunning else { return nil }
                    state.aloneWaiting -= 1
                    state.aloneRunning = true
                    state.running += 1
                    state.largeInUse += bytes
                    return .alone
                }
                guard !state.aloneRunning, state.aloneWaiting == 0 else { return nil }
                if bytes <= small / 2 {
                    if state.smallInUse + bytes <= small {
                        state.smallInUse += bytes
                        state.running += 1
                        return .small
                    }
                    if state.largeQueue.isEmpty, state.largeInUse + bytes <= large {
                        state.largeInUse += bytes
                        state.running += 1
                        return .smallInLarge
                    }
                    return nil
                }
                if ticket == nil {
                    state.nextTicket += 1
                    ticket = state.nextTicket
                    state.largeQueue.append(state.nextTicket)
                }
                guard state.largeQueue.first == ticket, state.largeInUse + bytes <= large else { return nil }
                state.largeQueue.removeFirst()
                state.largeInUse += bytes
                state.running += 1
                return .large
            }
            if let lane = decision {
                if counted { state.withLock { $0.waiting -= 1 } }
                if lane == .large || lane == .alone { condition.broadcast() }
                return Grant(bytes: bytes, lane: lane, budget: self)
            }
            if !counted {
                counted = true
                state.withLock {
                    $0.waiting += 1
                    $0.waitedTotal += 1
                }
            }
            condition.wait()
        }
    }

    private func release(_ grant: Grant) {
        state.withLock { state in
            state.running -= 1
            switch grant.lane {
            case .small: state.smallInUse -= grant.bytes
            case .smallInLarge, .large: state.largeInUse -= grant.bytes
            case .alone:
                state.largeInUse -= grant.bytes
                state.aloneRunning = false
            }
        }
        condition.lock()
        condition.broadcast()
        condition.unlock()
    }
}
