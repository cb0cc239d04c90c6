import Foundation
import LibraryJSON
import PhotoCatalog
import PhotodropSystem
import Synchronization

/// Server-sent events from the library's persistent change history (`GET /api/events?since=TOKEN`): every committed
/// change, by any process, reaches every open stream within a second of its commit. Nothing polls the database in a
/// loop: one thread watches the library's folder with inotify (SQLite appends each commit to `library.sqlite-wal`)
/// and wakes the streams, which then read the history after their last token.
public final class ChangeFeed: @unchecked Sendable {
    // @unchecked: NSCondition is thread-safe (it is Foundation's lock); every other property is immutable or a
    // Mutex/Atomic.
    let library: PhotoLibrary
    /// Bumped on every write inotify reports; streams wait for it to move, cached answers are checked again after.
    /// An atomic: the picture path reads it on every request.
    private let generation = Atomic<UInt64>(0)
    private let condition = NSCondition()
    private let watcher: Int32
    private let stopped = Atomic<Bool>(false)
    /// How long a stream waits before it sends a keep-alive comment (proxies close silent connections).
    static let keepAliveSeconds = 15.0

    public init(library: PhotoLibrary) {
        self.library = library
        let descriptor = inotify_init1(Int32(IN_CLOEXEC | IN_NONBLOCK))
        watcher = descriptor
        if descriptor >= 0 {
            _ = inotify_add_watch(
                descriptor, library.url.path, UInt32(IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_CREATE))
        }
        let thread = Thread { [self] in watch() }
        thread.name = "photodrop.serve.changes"
        thread.start()
    }

    /// Ends the watcher and every stream.
    public func stop() {
        stopped.store(true, ordering: .sequentiallyConsistent)
        wake()
    }

    private func watch() {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !stopped.load(ordering: .sequentiallyConsistent) {
            var ready = pollfd(fd: watcher, events: Int16(POLLIN), revents: 0)
            // A bounded wait, so that stop() is seen within a second even with no writes.
            guard poll(&ready, 1, 1000) > 0 else {
                if watcher < 0 { usleep(500_000); wake() }
                continue
            }
            while read(watcher, &buffer, buffer.count) > 0 {}
            wake()
        }
        if watcher >= 0 { close(watcher) }
    }

    /// Tells the feed that this process just committed a change (the streams and caches need not wait for inotify).
    func noteChange() { wake() }

    private func wake() {
        condition.lock()
        generation.add(1, ordering: .sequentiallyConsistent)
        condition.broadcast()
        condition.unlock()
    }

    /// Waits until a write happens after `seen` or `seconds` pass; the generation then.
    func wait(after seen: UInt64, seconds: Double) -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        let deadline = Date(timeIntervalSinceNow: seconds)
        while generation.load(ordering: .sequentiallyConsistent) == seen && !stopped.load(ordering: .sequentiallyConsistent) {
            if !condition.wait(until: deadline) { break }
        }
        return generation.load(ordering: .sequentiallyConsistent)
    }

    var currentGeneration: UInt64 { generation.load(ordering: .sequentiallyConsistent) }
    var isStopped: Bool { stopped.load(ordering: .sequentiallyConsistent) }

    /// The stream for `since` (a change token; without one, from now on).
    func stream(since text: String?) throws -> HTTPResponse {
        let start: PersistentChangeToken
        if let text, !text.isEmpty {
            guard let token = PersistentChangeToken(string: text) else {
                throw APIFailure(400, "'\(text)' is not a change token")
            }
            start = token
        } else {
            do { start = try library.currentChangeToken } catch { throw APIFailure(503, "the change history cannot be read: \(error)") }
        }
        // Checked now, so that an expired token gets a status instead of a stream that ends at once.
        do { _ = try library.fetchPersistentChanges(since: start, limit: 1) } catch let error as PhotosError {
            throw APIFailure(410, "\(error.localizedDescription); list the assets again and follow /api/events without 'since'")
        }
        return HTTPResponse(
            status: 200,
            headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-store"), ("X-Accel-Buffering", "no")],
            body: .stream(EventStream(feed: self, token: start)))
    }
}

/// One open event stream: each change as `id: TOKEN`, `event: change`, `data: {…}` (the JSON of `photodrop events`).
final class EventStream: HTTPStream, @unchecked Sendable {
    // @unchecked: used by its connection's thread only (libmicrohttpd calls read and finish there).
    private let feed: ChangeFeed
    private var token: PersistentChangeToken
    private var pending: [UInt8]
    private var seen: UInt64

    init(feed: ChangeFeed, token: PersistentChangeToken) {
        self.feed = feed
        self.token = token
        self.seen = feed.currentGeneration
        // The first bytes tell the client how long to wait before it reconnects.
        self.pending = Array("retry: 2000\n\n".utf8)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) -> Int? {
        while pending.isEmpty {
            if feed.isStopped { return nil }
            let changes: [PersistentChange]
            do { changes = try feed.library.fetchPersistentChanges(since: token, limit: 100) } catch {
                return nil  // the history was pruned past this stream: the client reconnects and re-reads
            }
            if let last = changes.last {
                token = last.changeToken
                for change in changes {
                    pending += Array(
                        "id: \(change.changeToken.stringValue)\nevent: change\ndata: \(CatalogJSON.change(change).text)\n\n"
                            .utf8)
                }
                break
            }
            let now = feed.wait(after: seen, seconds: ChangeFeed.keepAliveSeconds)
            if now == seen { pending = Array(": keep-alive\n\n".utf8) }
            seen = now
        }
        let count = min(buffer.count, pending.count)
        pending.withUnsafeBytes { buffer.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        pending.removeFirst(count)
        return count
    }

    func finish() {}
}
