import PhotodropSystem
import PhotodropTelemetry
import PhotodropConfiguration

/// The daemon's claim on a library: an exclusive `flock` on `<library>/watch.lock`, which holds the daemon's pid.
///
/// One `photodrop watch` per library: a second one finds the lock taken and refuses, naming the pid. Other commands
/// (`photodrop status`) tell whether a daemon runs by trying a shared lock on the same file: the kernel drops the lock
/// when the process dies, even with `kill -9`, so a stale pid in the file never counts. The file stays; its pid is
/// cleared on a clean exit.
public final class DaemonLock: Sendable {
    /// The lock file's name inside the library folder.
    public static let fileName = "watch.lock"

    /// The lock file of `node` (several nodes share a library: `watch-<node>.lock`, one per node id), or of the one
    /// daemon of a library nobody shares (`watch.lock`).
    public static func fileName(node: String?) -> String { node.map { "watch-\($0).lock" } ?? fileName }

    /// Why the lock could not be taken.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Another process holds it.
        case held(path: String, pid: Int32?)
        /// The library folder or the lock file could not be made or opened.
        case system(SystemError)
        /// The lock file was deleted or replaced while the daemon ran.
        case lost(path: String)
        /// The node id's lock in a shared catalog was taken by another process while this one's connection was away.
        case nodeTaken(String)

        public var description: String {
            switch self {
            case .held(let path, let pid):
                let who = pid.map { "process \($0)" } ?? "another process"
                return
                    "another photodrop watch (\(who)) is already running on this library (\(path) is locked); stop it first, or give this one another library in its config"
            case .system(let error):
                return "cannot take the watch lock: \(error.description)"
            case .nodeTaken(let node):
                return "another process took node id '\(node)' in the catalog while this daemon's connection to it "
                    + "was away; stopping so that two daemons never work as one node. Give each daemon its own \"node\""
            case .lost(let path):
                return
                    "the watch lock \(path) was deleted or replaced while this daemon ran (was the library folder removed?); "
                    + "stopping so that no second daemon works beside this one. Restore the library, then start again"
            }
        }
    }

    /// The lock file.
    public let path: String
    /// The locked file; closed (and the lock released) with the lock object.
    private let fd: FileDescriptor

    /// Creates the library folder if needed, then takes the lock without waiting and writes this process's pid.
    public init(library: String, node: String? = nil) throws(Failure) {
        do {
            try FileSystem.makeDirectories(library)
        } catch {
            throw .system(error)
        }
        let path = Path.join(library, DaemonLock.fileName(node: node))
        let fd: FileDescriptor
        let locked: Bool
        do throws(SystemError) {
            fd = try FileSystem.open(path, [.readWrite, .create, .noFollow], mode: 0o640)
            locked = try fd.lock(.exclusive, wait: false, path: path)
        } catch {
            throw .system(error)
        }
        guard locked else { throw .held(path: path, pid: DaemonLock.readPid(fd)) }
        self.path = path
        self.fd = fd
        let text = Array("\(SystemProcess.id)\n".utf8)
        try? fd.truncate(to: 0)
        try? text.withUnsafeBytes { try fd.writeAll($0, at: 0) }
        try? fd.sync()
    }

    /// Throws when the lock file at ``path`` is no longer the file this daemon locked (deleted with its library, or
    /// replaced): another daemon could then start beside this one, so this one must stop.
    func checkStillHeld() throws(Failure) {
        let held: FileStatus
        do throws(SystemError) { held = try fd.status(path: path) } catch { throw .system(error) }
        guard let onDisk = try? FileSystem.linkStatus(atPath: path), onDisk.node == held.node else {
            throw .lost(path: path)
        }
    }

    /// Clears the pid and gives the lock up (also happens when the process exits).
    public func release() {
        try? fd.truncate(to: 0)
        fd.unlock()
    }

    /// What a look from another process finds.
    public enum State: Sendable, Equatable {
        /// The lock is held; the pid from the file when it holds one.
        case running(pid: Int32?)
        /// Nobody holds the lock; `stalePID` is what an earlier daemon left in the file.
        case notRunning(stalePID: Int32?)
        /// The lock file exists but cannot be opened or locked.
        case unknown(String)
    }

    /// Whether a daemon holds the lock of `library` now, tested with a non-blocking shared lock that is released at
    /// once; the file is opened read-only and never created.
    public static func inspect(library: String, node: String? = nil) -> State {
        let path = Path.join(library, fileName(node: node))
        let fd: FileDescriptor
        do throws(SystemError) {
            fd = try FileSystem.open(path, [.readOnly, .noControllingTerminal, .noFollow])
        } catch {
            if error.code == Errno.noSuchFileOrDirectory || error.code == Errno.notDirectory {
                return .notRunning(stalePID: nil)
            }
            return .unknown("cannot open '\(path)': \(error.reason)")
        }
        let pid = readPid(fd)
        do throws(SystemError) {
            guard try fd.lock(.shared, wait: false, path: path) else { return .running(pid: pid) }
            fd.unlock()
            return .notRunning(stalePID: pid)
        } catch {
            return .unknown("cannot test the lock on '\(path)': \(error.reason)")
        }
    }

    /// When the daemon holding the lock took it (the lock file's modification time: the daemon writes its pid then).
    static func lockedSince(library: String, node: String? = nil) -> UTCTimestamp? {
        guard let info = try? FileSystem.linkStatus(atPath: Path.join(library, fileName(node: node))) else { return nil }
        return UTCTimestamp(seconds: Int64(info.modification.seconds), nanoseconds: Int32(info.modification.nanoseconds))
    }

    /// The first decimal number in the file (the daemon writes its pid and a newline); nil for none or zero.
    private static func readPid(_ fd: FileDescriptor) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { (try? fd.read(into: $0, at: 0)) ?? 0 }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        let digits = text.drop { !$0.isNumber }.prefix { $0.isNumber }
        return Int32(digits).flatMap { $0 > 0 ? $0 : nil }
    }
}
