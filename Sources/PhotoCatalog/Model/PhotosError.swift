import PhotodropSystem
import FoundationEssentials

/// An error of the photo library: PhotoKit's code (`PHPhotosError.Code`), a short title, a message that says what a
/// person can do, and the underlying cause (SQLite code and statement, or errno and path).
public struct PhotosError: Error, Sendable, CustomStringConvertible, LocalizedError {
    /// PhotoKit's error codes (raw values are PhotoKit's), plus ``invalidParameter`` for bad arguments.
    ///
    /// The errors of the classic "save to album" handler map onto them: ``unauthorized``, ``authCancelled``,
    /// ``albumNotExists``, ``saveFailed`` and ``unknown``.
    public enum Code: Int, Sendable, Hashable, Codable, CaseIterable {
        /// Something inside the library failed (a damaged database, an unexpected SQLite error).
        case internalError = -1
        /// The person or program cancelled.
        case userCancelled = 3072
        /// The persistent change token is older than the retained history.
        case persistentChangeTokenExpired = 3105
        /// The library's folder or volume is missing or went away.
        case libraryVolumeOffline = 3114
        /// No object has the identifier (or the album to save into does not exist).
        case identifierNotFound = 3201
        /// The change history for the request is not available (an unknown token).
        case persistentChangeDetailsUnavailable = 3210
        /// The change is not possible for this object (e.g. editing a smart album) or this place.
        case changeNotSupported = 3300
        /// A write did not complete (I/O error, busy database, interrupted save).
        case operationInterrupted = 3301
        /// A file given as a resource is unreadable, empty of a required part, or otherwise unusable.
        case invalidResource = 3302
        /// A file given as a resource does not exist.
        case missingResource = 3303
        /// The disk (or quota) is full.
        case notEnoughSpace = 3305
        /// The request does not apply to this asset.
        case requestNotSupportedForAsset = 3306
        /// The library is on read-only storage.
        case accessRestricted = 3310
        /// This user may not write the library.
        case accessUserDenied = 3311
        /// An argument is invalid (a bad predicate, a negative index, a change request outside `performChanges`).
        case invalidParameter = 3998

        /// The classic handler's "not authorised" (``accessUserDenied``; ``accessRestricted`` is its other form).
        public static var unauthorized: Code { .accessUserDenied }
        /// The classic handler's "authorisation cancelled".
        public static var authCancelled: Code { .userCancelled }
        /// The classic handler's "album could not be found or created".
        public static var albumNotExists: Code { .identifierNotFound }
        /// The classic handler's "the save failed".
        public static var saveFailed: Code { .operationInterrupted }
        /// The classic handler's "unknown error".
        public static var unknown: Code { .internalError }
    }

    /// What lay underneath an error.
    public enum Cause: Sendable, Hashable, CustomStringConvertible {
        /// SQLite failed (result codes, message, statement).
        case database(DatabaseError)
        /// A system call failed on a path.
        case io(operation: String, path: String, errno: Errno)
        /// Something else, described in words.
        case other(String)
        /// Journal entries a block consumes were gone when it committed (``JournalChangeRequest/consumeEntries(_:kind:)``):
        /// another node took them over (a photodrop addition).
        case journalEntriesGone([Int64])

        public var description: String {
            switch self {
            case .database(let error): return error.description
            case .io(let operation, let path, let code):
                return "\(operation) '\(path)': \(code) (errno \(code.rawValue))"
            case .other(let text): return text
            case .journalEntriesGone(let ids):
                return "journal entries gone: " + ids.map(String.init).joined(separator: ", ")
            }
        }
    }

    /// PhotoKit's code.
    public let code: Code
    /// A short headline, e.g. "Photo library not authorised".
    public let title: String
    /// What happened and what a person can do about it.
    public let message: String
    /// The underlying failure, when there was one.
    public let cause: Cause?

    /// An error with a code, a headline, what to do, and optionally its cause.
    public init(_ code: Code, title: String, message: String, cause: Cause? = nil) {
        self.code = code
        self.title = title
        self.message = message
        self.cause = cause
    }

