import Glibc

/// An `errno` value, by the name swift-system gives it, so that code above this module can tell one failure from
/// another without the C constants.
public struct Errno: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// The calling thread's `errno`.
    public static var current: Errno { Errno(rawValue: errno) }

    /// `strerror` text.
    public var description: String { SystemError.describe(self) }

    public static let notPermitted = Errno(rawValue: EPERM)
    public static let noSuchFileOrDirectory = Errno(rawValue: ENOENT)
    public static let interrupted = Errno(rawValue: EINTR)
    public static let ioError = Errno(rawValue: EIO)
    public static let noSuchAddressOrDevice = Errno(rawValue: ENXIO)
    public static let badFileDescriptor = Errno(rawValue: EBADF)
    public static let noChildProcess = Errno(rawValue: ECHILD)
    public static let resourceTemporarilyUnavailable = Errno(rawValue: EAGAIN)
    /// The same value as ``resourceTemporarilyUnavailable`` on Linux.
    public static let wouldBlock = Errno(rawValue: EWOULDBLOCK)
    public static let noMemory = Errno(rawValue: ENOMEM)
    public static let permissionDenied = Errno(rawValue: EACCES)
    public static let resourceBusy = Errno(rawValue: EBUSY)
    public static let fileExists = Errno(rawValue: EEXIST)
    public static let improperLink = Errno(rawValue: EXDEV)
    public static let notDirectory = Errno(rawValue: ENOTDIR)
    public static let isDirectory = Errno(rawValue: EISDIR)
    public static let invalidArgument = Errno(rawValue: EINVAL)
    public static let tooManyOpenFiles = Errno(rawValue: EMFILE)
    public static let fileTooLarge = Errno(rawValue: EFBIG)
    public static let noSpace = Errno(rawValue: ENOSPC)
    public static let readOnlyFileSystem = Errno(rawValue: EROFS)
    public static let tooManyLinks = Errno(rawValue: EMLINK)
    public static let brokenPipe = Errno(rawValue: EPIPE)
    public static let fileNameTooLong = Errno(rawValue: ENAMETOOLONG)
    public static let noFunction = Errno(rawValue: ENOSYS)
    public static let directoryNotEmpty = Errno(rawValue: ENOTEMPTY)
    public static let tooManySymbolicLinkLevels = Errno(rawValue: ELOOP)
    public static let notSupported = Errno(rawValue: EOPNOTSUPP)
    public static let connectionReset = Errno(rawValue: ECONNRESET)
    public static let timedOut = Errno(rawValue: ETIMEDOUT)
    public static let staleNFSFileHandle = Errno(rawValue: ESTALE)
    public static let diskQuotaExceeded = Errno(rawValue: EDQUOT)
    public static let noData = Errno(rawValue: ENODATA)
}
