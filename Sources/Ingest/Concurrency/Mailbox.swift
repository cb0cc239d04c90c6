@preconcurrency import Dispatch
import Synchronization

/// The watch loop's input: messages from several tasks, received in batches by one consumer that can also wait for a
/// deadline (the settle tracker's next check) — what an `AsyncStream` cannot do without a racing timer task.
///
/// Two lanes: ``send(_:)`` is bounded and suspends while the lane is full (inotify events: a consumer that falls behind
/// pushes back on the watcher, whose kernel queue overflows into a rescan, never into unbounded memory);
/// ``post(_:)`` never waits (feedback from the committer, signals), so no cycle of waiting stages can deadlock.
/// Posted messages are delivered first.
final class Mailbox<Message: Sendable>: Sendable {
    private struct State {
        var urgent: [Message] = []
        var messages: [Message] = []
        var senders: [(id: UInt64, message: Message, continuation: CheckedContinuation<Void, Never>)] = []
        var receiver: CheckedContinuation<Void, Never>?
        var receiverToken: UInt64 = 0
        var nextID: UInt64 = 0
        var closed = false
    }

    let capacity: Int
    private let state = Mutex(State())
    private let timerQueue = DispatchQueue(label: "photodrop.mailbox.timer")

    init(capacity: Int) {
        self.capacity = max(1, capacity)
    }

    /// Adds a message without waiting.
    func post(_ message: Message) {
        let receiver = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard !state.closed else { return nil }
            state.urgent.append(message)
            defer { state.receiver = nil }
            return state.receiver
        }
        receiver?.resume()
    }

    /// Adds a message, waiting while the bounded lane is full. Dropped after ``close()``.
    func send(_ message: Message) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let (receiver, done) = state.withLock { state -> (CheckedContinuation<Void, Never>?, Bool) in
                if state.closed { return (nil, true) }
                if state.messages.count < capacity {
                    state.messages.append(message)
                    defer { state.receiver = nil }
                    return (state.receiver, true)
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
    func receive(until deadline: ContinuousClock.Instant?) async -> [Message] {
        if let batch = take() { return batch }
        if let deadline, deadline <= .now { return [] }
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let token: UInt64? = state.withLock { state in
                if state.closed || !state.urgent.isEmpty || !state.messages.isEmpty { return nil }
                state.receiverToken &+= 1
                state.receiver = continuation
                return state.receiverToken
            }
            guard let token else {
                continuation.resume()
                return
            }
            if let deadline {
                let (seconds, attoseconds) = ContinuousClock.now.duration(to: deadline).components
                let nanoseconds = max(0, min(seconds, 86_400) * 1_000_000_000 + attoseconds / 1_000_000_000)
                timerQueue.asyncAfter(deadline: .now() + .nanoseconds(Int(nanoseconds))) { [weak self] in
                    self?.timedOut(token)
                }
            }
        }
        return take() ?? []
    }

    /// Wakes the receiver and drops everything; later messages are ignored.
    func close() {
        let (receiver, senders) = state.withLock { state in
            state.closed = true
            state.urgent.removeAll()
            state.messages.removeAll()
            let senders = state.senders.map(\.continuation)
            state.senders.removeAll()
            defer { state.receiver = nil }
            return (state.receiver, senders)
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

    private func timedOut(_ token: UInt64) {
        let receiver = state.withLock { state -> CheckedContinuation<Void, Never>? in
            guard state.receiverToken == token else { return nil }
            defer { state.receiver = nil }
            return state.receiver
        }
        receiver?.resume()
    }
}
