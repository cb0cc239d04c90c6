import Dispatch
import FoundationEssentials
import PhotodropSystem
import PostgresClient
import Synchronization

/// A `watch` node's place in a shared PostgreSQL catalog (a photodrop addition): a session advisory lock on its node
/// id, so that a second daemon with the same id refuses to start wherever it runs, and its row in `nodes`, whose
/// heartbeat (the database's clock, `now()`) and counts `status` shows on every node.
///
/// The lock and the heartbeat live on a connection of their own, renewed every ``heartbeatInterval`` by a thread of
/// their own that no ingest work can hold up (a 5 GB file being hashed, a slow disk). A connection that breaks is
/// made again and the lock taken again; when another process took the id meanwhile, ``isLost`` says so and the
/// daemon stops.
public final class NodeRegistration: Sendable {
    /// What a node reports with each heartbeat besides its claims (which the heartbeat counts in the journal).
    public struct Load: Sendable {
        /// Files the node sees waiting in its inbox.
        public var waiting: Int
        public init(waiting: Int = 0) { self.waiting = waiting }
    }

    /// One row of `nodes`, as `status` shows it.
    public struct Node: Sendable, Hashable {
        public var id: String
        public var host: String
        public var pid: Int
        public var version: String
        public var inbox: String
        /// Seconds since the last heartbeat, by the database's clock.
        public var heartbeatAge: Double
        public var running: Bool
        public var claimed: Int
        public var waiting: Int
    }

    /// How often the heartbeat is written.
    public static let heartbeatInterval: Double = 5
    /// How often the live nodes (``liveNodes``) are read again: often, so that nodes started together learn of each
    /// other before a burst (a one-row-per-node read on the heartbeat's connection).
    public static let livenessInterval: Double = 1
    /// A node counts as live while its last heartbeat is younger than this (three missed heartbeats).
    public static let livenessWindow: Double = 3 * heartbeatInterval
    /// The first key of the node locks ("pdnd"): the second is the node id's hash.
    static let lockClass: Int32 = 0x7064_6E64

    public let node: String
    private let claimKind: String
    private let connector: CatalogConnector
    private let row: (host: String, pid: Int, version: String, inbox: String)
    private let load: @Sendable () -> Load
    private let connection: Mutex<PostgresConnection?>
    private let stopped = Atomic<Bool>(false)
    /// Whether the heartbeat thread runs (not when the id was refused: then there is nothing to stop).
    private let beating = Atomic<Bool>(false)
    private let lost = Atomic<Bool>(false)
    private let done = DispatchSemaphoreBox()
    private let live: Mutex<[String]>

    /// Takes node id `node` on `library`'s PostgreSQL catalog and starts the heartbeat; `claimKind` is the journal kind
    /// of the node's claims (counted at each heartbeat).
    ///
    /// - Throws: ``PhotosError`` when another daemon holds the id (naming its host, process and last heartbeat), or
    ///   when the catalog cannot be reached.
    public init(
        library: PhotoLibrary, node: String, version: String, inbox: String, claimKind: String,
        load: @escaping @Sendable () -> Load
    ) throws {
        self.claimKind = claimKind
        precondition(library.catalog.isPostgres, "NodeRegistration needs a PostgreSQL catalog")
        self.node = node
        connector = library.connector
        row = (SystemProcess.hostName, Int(SystemProcess.id), version, inbox)
        self.load = load
        connection = Mutex(nil)
        let first = try Self.connect(connector)
        guard try Self.lock(first, node: node) else {
            let holder = try? Self.nodes(first).first { $0.id == node }
            let who = holder.map {
                "on \($0.host), process \($0.pid), last heartbeat \(Int($0.heartbeatAge)) s ago"
            } ?? "elsewhere"
            throw PhotosError(
                .invalidParameter, title: "Node id taken",
                message: "another photodrop watch with node id '\(node)' is running on this library (\(who)); stop it "
                    + "first, or give this one another \"node\" in its config")
        }
        try Self.register(first, node: node, row: row)
        live = Mutex((try? Self.liveNodes(first, including: node)) ?? [node])
        connection.withLock { $0 = first }
        beating.store(true, ordering: .sequentiallyConsistent)
        SystemThread.start(name: "photodrop.node.heartbeat") { [self] in beat() }
    }

    /// Whether the node id was taken by another process while this one's connection was away: the daemon must stop.
    public var isLost: Bool { lost.load(ordering: .relaxed) }

    /// The ids of the nodes that are running (not stopped, a heartbeat within ``livenessWindow`` by the database's
    /// clock), this one included, sorted; read every ``livenessInterval`` by the heartbeat thread, so asking costs
    /// nothing. While the database is unreachable it is the last list read.
    public var liveNodes: [String] { live.withLock { $0 } }

    /// Ends the heartbeat, marks the row stopped and gives the id up.
    public func stop() {
        guard beating.load(ordering: .sequentiallyConsistent),
            !stopped.exchange(true, ordering: .sequentiallyConsistent)
        else { return }
        done.wait()
        if let connection = connection.withLock({ $0 }) {
            _ = try? connection.execute("UPDATE nodes SET stopped_at = now() WHERE id = $1", [node])
            _ = try? connection.execute("SELECT pg_advisory_unlock($1, hashtext($2))", [String(Self.lockClass), node])
        }
        connection.withLock { $0 = nil }
    }

