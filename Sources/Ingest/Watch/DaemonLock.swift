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

    /// Why the lock could not be taken.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// Another process holds it.
        case held(path: String, pid: Int32?)
        /// The library folder or the lock file could not be made or opened.
        case system(SystemError)
        /// The lock file was deleted or replaced while the daemon ran.
        case lost(path: String)

        public var description: String {
            switch self {
            case .held(let path, let pid):
                let who = pid.map { "process \($0)" } ?? "another process"
                return
                    "another photodrop watch (\(who)) is already running on this library (\(path) is locked); stop it first, or give this one another library in its config"
            case .system(let error):
                return "cannot take the watch lock: \(error.description)"
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
    public init(library: String) throws(Failure) {
        do {
            try FileSystem.makeDirectories(library)
        } catch {
            throw .system(error)
        }
        let path = Path.join(library, DaemonLock.fileName)
        let raw = retryingOnInterrupt { open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o640) }
        guard raw >= 0 else { throw .system(.current("open", path: path)) }
        let fd = FileDescriptor(owning: raw)
        if retryingOnInterrupt({ flock(raw, LOCK_EX | LOCK_NB) }) != 0 {
            let code = errno
            let pid = DaemonLock.readPid(raw)
            if code == EWOULDBLOCK { throw .held(path: path, pid: pid) }
            throw .system(SystemError(code: code, call: "flock", path: path))
        }
        self.path = path
        self.fd = fd
        let text = Array("\(getpid())\n".utf8)
        _ = ftruncate(raw, 0)
        _ = text.withUnsafeBytes { pwrite(raw, $0.baseAddress, $0.count, 0) }
        _ = fsync(raw)
    }

    /// Throws when the lock file at ``path`` is no longer the file this daemon locked (deleted with its library, or
    /// replaced): another daemon could then start beside this one, so this one must stop.
    public func checkStillHeld() throws(Failure) {
        var onDisk = stat()
        var held = stat()
        guard fstat(fd.rawValue, &held) == 0 else { throw .system(.current("fstat", path: path)) }
        if lstat(path, &onDisk) != 0 || FileNode(onDisk) != FileNode(held) {
            throw .lost(path: path)
        }
    }

    /// Clears the pid and gives the lock up (also happens when the process exits).
    public func release() {
        _ = ftruncate(fd.rawValue, 0)
        _ = flock(fd.rawValue, LOCK_UN)
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
    public static func inspect(library: String) -> State {
        let path = Path.join(library, fileName)
        let fd = retryingOnInterrupt { open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW) }
        guard fd >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .notRunning(stalePID: nil) }
            return .unknown("cannot open '\(path)': \(SystemError.describe(code))")
        }
        defer { close(fd) }
        let pid = readPid(fd)
        if retryingOnInterrupt({ flock(fd, LOCK_SH | LOCK_NB) }) == 0 {
            _ = flock(fd, LOCK_UN)
            return .notRunning(stalePID: pid)
        }
        let code = errno
        if code == EWOULDBLOCK { return .running(pid: pid) }
        return .unknown("cannot test the lock on '\(path)': \(SystemError.describe(code))")
    }

    /// When the daemon holding the lock took it (the lock file's modification time: the daemon writes its pid then).
    public static func lockedSince(library: String) -> UTCTimestamp? {
        var info = stat()
        guard lstat(Path.join(library, fileName), &info) == 0 else { return nil }
        return UTCTimestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int32(info.st_mtim.tv_nsec))
    }

    /// The first decimal number in the file (the daemon writes its pid and a newline); nil for none or zero.
    private static func readPid(_ fd: Int32) -> Int32? {
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[0..<count], as: UTF8.self)
        let digits = text.drop { !$0.isNumber }.prefix { $0.isNumber }
        return Int32(digits).flatMap { $0 > 0 ? $0 : nil }
    }
}
