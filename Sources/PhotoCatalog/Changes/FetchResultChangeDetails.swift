import FoundationEssentials

/// How a fetch result changed (`PHFetchResultChangeDetails`), in PhotoKit's (and `UICollectionView` batch updates')
/// index conventions:
///
/// - ``removedIndexes`` are indexes in ``fetchResultBeforeChanges``;
/// - ``insertedIndexes`` are indexes in ``fetchResultAfterChanges``;
/// - each move goes from an index in the result before to an index in the result after (objects that stayed but
///   changed their relative order; as few as possible: those outside a longest run that kept its order);
/// - ``changedIndexes`` are indexes in ``fetchResultAfterChanges`` of objects present before and after whose
///   properties differ.
///
/// Applying them to the old list in that order (remove, insert, move, then reload the changed) gives the new one.
public struct FetchResultChangeDetails<ObjectType: PhotoObject>: Sendable {
    /// One move: from an index before to an index after.
    public struct Move: Sendable, Hashable {
        /// The index in the result before the change.
        public let fromIndex: Int
        /// The index in the result after the change.
        public let toIndex: Int
    }

    /// The result the observer held.
    public let fetchResultBeforeChanges: FetchResult<ObjectType>
    /// The same fetch, run again after the change; keep this one.
    public let fetchResultAfterChanges: FetchResult<ObjectType>
    /// Always true: photodrop computes every difference incrementally.
    public let hasIncrementalChanges: Bool
    /// Indexes (before) of objects that left the result; nil when none did.
    public let removedIndexes: IndexSet?
    /// The objects that left, in index order.
    public let removedObjects: [ObjectType]
    /// Indexes (after) of objects that entered the result; nil when none did.
    public let insertedIndexes: IndexSet?
    /// The objects that entered, in index order.
    public let insertedObjects: [ObjectType]
    /// Indexes (after) of objects whose properties changed; nil when none did.
    public let changedIndexes: IndexSet?
    /// The objects that changed, in their new state, in index order.
    public let changedObjects: [ObjectType]
    /// The moves, ordered by destination.
    public let moves: [Move]

    /// Whether some objects changed their relative order.
    public var hasMoves: Bool { !moves.isEmpty }

    /// Calls `handler(fromIndex, toIndex)` for every move.
    public func enumerateMoves(_ handler: (Int, Int) -> Void) {
        for move in moves { handler(move.fromIndex, move.toIndex) }
    }

    /// Whether anything differs.
    var isEmpty: Bool { removedIndexes == nil && insertedIndexes == nil && changedIndexes == nil && moves.isEmpty }

    /// Compares two results object by object.
    init(before: FetchResult<ObjectType>, after: FetchResult<ObjectType>) {
        fetchResultBeforeChanges = before
        fetchResultAfterChanges = after
        hasIncrementalChanges = true
        let old = before.objects
        let new = after.objects
        var newIndexByID: [String: Int] = [:]
        newIndexByID.reserveCapacity(new.count)
        for (index, object) in new.enumerated() where newIndexByID[object.localIdentifier] == nil {
            newIndexByID[object.localIdentifier] = index
        }
        var oldIndexByID: [String: Int] = [:]
        oldIndexByID.reserveCapacity(old.count)
        for (index, object) in old.enumerated() where oldIndexByID[object.localIdentifier] == nil {
            oldIndexByID[object.localIdentifier] = index
        }

        var removed = IndexSet()
        // Survivors in old order: (old index, new index).
        var survivors: [(Int, Int)] = []
        for (index, object) in old.enumerated() {
            if let newIndex = newIndexByID[object.localIdentifier] {
                survivors.append((index, newIndex))
            } else {
                removed.insert(index)
            }
        }
        var inserted = IndexSet()
        for (index, object) in new.enumerated() where oldIndexByID[object.localIdentifier] == nil {
            inserted.insert(index)
        }
        var changed = IndexSet()
        for (oldIndex, newIndex) in survivors where old[oldIndex] != new[newIndex] {
            changed.insert(newIndex)
        }
        let kept = FetchResultChangeDetails.longestIncreasingRun(survivors.map(\.1))
        var moves: [Move] = []
        for (position, survivor) in survivors.enumerated() where !kept.contains(position) {
            moves.append(Move(fromIndex: survivor.0, toIndex: survivor.1))
        }
        moves.sort { $0.toIndex < $1.toIndex }

        removedIndexes = removed.isEmpty ? nil : removed
        removedObjects = removed.map { old[$0] }
        insertedIndexes = inserted.isEmpty ? nil : inserted
        insertedObjects = inserted.map { new[$0] }
        changedIndexes = changed.isEmpty ? nil : changed
        changedObjects = changed.map { new[$0] }
        self.moves = moves
    }

    /// The positions in `values` of one longest strictly increasing subsequence (patience sorting, O(n log n)).
    static func longestIncreasingRun(_ values: [Int]) -> Set<Int> {
        var tails: [Int] = []  // positions in `values`: tails[k] ends the best run of length k + 1
        var previous = [Int](repeating: -1, count: values.count)
        for (position, value) in values.enumerated() {
            var low = 0
            var high = tails.count
            while low < high {
                let middle = (low + high) / 2
                if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
            }
            if low > 0 { previous[position] = tails[low - 1] }
            if low == tails.count { tails.append(position) } else { tails[low] = position }
        }
        var result = Set<Int>()
        var position = tails.last ?? -1
        while position >= 0 {
            result.insert(position)
            position = previous[position]
        }
        return result
    }
}

/// How one object changed (`PHObjectChangeDetails`).
public struct ObjectChangeDetails<ObjectType: PhotoObject>: Sendable {
    /// The object as the observer knew it.
    public let objectBeforeChanges: ObjectType
    /// The object now; nil when it was deleted.
    public let objectAfterChanges: ObjectType?
    /// Whether the stored content (resources) changed.
    public let assetContentChanged: Bool
    /// Whether the object was deleted (for assets: moved to Recently Deleted or purged).
    public let objectWasDeleted: Bool
}