    public var description: String {
        var text = "\(title): \(message)"
        if let cause { text += " [\(cause)]" }
        return text
    }

    public var errorDescription: String? { description }

    /// The errno of an I/O cause, if any.
    public var errno: Errno? {
        if case .io(_, _, let code) = cause { return code }
        return nil
    }
}

extension PhotosError {
    /// A change request was made where no `performChanges` block runs.
    static func outsideChangeBlock(_ what: String) -> PhotosError {
        PhotosError(
            .invalidParameter, title: "Change request outside performChanges",
            message: "\(what) can only be created inside a PhotoLibrary.performChanges block, on the thread that runs "
                + "the block; move the call into the block you pass to performChanges(_:) or performChangesAndWait(_:)."
        )
    }

    /// A bad argument.
    static func invalidParameter(_ message: String) -> PhotosError {
        PhotosError(.invalidParameter, title: "Invalid parameter", message: message)
    }

    /// No object for an identifier.
    static func notFound(_ what: String, identifier: String) -> PhotosError {
        PhotosError(
            .identifierNotFound, title: "\(what) not found",
            message: "No \(what.lowercased()) with identifier '\(identifier)' exists in this library (it may have been "
                + "deleted); fetch it again.")
    }

    /// Wraps a SQLite failure while doing `action` on the library at `path`.
    static func database(_ error: DatabaseError, action: String, library path: String) -> PhotosError {
        if error.isConnectionLost {
            // Not `.libraryVolumeOffline`: the library's files are where they were, and the server is expected back.
            return PhotosError(
                .operationInterrupted, title: "Catalog unreachable",
                message: "Could not \(action): the PostgreSQL catalog of the library at '\(path)' cannot be reached "
                    + "(\(error.message)). Check \"catalog.postgres\" (host, database, user), that the server runs and "
                    + "lets this user in (pg_hba.conf, \"catalog.passwordFile\").",
                cause: .database(error))
        }
        switch error.resultCode {
        case DatabaseError.full.resultCode:
            return PhotosError(
                .notEnoughSpace, title: "Not enough space",
                message:
                    "Could not \(action): the disk holding the library at '\(path)' is full. Free some space and retry.",
                cause: .database(error))
        case DatabaseError.readOnly.resultCode:
            return PhotosError(
                .accessRestricted, title: "Library is read-only",
                message: "Could not \(action): the library at '\(path)' cannot be written (read-only storage or "
                    + "permissions). Open it from a writable location.",
                cause: .database(error))
        case DatabaseError.busy.resultCode, 6 /* SQLITE_LOCKED */:
            return PhotosError(
                .operationInterrupted, title: "Library is busy",
                message: "Could not \(action): another process held the library at '\(path)' locked for too long. "
                    + "Retry; if it persists, look for a hung photodrop process.",
                cause: .database(error))
        case DatabaseError.corrupt.resultCode, DatabaseError.notADatabase.resultCode:
            return PhotosError(
                .internalError, title: "Library database is damaged",
                message: "Could not \(action): '\(path)/library.sqlite' is not a readable photodrop database. Restore "
                    + "it from a backup; the originals in '\(path)/originals' are untouched.",
                cause: .database(error))
        case DatabaseError.cantOpen.resultCode:
            return PhotosError(
                .libraryVolumeOffline, title: "Library cannot be opened",
                message: "Could not \(action): the database of the library at '\(path)' cannot be opened. Check that "
                    + "the folder exists, is mounted and is readable.",
                cause: .database(error))
        case DatabaseError.ioError.resultCode:
            return PhotosError(
                .operationInterrupted, title: "Library I/O error",
                message: "Could not \(action): reading or writing the library at '\(path)' failed. Check the disk "
                    + "and retry.",
                cause: .database(error))
        case DatabaseError.constraint.resultCode:
            return PhotosError(
                .operationInterrupted, title: "Change conflicts with the library",
                message: "Could not \(action): the change conflicts with the library's contents (another process "
                    + "may have changed it at the same time). Retry the change.",
                cause: .database(error))
        default:
            return PhotosError(
                .internalError, title: "Library error",
                message: "Could not \(action) in the library at '\(path)'.", cause: .database(error))
        }
    }

