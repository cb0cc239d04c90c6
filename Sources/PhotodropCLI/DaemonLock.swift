import Foundation
import Ingest
import PhotodropSystem

/// Whether a `photodrop watch` daemon runs on a library: the daemon holds an exclusive `flock` on
/// `<library>/watch.lock` for its whole life and writes its pid into the file.
///
/// Tested with a non-blocking shared lock that is released at once; the file is opened read-only and never created.
enum DaemonLock {
    static let fileName = "watch.lock"

    enum State: Equatable {
        /// The lock is held; the pid from the file when it holds one.
        case running(pid: Int32?)
        /// Nobody holds the lock; `stalePID` is what an earlier daemon left in the file.
        case notRunning(stalePID: Int32?)
        /// The lock file exists but cannot be opened or locked.
        case unknown(String)
    }

    static func inspect(library: String) -> State {
        let path = library + "/" + fileName
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NOFOLLOW)
        guard descriptor >= 0 else {
            let code = errno
            if code == ENOENT || code == ENOTDIR { return .notRunning(stalePID: nil) }
            return .unknown("cannot open '\(path)': \(String(cString: strerror(code)))")
        }
        defer { close(descriptor) }
        let pid = readPID(descriptor)
        let result = retryingOnInterrupt { flock(descriptor, LOCK_SH | LOCK_NB) }
        if result == 0 {
            _ = flock(descriptor, LOCK_UN)
            return .notRunning(stalePID: pid)
        }
        let code = errno
        if code == EWOULDBLOCK { return .running(pid: pid) }
        return .unknown("cannot test the lock on '\(path)': \(String(cString: strerror(code)))")
    }

    /// When the daemon holding the lock took it (the lock file's modification time: the daemon writes its pid then).
    static func lockedSince(library: String) -> UTCTimestamp? {
        var info = stat()
        guard lstat(library + "/" + fileName, &info) == 0 else { return nil }
        return UTCTimestamp(seconds: Int64(info.st_mtim.tv_sec), nanoseconds: Int32(info.st_mtim.tv_nsec))
    }

    /// The first decimal number in the file (the daemon writes its pid, perhaps with a newline).
    private static func readPID(_ descriptor: Int32) -> Int32? {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: buffer[0..<count], as: UTF8.self)
        let digits = text.drop { !$0.isNumber }.prefix { $0.isNumber }
        return Int32(digits).flatMap { $0 > 0 ? $0 : nil }
    }
}
