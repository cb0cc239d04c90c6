import Synchronization

/// Results written by several threads into their own slots.
final class ResultSlots<R: Sendable>: Sendable {
    private let slots: Mutex<[R?]>

    init(count: Int) { slots = Mutex(Array(repeating: nil, count: count)) }

    func set(_ index: Int, _ value: R) { slots.withLock { $0[index] = value } }

    func values() -> [R] { slots.withLock { $0.map { $0! } } }
}

/// Hands out 0, 1, 2, … to whichever thread asks next.
final class NextIndex: Sendable {
    private let next = Atomic<Int>(0)

    func take(below limit: Int) -> Int? {
        let index = next.add(1, ordering: .relaxed).oldValue
        return index < limit ? index : nil
    }
}
