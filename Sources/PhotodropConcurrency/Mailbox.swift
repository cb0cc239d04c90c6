@preconcurrency import Dispatch
import Synchronization

/// The watch loop's input: messages from several tasks, received in batches by one consumer that can also wait for a
/// deadline (the settle tracker's next check) — what an `AsyncStream` cannot do without a racing timer task.
///
/// Two lanes: ``send(_:)`` is bounded and suspends while the lane is full (inotify events: a consumer that falls behind
/// pushes back on the watcher, whose kernel queue overflows into a rescan, never into unbounded memory);
/// ``post(_:)`` never waits (feedback from the committer, signals), so no cycle of waiting stages can deadlock.
/// Posted messages are delivered first.
public final class Mailbox<Message: Sendable>: Sendable {
    private struct State {
        var urgent: [Message] = []
        var messages: [Message] = []
        var senders: [(id: UInt64, message: Message, continuation: CheckedContinuation<Void, Never>)] = []
        var receiver: CheckedContinuation<Void, Never>?
        /// When the waiting receiver gives up (the deadline the timer is armed for); nil: it waits for a message.
        var receiverDeadline: DispatchTime?
        var nextID: UInt64 = 0
        var closed = false

        /// The waiting receiver, if any, no longer waiting: to be resumed outside the lock.
        mutating func takeReceiver() -> CheckedContinuation<Void, Never>? {
            defer {
                receiver = nil
                receiverDeadline = nil
            }
            return receiver
        }
    }

    public let capacity: Int
    private let state = Mutex(State())
    /// One timer, re-armed for each wait with a deadline. Not one `asyncAfter` per wait: a wait that a message ends
    /// early would leave its block pending until the deadline, up to the next summary: a `watch` fed a steady stream
    /// of files held megabytes of them (BENCHMARKS.md, "Peak memory of import and watch").
    private let timer: any DispatchSourceTimer

    public init(capacity: Int) {
        self.capacity = max(1, capacity)
        timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "photodrop.mailbox.timer"))
        timer.setEventHandler { [weak self] in self?.timerFired() }
        timer.schedule(deadline: .distantFuture)
        timer.activate()
    }

    deinit {
        timer.cancel()
    }

    /// Adds a message without waiting.
    public func post(_ message: Message) {
        let receiver = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.closed else { return nil }
            state.urgent.append(message)
            return state.takeReceiver()
        }
        receiver?.resume()
    }

    /// Adds a message, waiting while the bounded lane is full. Dropped after ``close()``.
    public func send(_ message: Message) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (receiver, done) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Bool) in
                if state.closed { return (nil, true) }
                if state.messages.count < capacity {
                    state.messages.append(message)
                    return (state.takeReceiver(), true)
                }
                state.nextID += 1
                state.senders.append((state.nextID, message, continuation))
                return (nil, false)
            }
            receiver?.resume()
            if done { continuation.resume() }
        }
    }

    /// Every message waiting (posted ones first), waiting for one until `deadline` (nil: no deadline). Returns an empty
    /// list when the deadline passed first, or after ``close()``.
    public func receive(until deadline: ContinuousClock.Instant?) async -> [Message] {
        if let batch = take() { return batch }
        if let deadline, deadline <= .now { return [] }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let waiting = state.withLock { state -> Bool in
                if state.closed || !state.urgent.isEmpty || !state.messages.isEmpty { return false }
                state.receiver = continuation
                state.receiverDeadline = nil
                if let deadline {
                    let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
                    let nanoseconds = max(0, min(seconds, 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000)
                    let due = DispatchTime.now() + .nanoseconds(Int(nanoseconds))
                    state.receiverDeadline = due
                    // Re-arming replaces the earlier deadline; a firing for it that is already under way finds
                    // this later deadline not yet due and leaves the receiver waiting.
                    timer.schedule(deadline: due)
                }
                return true
            }
            if !waiting { continuation.resume() }
        }
        return take() ?? []
    }

    /// Wakes the receiver and drops everything; later messages are ignored.
    public func close() {
        let (receiver, senders) = state.withLock { state in
            state.closed = true
            state.urgent.removeAll()
            state.messages.removeAll()
            let senders = state.senders.map(\.continuation)
            state.senders.removeAll()
            return (state.takeReceiver(), senders)
        }
        receiver?.resume()
        for sender in senders { sender.resume() }
    }

    private func take() -> [Message]? {
        let (batch, released) = state.withLock { state -> ([Message], [CheckedContinuation<Void, Never>]) in
            guard !state.urgent.isEmpty || !state.messages.isEmpty else { return ([], []) }
            var batch = state.urgent
            batch.append(contentsOf: state.messages)
            state.urgent.removeAll(keepingCapacity: true)
            state.messages.removeAll(keepingCapacity: state.messages.count <= 1024)
            var released: [CheckedContinuation<Void, Never>] = []
            while state.messages.count < capacity && !state.senders.isEmpty {
                let sender = state.senders.removeFirst()
                state.messages.append(sender.message)
                released.append(sender.continuation)
            }
            return (batch, released)
        }
        for sender in released { sender.resume() }
        return batch.isEmpty ? nil : batch
    }

    /// Whether the receiver is waiting in ``receive(until:)`` right now (for tests that need a wait to end early).
    public var hasWaitingReceiver: Bool { state.withLock { $0.receiver != nil } }

    /// The timer fired: wakes the receiver if its deadline is due (on the timer's own clock, so never early).
    private func timerFired() {
        let receiver = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard let due = state.receiverDeadline else { return nil }
            guard DispatchTime.now() >= due else {
                timer.schedule(deadline: due)  // a firing for an earlier deadline, or early: wait for this one
                return nil
            }
            return state.takeReceiver()
        }
        receiver?.resume()
    }
}