    /// Wraps a failed system call `operation` on `path`.
    static func io(_ operation: String, path: String, errno code: Errno, action: String) -> PhotosError {
        let cause = Cause.io(operation: operation, path: path, errno: code)
        switch code {
        case Errno.noSpace, Errno.diskQuotaExceeded:
            return PhotosError(
                .notEnoughSpace, title: "Not enough space",
                message: "Could not \(action): the disk or quota is full at '\(path)'. Free some space and retry.",
                cause: cause)
        case Errno.readOnlyFileSystem:
            return PhotosError(
                .accessRestricted, title: "Read-only storage",
                message: "Could not \(action): '\(path)' is on a read-only filesystem.", cause: cause)
        case Errno.permissionDenied, Errno.notPermitted:
            return PhotosError(
                .accessUserDenied, title: "Permission denied",
                message: "Could not \(action): this user may not access '\(path)'. Fix its permissions or run as its "
                    + "owner.", cause: cause)
        case Errno.noSuchFileOrDirectory:
            return PhotosError(
                .missingResource, title: "File not found",
                message: "Could not \(action): '\(path)' does not exist.", cause: cause)
        case Errno.isDirectory, Errno.notDirectory, Errno.tooManySymbolicLinkLevels:
            return PhotosError(
                .invalidResource, title: "Not a regular file",
                message: "Could not \(action): '\(path)' is not a regular file.", cause: cause)
        default:
            return PhotosError(
                .operationInterrupted, title: "I/O error",
                message: "Could not \(action): \(operation) of '\(path)' failed. Check the disk and retry.",
                cause: cause)
        }
    }

    /// A library written by a newer program.
    static func newerLibrary(_ error: MigrationError, path: String) -> PhotosError {
        PhotosError(
            .changeNotSupported, title: "Library is from a newer photodrop",
            message:
                "The library at '\(path)' uses a newer format than this program understands; use a newer photodrop.",
            cause: .other(error.description))
    }
}

extension PhotosError {
    /// Whether the PostgreSQL catalog could not be reached (refused, broken, the server restarting): files wait and
    /// are retried until it is back (a photodrop addition).
    public var isCatalogUnreachable: Bool {
        guard case .database(let cause)? = cause else { return false }
        return cause.isConnectionLost
    }

    /// Whether another connection held the database's lock past the busy timeout (`SQLITE_BUSY`, `SQLITE_LOCKED`):
    /// waiting and trying again will do.
    public var isDatabaseBusy: Bool {
        guard case .database(let cause)? = cause else { return false }
        return cause.resultCode == DatabaseError.busy.resultCode || cause.resultCode == 6
    }
}

extension SystemError {
    /// The library's error for this failure while doing `action` (`"store the original"`).
    func photosError(action: String) -> PhotosError {
        PhotosError.io(call, path: path ?? "", errno: code, action: action)
    }
}

extension PhotosError {
    /// The journal entries a block consumed that were no longer there when it committed (another node took them over
    /// after this one's lease ran out): nothing of the block was written. Empty for any other error.
    public var goneJournalEntries: [Int64] {
        if case .journalEntriesGone(let ids)? = cause { return ids }
        return []
    }

    static func journalEntriesGone(_ ids: [Int64], kind: String) -> PhotosError {
        PhotosError(
            .operationInterrupted, title: "Claim taken over",
            message: "The journal entries \(ids.map(String.init).joined(separator: ", ")) of kind '\(kind)' this change "
                + "consumes are gone: another node took them over after this one's lease ran out. Nothing was written; "
                + "the node that holds them now finishes their work.",
            cause: .journalEntriesGone(ids))
    }
}
