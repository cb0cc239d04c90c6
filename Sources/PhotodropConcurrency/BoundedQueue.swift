import Synchronization

/// A first-in-first-out queue between tasks with a fixed capacity: ``send(_:)`` suspends while it is full.
///
/// This is the pipeline's back-pressure: a producer (the scanner, the watcher) can run at most `capacity` items ahead
/// of the workers, so a burst of 100,000 files costs `capacity` items of memory, not 100,000. Any number of
/// producers and consumers; waiters are served in arrival order. Cancelling a waiting task wakes it
/// (``send(_:)`` throws `CancellationError`, ``receive()`` returns nil).
///
/// Threads of a ``WorkerThreads`` pool, which are not Swift tasks, use ``sendBlocking(contentsOf:)`` and
/// ``receiveBlocking(unless:)`` instead: they wait in the same lines, parked on a semaphore.
public final class BoundedQueue<Element: Sendable>: Sendable {
    /// Thrown by ``send(_:)`` after ``finish()``.
    public struct Finished: Error, Sendable {}

    /// How a waiting sender is woken: a suspended task, or a parked thread.
    private enum SenderWake {
        case task(CheckedContinuation<Void, any Error>)
        case thread(ThreadParking<(any Error)?>)

        func resume() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .thread(let parking): parking.resume(returning: nil)
            }
        }

        func resume(throwing error: any Error) {
            switch self {
            case .task(let continuation): continuation.resume(throwing: error)
            case .thread(let parking): parking.resume(returning: error)
            }
        }
    }

    /// How a waiting receiver is woken: a suspended task, or a parked thread.
    private enum ReceiverWake {
        case task(CheckedContinuation<Element?, Never>)
        case thread(ThreadParking<Element?>)

        func resume(returning element: Element?) {
            switch self {
            case .task(let continuation): continuation.resume(returning: element)
            case .thread(let parking): parking.resume(returning: element)
            }
        }

        var isThread: Bool {
            if case .thread = self { return true }
            return false
        }
    }

    private struct Sender {
        var id: UInt64
        var element: Element
        var continuation: SenderWake
    }

    private struct Receiver {
        var id: UInt64
        var continuation: ReceiverWake
    }

    private enum SendStep {
        case handedOver(ReceiverWake)
        case buffered
        case failed(any Error)
        case mustWait
    }

    private enum ReceiveStep {
        case element(Element, SenderWake?)
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

        /// Waiting senders are let in once fewer than this many items are queued (half the capacity), not at every
        /// free slot: a producer faster than its consumers then wakes once per half a queue, and sends the next half
        /// without waiting, instead of waking, sending one item and waiting again for every item taken.
        var refillMark: Int { max(1, buffer.limit / 2) }

        mutating func popBuffer() -> Element? { buffer.pop() }

        mutating func newID() -> UInt64 {
            nextID += 1
            return nextID
        }

        /// Hands `element` to a waiting receiver or buffers it; `.mustWait` when the queue is full.
        mutating func offer(_ element: Element, capacity: Int) -> SendStep {
            if finished { return .failed(Finished()) }
            if !receivers.isEmpty { return .handedOver(receivers.removeFirst().continuation) }
            if count < capacity {
                buffer.push(element)
                return .buffered
            }
            return .mustWait
        }

        /// Takes the oldest item (a waiting sender's, when the buffer is empty); `.end` once finished and drained.
        mutating func take() -> ReceiveStep {
            if let element = popBuffer() {
                // Room was made: once the queue is down to half, the longest-waiting sender moves its element into
                // the buffer (see `refillMark`).
                if !senders.isEmpty && count < refillMark {
                    let sender = senders.removeFirst()
                    buffer.push(sender.element)
                    return .element(element, sender.continuation)
                }
                return .element(element, nil)
            }
            if !senders.isEmpty {
                let sender = senders.removeFirst()
                return .element(sender.element, sender.continuation)
            }
            return finished ? .end : .mustWait
        }
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
        let capacity = self.capacity
        switch state.withLock({ $0.offer(element, capacity: capacity) }) {
        case .handedOver(let receiver):
            receiver.resume(returning: element)
            return
        case .buffered: return
        case .failed(let error): throw error
        case .mustWait: break
        }
        let id = state.withLock { $0.newID() }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let registration: SendStep = state.withLock { state in
                    if Task.isCancelled { return .failed(CancellationError()) }
                    let step = state.offer(element, capacity: capacity)
                    if case .mustWait = step {
                        state.senders.append(Sender(id: id, element: element, continuation: .task(continuation)))
                    }
                    return step
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
        switch state.withLock({ $0.take() }) {
        case .element(let element, let sender):
            sender?.resume()
            return element
        case .end: return nil
        case .mustWait: break
        }
        let id = state.withLock { $0.newID() }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Element?, Never>) in
                let registration: ReceiveStep = state.withLock { state in
                    let step = state.take()
                    if case .mustWait = step {
                        if Task.isCancelled { return .end }
                        state.receivers.append(Receiver(id: id, continuation: .task(continuation)))
                    }
                    return step
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

    /// ``send(_:)`` for a thread of its own (not a Swift task), for several elements in order: blocks the thread while
    /// the queue is full, and takes the lock once for as many as fit, so that a worker thread hands over a batch of
    /// results and wakes a waiting receiver once, not once per result.
    ///
    /// - Throws: ``Finished`` after ``finish()`` (the elements not yet queued are then dropped).
    public func sendBlocking(contentsOf elements: [Element]) throws {
        let capacity = self.capacity
        var next = 0
        while next < elements.count {
            var handedOver: [(ReceiverWake, Element)] = []
            var parking: ThreadParking<(any Error)?>?
            let failure: (any Error)? = state.withLock { state in
                while next < elements.count {
                    let element = elements[next]
                    switch state.offer(element, capacity: capacity) {
                    case .handedOver(let receiver): handedOver.append((receiver, element))
                    case .buffered: break
                    case .failed(let error): return error
                    case .mustWait:
                        let waiting = ThreadParking<(any Error)?>()
                        state.senders.append(Sender(id: state.newID(), element: element, continuation: .thread(waiting)))
                        parking = waiting
                    }
                    next += 1
                    if parking != nil { break }
                }
                return nil
            }
            for (receiver, element) in handedOver { receiver.resume(returning: element) }
            if let failure { throw failure }
            if let error = parking?.wait() { throw error }
        }
    }

    /// ``receive()`` for a thread of its own (not a Swift task): blocks the thread while the queue is empty.
    ///
    /// Returns nil once the queue is finished and drained, or once `stop` is raised: whoever raises it then calls
    /// ``wakeBlockedReceivers()``, and a thread that was about to park sees the flag instead (it is read under the
    /// queue's lock, which the waker takes after raising it).
    public func receiveBlocking(unless stop: StopFlag) -> Element? {
        var parking: ThreadParking<Element?>?
        let step: ReceiveStep = state.withLock { state in
            if stop.isRaised { return .end }
            let step = state.take()
            if case .mustWait = step {
                let waiting = ThreadParking<Element?>()
                state.receivers.append(Receiver(id: state.newID(), continuation: .thread(waiting)))
                parking = waiting
            }
            return step
        }
        switch step {
        case .element(let element, let sender):
            sender?.resume()
            return element
        case .end: return nil
        case .mustWait: return parking?.wait() ?? nil
        }
    }

    /// What ``tryReceive()`` found.
    public enum Polled {
        case element(Element)
        case empty
        case finished
    }

    /// The next item if one is queued, without waiting.
    public func tryReceive() -> Polled {
        switch state.withLock({ $0.take() }) {
        case .element(let element, let sender):
            sender?.resume()
            return .element(element)
        case .end: return .finished
        case .mustWait: return .empty
        }
    }

    /// Wakes every thread parked in ``receiveBlocking(unless:)`` with nil (tasks waiting in ``receive()`` are left
    /// alone): how a pool stops its threads without finishing the queue.
    public func wakeBlockedReceivers() {
        let woken = state.withLock { state -> [Receiver] in
            let threads = state.receivers.filter { $0.continuation.isThread }
            state.receivers.removeAll { $0.continuation.isThread }
            return threads
        }
        for receiver in woken { receiver.continuation.resume(returning: nil) }
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
        let released = state.withLock { state -> [SenderWake] in
            // A committer takes up to 1,024 at a time: one allocation instead of eleven doublings.
            let taking = min(limit, state.count + state.senders.count)
            items.reserveCapacity(items.count + taking)
            var released: [SenderWake] = []
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
            while state.count < state.refillMark && !state.senders.isEmpty {
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
