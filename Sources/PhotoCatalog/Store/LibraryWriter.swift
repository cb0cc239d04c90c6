import Dispatch

/// The one owner of a library's write connection: a serial dispatch queue on which every change block, journal write
/// and migration runs, one at a time.
///
/// A dispatch queue rather than an actor because blocks do blocking work (hashing, renames, fsync) that must not
/// occupy the threads of Swift's cooperative pool.
final class LibraryWriter: @unchecked Sendable {
    // Invariant: `openConnection` is only read and written on `queue` (checked by `isOnWriterQueue` at each use).

    let queue: DispatchQueue
    private let key = DispatchSpecificKey<Bool>()
    private var openConnection: WriterConnection?

    init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
        queue.setSpecific(key: key, value: true)
    }

    /// Whether the caller runs on the writer queue (inside a change block or another writer task).
    var isOnWriterQueue: Bool { DispatchQueue.getSpecific(key: key) == true }

    /// The open connection, or the one `open` makes. Call on the writer queue.
    ///
    /// A PostgreSQL connection that broke (the server restarted, the network went away) is dropped here, and the
    /// next block opens a new one: a node rides out an outage, its blocks failing meanwhile, instead of writing into
    /// a dead connection until it is restarted.
    func connection(orOpen open: () throws -> WriterConnection) throws -> WriterConnection {
        precondition(isOnWriterQueue, "the writer connection is used off the writer queue")
        if let openConnection, openConnection.database.isUsable { return openConnection }
        openConnection = nil
        let connection = try open()
        openConnection = connection
        return connection
    }

    /// Runs `body` on the writer queue and waits for it; runs it directly when already there.
    func sync<R>(_ body: () throws -> R) throws -> R {
        if isOnWriterQueue { return try body() }
        return try queue.sync(execute: body)
    }

    /// Runs `body` on the writer queue and resumes with its result.
    func run<R: Sendable>(_ body: @escaping @Sendable () throws -> R) async throws -> R {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try body() }) }
        }
    }
}
