import PhotodropSystem

/// A probe that could not look at the file at all: an I/O error or a missing libmagic database. Content problems are
/// never errors; they are ``ProbeResult`` rejections.
public struct ProbeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of failure.
    public enum Code: Sendable, Equatable {
        /// libmagic could not be opened or could not load its compiled database.
        case magicDatabase
        /// A system call failed (`ENOENT`, `EACCES`, `EIO` …); retrying may help.
        case system(SystemError)
        /// The path is a directory, FIFO, device or socket.
        case notRegularFile
    }

    /// What kind of failure.
    public var code: Code
    /// The file concerned, when known.
    public var path: String?
    /// What failed, on which file, and what to do.
    public var message: String

    /// Creates an error.
    public init(code: Code, path: String?, message: String) {
        self.code = code
        self.path = path
        self.message = message
    }

    /// The message.
    public var description: String { message }

    /// The `errno` of an I/O failure.
    public var errno: Errno? {
        if case .system(let error) = code { return error.code }
        return nil
    }

    static func io(_ operation: String, errno e: Errno, path: String?) -> ProbeError {
        let what = path.map { "'\($0)'" } ?? "the file"
        let reason = SystemError.describe(e)
        var hint = ""
        switch e {
        case Errno.noSuchFileOrDirectory: hint = "; it was moved or deleted before it could be read"
        case Errno.permissionDenied, Errno.notPermitted: hint = "; give photodrop's user read permission on it"
        case Errno.ioError: hint = "; the disk or network share reported a read error, retry later"
        default: break
        }
        return ProbeError(
            code: .system(SystemError(code: e, call: operation, path: path)), path: path, message: "cannot \(operation) \(what): \(reason)\(hint)")
    }
}
