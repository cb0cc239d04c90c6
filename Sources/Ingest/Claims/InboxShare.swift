import PhotodropSystem
import PhotodropTelemetry
import Synchronization

/// Which files of an inbox that several nodes watch this node takes first, so that the nodes do not all race for every
/// file.
///
/// Without it, each of two nodes on one inbox claims nearly every file: both write a journal entry for it (the claim's
/// crash-safe order: entry first, then the rename), one rename wins, and the loser removes its orphaned entry — twice
/// the journal writes for the same files (counted: 19,652-20,074 entries for a 10,000-file burst, against 10,000 for
/// one node). With it, every file has one preferred node, picked by rendezvous hashing of the file's folder and
/// pairing stem over the nodes sharing the inbox: all nodes compute the same answer without talking, a node that
/// joins or leaves moves only its own share, and the files of a pair (`IMG_1.HEIC` and `IMG_1.MOV`) prefer the same
/// node. A node leaves a file it does not prefer for ``yieldTime`` and takes it then if it is still there (unchanged):
/// a preferred node that died, is overloaded or does not watch that folder costs only that delay. The rename stays
/// the arbiter, so nodes that see the list differently for a moment cost speed, never a file.
///
/// The nodes sharing the inbox are the live ones (``NodeRegistration/liveNodes``, by their heartbeats in the catalog)
/// that have a staging folder here (`.photodrop/claimed/<node>`, made when a node starts on the inbox): a test that
/// needs no agreement on the inbox's path, which machines may mount in different places.
final class InboxShare: Sendable {
    /// How long a file another node prefers is left to it.
    static let yieldTime: Duration = .seconds(2)
    /// How often the sharing nodes are worked out again.
    static let refreshInterval: Duration = .seconds(1)

    /// This node's id.
    let node: String
    private let inbox: FolderRoot
    /// `.photodrop/claimed`, below the inbox: one folder per node that has run on it.
    private let stagingParent: String
    private let liveNodes: @Sendable () -> [String]
    private let logger: Logger
    private let state: Mutex<State>

    private struct State {
        var sharers: [String]
        var refreshed: ContinuousClock.Instant?
    }

    /// The share of node `node` on `inbox`, whose staging folders are below `stagingParent` (relative to the inbox);
    /// `liveNodes` answers from memory (it is asked on the watch loop).
    init(
        node: String, inbox: FolderRoot, stagingParent: String, logger: Logger,
        liveNodes: @escaping @Sendable () -> [String]
    ) {
        self.node = node
        self.logger = logger
        self.inbox = inbox
        self.stagingParent = stagingParent
        self.liveNodes = liveNodes
        self.state = Mutex(State(sharers: [node]))
    }

    /// The nodes sharing the inbox, this one included, sorted.
    var sharers: [String] { state.withLock { $0.sharers } }

    /// When the next refresh is due (the watch loop wakes for it, so that an idle node learns of a node that joins).
    func nextRefresh(after now: ContinuousClock.Instant) -> ContinuousClock.Instant {
        state.withLock { $0.refreshed.map { $0 + Self.refreshInterval } ?? now }
    }

    /// Works the sharing nodes out again when ``refreshInterval`` has passed: the live nodes with a staging folder in
    /// this inbox. A folder that cannot be listed leaves the last answer.
    func refreshIfDue(at now: ContinuousClock.Instant = .now) {
        let due = state.withLock { state -> Bool in
            guard state.refreshed.map({ now - $0 >= Self.refreshInterval }) ?? true else { return false }
            state.refreshed = now
            return true
        }
        guard due else { return }
        let live = Set(liveNodes())
        var present: Set<String> = [node]
        if live.count > 1 {
            guard let folder = try? inbox.directory().directory(stagingParent),
                let stream = try? DirectoryStream(directory: folder)
            else { return }
            while let entry = try? stream.next() {
                if entry.type == .directory && live.contains(entry.name) { present.insert(entry.name) }
            }
        }
        let sharers = present.sorted()
        let previous = state.withLock { state in
            defer { state.sharers = sharers }
            return state.sharers
        }
        guard sharers != previous else { return }
        if sharers.count > 1 {
            logger.info(
                "the inbox is shared with other nodes: each takes the files it prefers first",
                metadata: ["nodes": .string(sharers.joined(separator: ","))])
        } else {
            logger.info("no other node watches the inbox now: this node takes every file at once")
        }
    }

    /// Whether another node sharing the inbox prefers the file at `relativePath` (relative to the inbox).
    func isLeftToOthers(_ relativePath: String) -> Bool {
        let sharers = self.sharers
        guard sharers.count > 1 else { return false }
        return Self.preferredNode(of: relativePath, among: sharers) != node
    }

    /// The node of `nodes` that prefers the file at `relativePath`: the highest score of each node with the file's
    /// folder and pairing stem (ties, which need a 64-bit collision, go to the smallest id).
    static func preferredNode(of relativePath: String, among nodes: [String]) -> String? {
        let (folder, name) = Path.split(relativePath)
        let key = folder + "/" + StemSiblings.pairingStem(of: name)
        var best: (node: String, score: UInt64)?
        for node in nodes {
            let score = Self.score(node: node, key: key)
            if let current = best, current.score > score || (current.score == score && current.node < node) {
                continue
            }
            best = (node, score)
        }
        return best?.node
    }

    /// FNV-1a over the node id, a separator no id has, and the key, then SplitMix64's finalizer (FNV alone mixes its
    /// last bytes poorly, and paths often differ only there). Stable across processes and machines, unlike `Hasher`.
    static func score(node: String, key: String) -> UInt64 {
        var fnv = FNV1a64()
        fnv.add(node.utf8)
        fnv.add(0)
        fnv.add(key.utf8)
        var hash = fnv.value
        hash ^= hash >> 30
        hash &*= 0xbf58_476d_1ce4_e5b9
        hash ^= hash >> 27
        hash &*= 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return hash
    }
}
