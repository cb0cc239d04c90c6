import PhotoCatalog
import Synchronization

/// Something kept whole in a ``PictureCache``: a picture's bytes as a caller keeps them (``KeptImage`` for the image
/// manager; `serve` keeps a finished HTTP answer, status and headers included).
public protocol KeptPicture: AnyObject, Sendable {
    /// The memory it takes, near enough.
    var byteCount: Int { get }
}

/// The pictures kept in memory: the one picture cache of photodrop, behind ``CachingImageManager`` (which `serve`
/// uses). An entry says where a picture's file is (so that the next request for it needs no database read) and may
/// keep the picture whole, within a byte budget (oldest out first).
///
/// Keys name content: `serve`'s are versioned (`IDENTIFIER/preview/HASH`: a picture made again has a new hash, so an
/// entry never goes stale), the image manager's name the request. A kept picture is trusted for the library
/// generation it was checked at (the caller's count of commits, by any process); after a change, the first request
/// looks at the file once more, so that a picture whose asset was purged is not answered from memory.
///
/// Bounded, and split into shards by key: with one lock, 32 connection threads on two cores spent a sixth of their
/// time waiting for it.
public final class PictureCache: Sendable {
    public struct Entry: Sendable {
        /// Where the picture's file is; nil for a picture that has none of its own (made for one request).
        public var file: Derivative.File?
        /// The picture, kept whole.
        public var answer: (any KeptPicture)?
        /// The library generation at which the picture was last seen in place.
        public var checked: UInt64

        public init(file: Derivative.File?, answer: (any KeptPicture)?, checked: UInt64) {
            self.file = file
            self.answer = answer
            self.checked = checked
        }
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
    public static let largestKeptPicture = 256 << 10
    /// Pictures larger than this are not kept whole.
    public let largestPicture: Int

    public init(
        capacity: Int = 50_000, answerBudget: Int = 64 << 20, shards count: Int = 64,
        largestPicture: Int = PictureCache.largestKeptPicture
    ) {
        self.largestPicture = largestPicture
        self.capacity = max(1, capacity / count)
        answerBytesPerShard = max(0, answerBudget) / count
        shards = (0..<count).map { _ in Shard() }
    }

    private func shard(_ key: String) -> Shard {
        var hasher = Hasher()
        hasher.combine(key)
        return shards[Int(UInt(bitPattern: hasher.finalize()) % UInt(shards.count))]
    }

    public func entry(_ key: String) -> Entry? {
        shard(key).state.withLock { $0.entries[key] }
    }

    /// Remembers where the picture is (its file seen in place at `generation`).
    public func remember(_ file: Derivative.File?, as key: String, checked generation: UInt64) {
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
    public func keeps(byteCount: Int) -> Bool {
        byteCount <= min(largestPicture, answerBytesPerShard)
    }

    /// Keeps `answer` for the picture at `key` (already remembered), dropping the oldest kept answers over budget;
    /// with `replacing`, in place of the one kept (`serve` turns a warmed picture into a ready HTTP answer).
    public func keep(_ answer: any KeptPicture, for key: String, replacing: Bool = false) {
        let budget = answerBytesPerShard
        let capacity = capacity
        shard(key).state.withLock { state in
            guard answer.byteCount <= budget, let entry = state.entries[key], entry.answer == nil || replacing else {
                return
            }
            if let previous = entry.answer {
                state.answerBytes -= previous.byteCount
                state.entries[key]?.answer = nil
            }
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

    public func forget(_ key: String) {
        shard(key).state.withLock { Self.drop(key, from: &$0) }
    }

    private static func drop(_ key: String, from state: inout State) {
        if let answer = state.entries.removeValue(forKey: key)?.answer { state.answerBytes -= answer.byteCount }
    }

    /// Keys the oldest-first list of kept answers holds, dropped entries' included (for tests: it must stay bounded).
    var bookkeepingCount: Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.answers.count - $0.answersHead } }
    }

    /// Forgets everything.
    public func removeAll() {
        for shard in shards { shard.state.withLock { $0 = State() } }
    }

    /// How many entries keep their picture whole, and the bytes they keep.
    public var keptCount: (pictures: Int, bytes: Int) {
        shards.reduce((0, 0)) { total, shard in
            let (count, bytes) = shard.state.withLock { state in
                (state.entries.values.filter { $0.answer != nil }.count, state.answerBytes)
            }
            return (total.0 + count, total.1 + bytes)
        }
    }

    /// Bytes of kept answers (`/metrics`).
    public var keptBytes: Int { shards.reduce(0) { total, shard in total + shard.state.withLock { $0.answerBytes } } }
}