    deinit { stop() }

    /// The nodes of `library`'s catalog, most recent heartbeat first; empty for SQLite.
    public static func nodes(of library: PhotoLibrary) throws -> [Node] {
        guard library.catalog.isPostgres else { return [] }
        do { return try nodes(try connect(library.connector)) } catch {
            throw PhotosError.database(
                PostgresSession.databaseError(error, sql: nil, location: library.catalog.description),
                action: "read the nodes", library: library.url.path)
        }
    }

    // MARK: - The heartbeat thread

    private func beat() {
        defer { done.signal() }
        // In tenths of a second: a heartbeat every `heartbeatInterval`, the live nodes every `livenessInterval`.
        let beatTicks = Int(Self.heartbeatInterval * 10)
        let livenessTicks = Int(Self.livenessInterval * 10)
        var tick = 0
        while !stopped.load(ordering: .sequentiallyConsistent) {
            SystemThread.sleep(seconds: 0.1)
            tick += 1
            if stopped.load(ordering: .sequentiallyConsistent) { return }
            let beating = tick % beatTicks == 0
            guard beating || tick % livenessTicks == 0 else { continue }
            do {
                let current = try connection.withLock({ $0 }) ?? reconnect()
                if beating {
                    let now = load()
                    try current.execute(
                        """
                        UPDATE nodes SET heartbeat_at = now(), waiting = $2, stopped_at = NULL,
                            claimed = (SELECT count(*) FROM journal WHERE kind = $3)
                        WHERE id = $1
                        """, [node, String(now.waiting), claimKind])
                }
                let nodes = try Self.liveNodes(current, including: node)
                live.withLock { $0 = nodes }
            } catch {
                // The server went away: the next turn connects again (and takes the lock again).
                connection.withLock { $0 = nil }
            }
        }
    }

    private func reconnect() throws -> PostgresConnection {
        let fresh = try Self.connect(connector)
        guard try Self.lock(fresh, node: node) else {
            lost.store(true, ordering: .relaxed)
            throw PostgresError(.statement, message: "node id '\(node)' was taken by another process")
        }
        try Self.register(fresh, node: node, row: row)
        connection.withLock { $0 = fresh }
        return fresh
    }

    // MARK: - SQL

    private static func connect(_ connector: CatalogConnector) throws(PostgresError) -> PostgresConnection {
        try connector.connect(role: "node")
    }

    private static func lock(_ connection: PostgresConnection, node: String) throws(PostgresError) -> Bool {
        try connection.execute("SELECT pg_try_advisory_lock($1, hashtext($2))", [String(lockClass), node]).scalar
            == "t"
    }

    private static func register(
        _ connection: PostgresConnection, node: String, row: (host: String, pid: Int, version: String, inbox: String)
    ) throws(PostgresError) {
        try connection.execute(
            """
            INSERT INTO nodes(id, host, pid, version, inbox, started_at, heartbeat_at)
            VALUES ($1, $2, $3, $4, $5, now(), now())
            ON CONFLICT (id) DO UPDATE SET host = excluded.host, pid = excluded.pid, version = excluded.version,
                inbox = excluded.inbox, started_at = excluded.started_at, heartbeat_at = now(), stopped_at = NULL,
                claimed = 0, waiting = 0
            """, [node, row.host, String(row.pid), row.version, row.inbox])
    }

    /// The live nodes (``liveNodes``), `node` among them even before its first heartbeat is seen, sorted.
    private static func liveNodes(_ connection: PostgresConnection, including node: String) throws(PostgresError)
        -> [String]
    {
        let nodes = try connection.execute(
            """
            SELECT id FROM nodes
            WHERE stopped_at IS NULL AND heartbeat_at >= now() - CAST($1 AS DOUBLE PRECISION) * interval '1 second'
            """, [String(livenessWindow)]
        ).rows.compactMap { $0[0] }
        return (nodes.contains(node) ? nodes : nodes + [node]).sorted()
    }

    private static func nodes(_ connection: PostgresConnection) throws(PostgresError) -> [Node] {
        let rows = try connection.execute(
            """
            SELECT id, host, pid, version, inbox, extract(epoch FROM now() - heartbeat_at), stopped_at IS NULL,
                claimed, waiting
            FROM nodes ORDER BY heartbeat_at DESC, id
            """)
        return rows.rows.map { values in
            Node(
                id: values[0] ?? "", host: values[1] ?? "", pid: Int(values[2] ?? "") ?? 0, version: values[3] ?? "",
                inbox: values[4] ?? "", heartbeatAge: Double(values[5] ?? "") ?? 0, running: values[6] == "t",
                claimed: Int(values[7] ?? "") ?? 0, waiting: Int(values[8] ?? "") ?? 0)
        }
    }
}

/// A semaphore the heartbeat thread signals when it ends (a class, so that the registration stays `Sendable`).
private final class DispatchSemaphoreBox: @unchecked Sendable {
    // @unchecked: DispatchSemaphore is thread-safe.
    private let semaphore = DispatchSemaphore(value: 0)
    private let waited = Atomic<Bool>(false)
    func signal() { semaphore.signal() }
    func wait() { if !waited.exchange(true, ordering: .relaxed) { semaphore.wait() } }
}
