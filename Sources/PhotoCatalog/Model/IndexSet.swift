/// A set of positions in an ordered collection, ascending, as `PHFetchResultChangeDetails` and
/// `PHAssetCollectionChangeRequest` speak of them (Foundation's `IndexSet`, which FoundationEssentials does not have).
public struct IndexSet: Sendable, Hashable, Sequence, ExpressibleByArrayLiteral, CustomStringConvertible {
    private var sorted: [Int]

    public init() { sorted = [] }

    public init<S: Sequence>(_ indexes: S) where S.Element == Int {
        sorted = Array(Set(indexes)).sorted()
    }

    public init(integer: Int) { sorted = [integer] }

    public init(integersIn range: Range<Int>) { sorted = Array(range) }

    public init(arrayLiteral elements: Int...) { self.init(elements) }

    public var count: Int { sorted.count }
    public var isEmpty: Bool { sorted.isEmpty }
    public var first: Int? { sorted.first }
    public var last: Int? { sorted.last }

    public func contains(_ index: Int) -> Bool { position(of: index).found }

    @discardableResult
    public mutating func insert(_ index: Int) -> (inserted: Bool, memberAfterInsert: Int) {
        let (found, at) = position(of: index)
        if !found { sorted.insert(index, at: at) }
        return (!found, index)
    }

    @discardableResult
    public mutating func remove(_ index: Int) -> Int? {
        let (found, at) = position(of: index)
        guard found else { return nil }
        return sorted.remove(at: at)
    }

    public func makeIterator() -> IndexingIterator<[Int]> { sorted.makeIterator() }

    public var description: String { "\(sorted)" }

    /// Binary search: whether `index` is there, and where it is or would go.
    private func position(of index: Int) -> (found: Bool, at: Int) {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < index { low = middle + 1 } else { high = middle }
        }
        return (low < sorted.count && sorted[low] == index, low)
    }
}
