/// A binary min-heap of deadlines, so that ``SettleTracker`` finds due files in O(log n) with 100,000 pending.
struct DeadlineHeap<Instant: Comparable & Sendable>: Sendable {
    struct Item: Sendable {
        var deadline: Instant
        var path: String
        var instance: UInt64
        var token: UInt64
    }

    private(set) var items: [Item] = []

    var count: Int { items.count }
    var first: Item? { items.first }

    mutating func push(_ item: Item) {
        items.append(item)
        var child = items.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard items[child].deadline < items[parent].deadline else { break }
            items.swapAt(child, parent)
            child = parent
        }
    }

    mutating func popFirst() -> Item? {
        guard !items.isEmpty else { return nil }
        items.swapAt(0, items.count - 1)
        let result = items.removeLast()
        var parent = 0
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < items.count && items[left].deadline < items[smallest].deadline { smallest = left }
            if right < items.count && items[right].deadline < items[smallest].deadline { smallest = right }
            if smallest == parent { break }
            items.swapAt(parent, smallest)
            parent = smallest
        }
        return result
    }

    mutating func removeAll() {
        items.removeAll(keepingCapacity: false)
    }
}
