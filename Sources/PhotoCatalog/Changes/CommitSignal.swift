import FoundationEssentials
import PhotodropSystem
import PostgresClient
import Synchronization

/// Wakes a reader when another process (or node) may have committed a change to the library (a photodrop addition):
/// what `serve` waits on to push changes to its event streams within a second of their commit.
///
/// On SQLite, inotify on the library folder: every commit appends to `library.sqlite-wal`. On PostgreSQL, `LISTEN` on
/// the library's channel: every commit that writes the change history sends `NOTIFY` in its transaction, so the
/// notification arrives when (and only if) the commit does. Notifications sent while the listener was disconnected are
/// lost: after a reconnect it reports a change at once, and the reader reads the history table, which is the truth.
public final class CommitSignal: Sendable {
    /// The channel a library's commits notify on.
    static let channel = "photodrop_changes"

    /// SQLite: the watch on the library folder (nil where inotify cannot be had).
    private let folder: Inotify?
    /// PostgreSQL: how to connect, and the listening connection while it holds.
    private let connector: CatalogConnector?
    private let listener = Mutex<PostgresConnection?>(nil)

    /// A signal for `library`'s commits. Does not fail: without inotify, or while PostgreSQL cannot be reached, the
    /// wait simply times out and the caller reads anyway.
    public init(library: PhotoLibrary) {
        if library.catalog.isPostgres {
            folder = nil
            connector = library.connector
        } else {
            let inotify = try? Inotify()
            let watched = (try? inotify?.addWatch(library.url.path, for: [.modified, .closedWrite, .movedTo, .created]))
            folder = watched == nil ? nil : inotify
            connector = nil
        }
    }

    /// Waits up to `milliseconds` for a commit; true when one (may have) happened, false on a quiet timeout.
    public func wait(milliseconds: Int32) -> Bool {
        if let connector { return waitForNotification(connector, milliseconds: milliseconds) }
        guard let folder else {
            // No inotify: the caller looks every time.
            SystemThread.sleep(seconds: Double(milliseconds) / 1000)
            return true
        }
        guard (try? folder.descriptor.waitUntilReadable(milliseconds: milliseconds)) == true else { return false }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 4096, alignment: 8)
        defer { buffer.deallocate() }
        while ((try? folder.read(into: buffer)) ?? 0) > 0 {}
        return true
    }

    private func waitForNotification(_ connector: CatalogConnector, milliseconds: Int32) -> Bool {
        if let connection = listener.withLock({ $0 }) {
            do {
                return !(try connection.notifications(waitingUpTo: milliseconds)).isEmpty
            } catch {
                // The connection broke: a new one next time, and the history is read now.
                listener.withLock { $0 = nil }
                return true
            }
        }
        guard let connection = listen(connector) else {
            SystemThread.sleep(seconds: Double(milliseconds) / 1000)
            return false
        }
        listener.withLock { $0 = connection }
        // Commits made while nobody listened were not announced: the history is read now.
        return true
    }

    private func listen(_ connector: CatalogConnector) -> PostgresConnection? {
        guard let connection = try? connector.connect(role: "listener"),
            (try? connection.execute("LISTEN \(CommitSignal.channel)")) != nil
        else { return nil }
        return connection
    }
}
