import Synchronization

/// A first-in-first-out queue between tasks with a fixed capacity: ``send(_:)`` suspends while it is full.
///
/// This is the pipeline's back-pressure: a producer (the scanner, the watcher) can run at most `capacity` items ahead
/// of the workers, so a burst of 100,000 files costs `capacity` items of memory, not 100,000. Any number of
/// producers and consumers; waiters are served in arrival order. Cancelling a waiting task wakes it
/// (``send(_:)`` throws `CancellationError`, ``receive()`` returns nil).
public final class BoundedQueue<Element: Sendable>: Sendable {
    /// Thrown by ``send(_:)`` after ``finish()``.
    public struct Finished: Error, Sendable {}

    private struct Sender {
        var id: UInt64
        var element: Element
        var continuation: CheckedContinuation<Void, any Error>
    }

    private struct Receiver {
        var id: UInt64
        var continuation: CheckedContinuation<Element?, Never>
    }

    private enum SendStep {
        case handedOver(CheckedContinuation<Element?, Never>)
        case buffered
        case failed(any Error)
        case mustWait
    }

    private enum ReceiveStep {
        case element(Element, CheckedContinuation<Void, any Error>?)
        case end
        case mustWait
    }

    /// First-in-first-out storage that never holds more than the queue's capacity: a ring that grows by doubling
    /// up to `limit`, so a queue that is seldom full stays small and a full one costs exactly `limit` slots.
    private struct Ring {
        private var slots: [Element?] = []
        private var start = 0
        private(set) var count = 0
        let limit: Int

        init(limit: Int) { self.limit = limit }

        mutating func push(_ element: Element) {
            precondition(count < limit, "the bounded queue's buffer is full")
            if count == slots.count { grow() }
            slots[(start + count) % slots.count] = element
            count += 1
        }

        mutating func pop() -> Element? {
            guard count > 0 else { return nil }
            let element = slots[start].take()
            start = (start + 1) % slots.count
            count -= 1
            return element
        }

        private mutating func grow() {
            let size = min(limit, max(16, slots.count * 2))
            var larger: [Element?] = []
            larger.reserveCapacity(size)
            for offset in 0..<count { larger.append(slots[(start + offset) % slots.count].take()) }
            larger.append(contentsOf: repeatElement(nil, count: size - count))
            slots = larger
            start = 0
        }
    }

    private struct State {
        var buffer: Ring
        var senders: [Sender] = []
        var receivers: [Receiver] = []
        var finished = false
        var nextID: UInt64 = 0

        var count: Int { buffer.count }

        mutating func popBuffer() -> Element? { buffer.pop() }
    }

    /// The most items held without a waiting sender.
    public let capacity: Int
    private let state: Mutex<State>

    /// A queue holding at most `capacity` (at least 1) items.
    public init(capacity: Int) {
        precondition(capacity >= 1, "a bounded queue needs room for at least one item")
        self.capacity = capacity
        state = Mutex(State(buffer: Ring(limit: capacity)))
    }

    /// Items waiting in the queue (not counting suspended senders).
    public var count: Int { state.withLock { $0.count } }

