import PhotodropSystem

/// Why an upload into the inbox was not taken; nothing of it stays in the inbox.
public enum UploadError: Error, Sendable, CustomStringConvertible {
    /// The body is larger than `serve.maxUploadBytes`.
    case tooLarge(Int64)
    /// A file of that name waits in the album's inbox folder.
    case nameTaken(String)
    /// The body's SHA-256 is not the one the client announced.
    case digestMismatch(expected: SHA256Digest, received: SHA256Digest)
    /// The inbox, its upload folder or the album's folder could not be opened, made or written.
    case inbox(SystemError)
    /// Writing the body failed (a full disk: `ENOSPC`).
    case write(SystemError)
    /// The upload could not be recorded in the catalog.
    case catalog(String)
    case `internal`(String)

    public var description: String {
        switch self {
        case .tooLarge(let limit):
            return "the file is larger than serve.maxUploadBytes (\(limit) bytes); nothing was kept"
        case .nameTaken(let path):
            return "a file named '\(path)' is waiting in the inbox; upload again once it is taken, or under another name"
        case .digestMismatch(let expected, let received):
            return "the body's SHA-256 is \(received.hex), not the \(expected.hex) the request named; nothing was kept"
        case .inbox(let error):
            return "cannot put the file into the inbox: \(error.description); check that serve may write the inbox"
        case .write(let error):
            return error.code == Errno.noSpace || error.code == Errno.diskQuotaExceeded
                ? "the inbox's disk is full; nothing was kept" : "cannot write the upload: \(error.description)"
        case .catalog(let message): return "cannot record the upload in the library: \(message)"
        case .internal(let message): return message
        }
    }
}
