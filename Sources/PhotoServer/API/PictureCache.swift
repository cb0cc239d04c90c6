import PhotoCatalog
import Synchronization

/// Where versioned pictures are (`/api/assets/{id}/thumbnail?v=HASH`), remembered so that the gallery's most frequent
/// request needs no database read: a versioned URL names its content, so an entry never goes stale — a picture made
/// again has a new hash, and one whose file is gone is looked up again.
///
/// Small pictures are also kept whole, as answers ready to send (``KeptResponse``), within ``answerBudget`` bytes
/// (oldest out first): sending one costs no file open, no `sendfile` and no header formatting. A kept answer is
/// trusted for the library generation it was checked at (``ChangeFeed``: any commit, by any process, moves it); after
/// a change, the first request opens the file once more to see that it is still there, so that a picture whose asset
/// was purged is not answered from memory.
///
/// Bounded, and split into shards by key: with one lock, 32 connection threads on two cores spent a sixth of their
/// time waiting for it.
final class PictureCache: Sendable {
    struct Entry {
        var file: Derivative.File
        var answer: KeptResponse?
        /// The library generation at which the file was last seen in place.
        var checked: UInt64
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys in the order they came (a ring of ``PictureCache/capacity``).
        var order: [String] = []
        var next = 0
        /// Keys with a kept answer, oldest first from `answersHead`.
        var answers: [String] = []
        var answersHead = 0
        var answerBytes = 0
    }

    /// One lock and its part of the entries (a class: a Mutex cannot be copied into an array).
    private final class Shard: Sendable {
        let state = Mutex(State())
    }

    private let shards: [Shard]
    /// Entries per shard.
    let capacity: Int
    /// Bytes of kept answers per shard (0: none are kept).
    let answerBytesPerShard: Int
    /// Pictures larger than this are sent from their files.
    static let largestKeptPicture = 256 << 10

    init(capacity: Int = 50_000, answerBudget: Int = 64 << 20, shards count: Int = 64) {
        self.capacity = max(1, capacity / count)
        answerBytesPerShard = max(0, answerBudget) / count
        shards = (0..<count).map { _ in Shard() }
    }

    private func shard(_ key: String) -> Shard {
        var hasher = Hasher()
        hasher.combine(key)
        return shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
    }

    func entry(_ key: String) -> Entry? {
        shard(key).state.withLock { $0.entries[key] }
    }

    /// Remembers where the picture is (its file seen in place at `generation`).
    func remember(_ file: Derivative.File, as key: String, checked generation: UInt64) {
        let capacity = capacity
        shard(key).state.withLock { state in
            if state.entries[key] != nil {
                state.entries[key]?.checked = generation
                return
            }
            state.entries[key] = Entry(file: file, answer: nil, checked: generation)
            if state.order.count < capacity {
                state.order.append(key)
            } else {
                Self.drop(state.order[state.next], from: &state)
                state.order[state.next] = key
                state.next = (state.next + 1) % capacity
            }
        }
    }

    /// Whether a picture of `byteCount` bytes would be kept whole.
    func keeps(byteCount: Int) -> Bool {
        byteCount <= min(Self.largestKeptPicture, answerBytesPerShard)
    }

    /// Keeps `answer` for the picture at `key` (already remembered), dropping the oldest kept answers over budget.
    func keep(_ answer: KeptResponse, for key: String) {
        let budget = answerBytesPerShard
        let capacity = capacity
        shard(key).state.withLock { state in
            guard answer.byteCount <= budget, let entry = state.entries[key], entry.answer == nil else { return }
            while state.answerBytes + answer.byteCount > budget, state.answersHead < state.answers.count {
                let oldest = state.answers[state.answersHead]
                state.answersHead += 1
                if let dropped = state.entries[oldest]?.answer {
                    state.answerBytes -= dropped.byteCount
                    state.entries[oldest]?.answer = nil
                }
            }
            if state.answers.count - state.answersHead > 2 * capacity {
                // Keys of entries dropped since (the ring moved on): only those still holding an answer stay.
                var seen = Set<String>()
                state.answers = state.answers[state.answersHead...].filter {
                    state.entries[$0]?.answer != nil && seen.insert($0).inserted
                }
                state.answersHead = 0
            } else if state.answersHead > 64 && state.answersHead * 2 > state.answers.count {
                state.answers.removeFirst(state.answersHead)
                state.answersHead = 0
            }
            state.entries[key]?.answer = answer
            state.answers.append(key)
            state.answerBytes += answer.byteCount
        }
    }

    func forget(_ key: String) {
        shard(key).state.withLock { Self.drop(key, from: &$0) }
    }

    private static func drop(_ key: String, from state: inout State) {
        if let answer = state.entries.removeValue(forKey: key)?.answer { state.answerBytes -= answer.byteCount }
    }

    /// Keys the oldest-first list of kept answers holds, dropped entries' included (for tests: it must stay bounded).
    var bookkeepingCount: Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.answers.count - $0.answersHead } }
    }

    /// Bytes of kept answers (`/metrics`).
    var keptBytes: Int { shards.reduce(0) { total, shard in total + shard.state.withLock { $0.answerBytes } } }
}
