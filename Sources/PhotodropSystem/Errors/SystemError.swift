import Glibc
/// A failed system call: which call, on which path, and the `errno` it returned.
///
/// The description reads like `open("/srv/Inbox/a.jpg") failed: Permission denied (errno 13)`, so that it can be
/// shown to a person as it is.
public struct SystemError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The `errno` value.
    public var code: Errno
    /// The name of the C function that failed, e.g. `"inotify_add_watch"`.
    public var call: String
    /// The path the call was about, if any.
    public var path: String?

    /// Creates an error from an explicit `errno` value.
    public init(code: Errno, call: String, path: String? = nil) {
        self.code = code
        self.call = call
        self.path = path
    }

    /// Captures the current thread's `errno`.
    public static func current(_ call: String, path: String? = nil) -> SystemError {
        SystemError(code: .current, call: call, path: path)
    }

    /// `strerror` text for ``code``.
    public var reason: String { SystemError.describe(code) }

    public var description: String {
        let subject = path.map { "\(call)(\"\(FileNameEncoding.displayText($0))\")" } ?? call
        return "\(subject) failed: \(reason) (errno \(code.rawValue))"
    }

    /// `strerror_r` wrapped into a Swift string.
    public static func describe(_ errno: Errno) -> String {
        let code = errno.rawValue
        var buffer = [CChar](repeating: 0, count: 256)
        // Glibc imports the XSI variant: 0 on success, the text in `buffer`.
        let text: String = buffer.withUnsafeMutableBufferPointer { pointer in
            guard let base = pointer.baseAddress, strerror_r(code, base, pointer.count) == 0 else {
                return "error \(code)"
            }
            return String(cString: base)
        }
        return text
    }
}

/// Calls `body` again while it fails with `EINTR`, the way swift-system's syscall helpers do.
@inline(__always)
func retryingOnInterrupt<T: FixedWidthInteger>(_ body: () -> T) -> T {
    while true {
        let result = body()
        if result == -1 && errno == EINTR { continue }
        return result
    }
}

extension SystemError {
    /// An error from a raw `errno` value, for this module's own calls.
    init(code: Int32, call: String, path: String? = nil) {
        self.init(code: Errno(rawValue: code), call: call, path: path)
    }
}