    /// Adds `element`, waiting while the queue is full.
    ///
    /// Throws ``Finished`` after ``finish()`` and `CancellationError` when the task is cancelled while waiting (the
    /// element is then not queued).
    public func send(_ element: Element) async throws {
        let immediate: SendStep = state.withLock { state in
            if state.finished { return .failed(Finished()) }
            if !state.receivers.isEmpty { return .handedOver(state.receivers.removeFirst().continuation) }
            if state.count < capacity {
                state.buffer.push(element)
                return .buffered
            }
            return .mustWait
        }
        switch immediate {
        case .handedOver(let receiver):
            receiver.resume(returning: element)
            return
        case .buffered: return
        case .failed(let error): throw error
        case .mustWait: break
        }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let registration: SendStep = state.withLock { state in
                    if Task.isCancelled { return .failed(CancellationError()) }
                    if state.finished { return .failed(Finished()) }
                    if !state.receivers.isEmpty { return .handedOver(state.receivers.removeFirst().continuation) }
                    if state.count < capacity {
                        state.buffer.push(element)
                        return .buffered
                    }
                    state.senders.append(Sender(id: id, element: element, continuation: continuation))
                    return .mustWait
                }
                switch registration {
                case .mustWait: break
                case .buffered: continuation.resume()
                case .failed(let error): continuation.resume(throwing: error)
                case .handedOver(let receiver):
                    receiver.resume(returning: element)
                    continuation.resume()
                }
            }
        } onCancel: {
            let sender = state.withLock { state -> Sender? in
                guard let index = state.senders.firstIndex(where: { $0.id == id }) else { return nil }
                return state.senders.remove(at: index)
            }
            sender?.continuation.resume(throwing: CancellationError())
        }
    }

    /// The next item, waiting while the queue is empty; nil once the queue is finished and drained, or when the
    /// task is cancelled while waiting.
    public func receive() async -> Element? {
        let immediate: ReceiveStep = state.withLock { state in
            if let element = state.popBuffer() {
                // Room was made: the longest-waiting sender moves its element into the buffer.
                if !state.senders.isEmpty {
                    let sender = state.senders.removeFirst()
                    state.buffer.push(sender.element)
                    return .element(element, sender.continuation)
                }
                return .element(element, nil)
            }
            if !state.senders.isEmpty {
                let sender = state.senders.removeFirst()
                return .element(sender.element, sender.continuation)
            }
            return state.finished ? .end : .mustWait
        }
        switch immediate {
        case .element(let element, let sender):
            sender?.resume()
            return element
        case .end: return nil
        case .mustWait: break
        }
        let id = state.withLock { state -> UInt64 in
            state.nextID += 1
            return state.nextID
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let registration: ReceiveStep = state.withLock { state in
                    if let element = state.popBuffer() {
                        if !state.senders.isEmpty {
                            let sender = state.senders.removeFirst()
                            state.buffer.push(sender.element)
                            return .element(element, sender.continuation)
                        }
                        return .element(element, nil)
                    }
                    if !state.senders.isEmpty {
                        let sender = state.senders.removeFirst()
                        return .element(sender.element, sender.continuation)
                    }
                    if state.finished || Task.isCancelled { return .end }
                    state.receivers.append(Receiver(id: id, continuation: continuation))
                    return .mustWait
                }
                switch registration {
                case .mustWait: break
                case .end: continuation.resume(returning: nil)
                case .element(let element, let sender):
                    sender?.resume()
                    continuation.resume(returning: element)
                }
            }
        } onCancel: {
            let receiver = state.withLock { state -> Receiver? in
                guard let index = state.receivers.firstIndex(where: { $0.id == id }) else { return nil }
                return state.receivers.remove(at: index)
            }
            receiver?.continuation.resume(returning: nil)
        }
    }

    /// Takes up to `limit` items that are already queued (or offered by waiting senders) without waiting; empty when
    /// there are none. A group committer calls it after ``receive()`` returned one item, to take whatever else has
    /// arrived meanwhile without ever waiting to fill a batch.
    public func receiveAvailable(upTo limit: Int) -> [Element] {
        var items: [Element] = []
        receiveAvailable(upTo: limit, appendingTo: &items)
        return items
    }

    /// ``receiveAvailable(upTo:)`` appending to `items`, which is grown once to fit: a committer that already holds
    /// the first item of a batch builds the batch in one array instead of copying a second one into it.
    public func receiveAvailable(upTo limit: Int, appendingTo items: inout [Element]) {
        guard limit > 0 else { return }
        let released = state.withLock { state -> [CheckedContinuation<Void, any Error>] in
            // A committer takes up to 1,024 at a time: one allocation instead of eleven doublings.
            let taking = min(limit, state.count + state.senders.count)
            items.reserveCapacity(items.count + taking)
            var released: [CheckedContinuation<Void, any Error>] = []
            for _ in 0..<taking {
                if let element = state.popBuffer() {
                    items.append(element)
                } else {
                    let sender = state.senders.removeFirst()
                    items.append(sender.element)
                    released.append(sender.continuation)
                }
            }
            // Room was made: move waiting senders' elements into the buffer, as `receive()` does.
            while state.count < capacity && !state.senders.isEmpty {
                let sender = state.senders.removeFirst()
                state.buffer.push(sender.element)
                released.append(sender.continuation)
            }
            return released
        }
        for continuation in released { continuation.resume() }
    }

    /// No more items: waiting receivers get nil, waiting and later senders get ``Finished``; items already queued
    /// are still delivered.
    public func finish() {
        let (senders, receivers) = state.withLock { state -> ([Sender], [Receiver]) in
            state.finished = true
            let waiting = (state.senders, state.receivers)
            state.senders.removeAll()
            state.receivers.removeAll()
            return waiting
        }
        for sender in senders { sender.continuation.resume(throwing: Finished()) }
        for receiver in receivers { receiver.continuation.resume(returning: nil) }
    }
}
