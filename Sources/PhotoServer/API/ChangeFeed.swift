import FoundationEssentials
import LibraryJSON
import PhotoCatalog
import PhotodropSystem
import Synchronization

/// Server-sent events from the library's persistent change history (`GET /api/events?since=TOKEN`): every committed
/// change, by any process or node, reaches every open stream within a second of its commit. Nothing polls the database
/// in a loop: one thread waits on the library's ``PhotoCatalog/CommitSignal`` (inotify on the folder for SQLite,
/// `LISTEN` for PostgreSQL) and tells the server (``onChange``), which wakes its suspended streams; each then reads the
/// history after its last token — once for all the streams that stand at the same token (``changes(since:)``).
final class ChangeFeed: Sendable {
    let library: PhotoLibrary
    /// Bumped on every write inotify reports; streams wait for it to move, cached answers are checked again after.
    /// An atomic: the picture path reads it on every request.
    private let generation = Atomic<UInt64>(0)
    private let signal: CommitSignal
    private let stopped = Atomic<Bool>(false)
    /// A stream could not read the history (the catalog unreachable for a moment): wake the streams again within a
    /// second even if no commit is signalled.
    private let retry = Atomic<Bool>(false)
    /// Called on every change seen (set once, before the server starts).
    private let observer = Mutex<(@Sendable () -> Void)?>(nil)
    /// The last history read, for the streams that ask for the same token at the same generation: a change wakes
    /// every stream, and most stand at the newest token.
    private let lastRead = Mutex<(generation: UInt64, since: String, changes: [PersistentChange])?>(nil)

    public init(library: PhotoLibrary) {
        self.library = library
        signal = CommitSignal(library: library)
        SystemThread.start(name: "photodrop.serve.changes") { [self] in watch() }
    }

    /// Ends the watcher and every stream.
    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    private func watch() {
        while !stopped.load(ordering: .sequentiallyConsistent) {
            // A bounded wait, so that stop() is seen within a second even with no writes.
            if signal.wait(milliseconds: 1000) || retry.exchange(false, ordering: .sequentiallyConsistent) { wake() }
        }
    }

    /// Asks for the streams to be woken again within a second (one of them met a passing read error).
    func retrySoon() { retry.store(true, ordering: .sequentiallyConsistent) }

    /// Tells the feed that this process just committed a change (the streams and caches need not wait for inotify).
    func noteChange() { wake() }

    private func wake() {
        generation.add(1, ordering: .sequentiallyConsistent)
        observer.withLock { $0 }?()
    }

    /// `action` runs on every change seen (the server wakes its event streams).
    func onChange(_ action: @escaping @Sendable () -> Void) { observer.withLock { $0 = action } }

    /// Up to 100 changes after `token`, read once per generation for every stream at that token.
    func changes(since token: PersistentChangeToken) throws -> [PersistentChange] {
        let generation = currentGeneration
        let key = token.stringValue
        if let cached = lastRead.withLock({ $0?.generation == generation && $0?.since == key ? $0?.changes : nil }) {
            return cached
        }
        let changes = try library.fetchPersistentChanges(since: token, limit: 100)
        lastRead.withLock { $0 = (generation, key, changes) }
        return changes
    }

    var currentGeneration: UInt64 { generation.load(ordering: .sequentiallyConsistent) }
    var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    /// The stream after a change token: the `Last-Event-ID` an EventSource sends when it reconnects (the last event it
    /// got, so it wins), else the `since` argument, else from now on. Either one that is not a change token is 400, also
    /// when the other one would do.
    func stream(since: String?, lastEventID: String?) throws -> HTTPResponse {
        func token(_ text: String?, _ name: String) throws -> PersistentChangeToken? {
            guard let text, !text.isEmpty else { return nil }
            guard let token = PersistentChangeToken(string: text) else {
                throw APIFailure(400, "\(name) '\(text)' is not a change token")
            }
            return token
        }
        let start: PersistentChangeToken
        let resumed = try token(lastEventID, "Last-Event-ID")
        let asked = try token(since, "since")
        if let given = resumed ?? asked {
            start = given
        } else {
            do { start = try library.currentChangeToken } catch { throw APIFailure(503, "the change history cannot be read: \(error)") }
        }
        // Checked now, so that an expired token gets a status instead of a stream that ends at once.
        do { _ = try library.fetchPersistentChanges(since: start, limit: 1) } catch let error as PhotosError
            where !error.isCatalogUnreachable && !error.isDatabaseBusy
        {
            throw APIFailure(410, "\(error); list the assets again and follow /api/events without 'since'")
        } catch {
            throw APIFailure(503, "the change history cannot be read: \(error)")
        }
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")],
            body: .stream(EventStream(feed: self, token: start)))
    }
}

/// One open event stream: each change as `id: TOKEN`, `event: change`, `data: {…}` (the JSON of `photodrop events`).
/// Read by the server without blocking: with nothing new it answers `.later` and sleeps until the next change.
final class EventStream: HTTPStream, @unchecked Sendable {
    // @unchecked: the server reads it under its stream's lock, one call at a time.
    private let feed: ChangeFeed
    private var token: PersistentChangeToken
    private var pending: [UInt8]
    /// The feed's generation when the history was last read: nothing to read while it has not moved.
    private var seen: UInt64?

    init(feed: ChangeFeed, token: PersistentChangeToken) {
        self.feed = feed
        self.token = token
        // The first bytes tell the client how long to wait before it reconnects.
        self.pending = Array("retry: 2000\n\n".utf8)
    }

    let keepAlive = Array(": keep-alive\n\n".utf8)

    func read(into buffer: UnsafeMutableRawBufferPointer) -> StreamStep {
        if pending.isEmpty {
            if feed.isStopped { return .end }
            let generation = feed.currentGeneration
            guard generation != seen else { return .later }
            let changes: [PersistentChange]
            do { changes = try feed.changes(since: token) } catch let error as PhotosError
                where !error.isCatalogUnreachable && !error.isDatabaseBusy
            {
                return .end  // the history was pruned past this stream: the client reconnects and re-reads
            } catch {
                // The catalog is away for a moment (a database restarting): the stream stays, at its token, and
                // reads again once it is back; nothing committed meanwhile is skipped.
                feed.retrySoon()
                return .later
            }
            guard let last = changes.last else {
                seen = generation
                return .later
            }
            // Not marked seen: there may be more than one batch.
            token = last.changeToken
            for change in changes {
                pending += Array(
                    "id: \(change.changeToken.stringValue)\nevent: change\ndata: \(CatalogJSON.change(change).text)\n\n".utf8)
            }
        }
        let count = min(buffer.count, pending.count)
        pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        pending.removeFirst(count)
        return .wrote(count)
    }

    func finish() {}
}
