import PhotoCatalog
import Synchronization

/// Where versioned pictures are (`/api/assets/{id}/thumbnail?v=HASH`), remembered so that the gallery's most frequent
/// request needs no database read: a versioned URL names its content, so an entry never goes stale — a picture made
/// again has a new hash, and one whose file is gone is looked up again. Bounded (oldest out first), and split into
/// shards by key: with one lock, 32 connection threads on two cores spent a sixth of their time waiting for it.
final class PictureCache: Sendable {
    private struct State {
        var files: [String: Derivative.File] = [:]
        var order: [String] = []
        var next = 0
    }

    /// One lock and its part of the entries (a class: a Mutex cannot be copied into an array).
    private final class Shard: Sendable {
        let state = Mutex(State())
    }

    private let shards: [Shard]
    /// Entries per shard.
    let capacity: Int

    init(capacity: Int = 50_000, shards count: Int = 64) {
        self.capacity = max(1, capacity / count)
        shards = (0..<count).map { _ in Shard() }
    }

    private func shard(_ key: String) -> Shard {
        var hasher = Hasher()
        hasher.combine(key)
        return shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
    }

    func file(_ key: String) -> Derivative.File? {
        shard(key).state.withLock { $0.files[key] }
    }

    func remember(_ file: Derivative.File, as key: String) {
        let capacity = capacity
        shard(key).state.withLock { state in
            guard state.files.updateValue(file, forKey: key) == nil else { return }
            if state.order.count < capacity {
                state.order.append(key)
            } else {
                state.files.removeValue(forKey: state.order[state.next])
                state.order[state.next] = key
                state.next = (state.next + 1) % capacity
            }
        }
    }

    func forget(_ key: String) {
        shard(key).state.withLock { _ = $0.files.removeValue(forKey: key) }
    }
}
