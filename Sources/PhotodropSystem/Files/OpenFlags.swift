import CLinux
import Glibc

/// The flags of `open(2)`, as a set. ``readOnly`` is the empty set's access mode.
public struct OpenFlags: OptionSet, Sendable, Hashable {
    public let rawValue: Int32

    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `O_RDONLY` (zero: the access mode when neither ``writeOnly`` nor ``readWrite`` is given).
    public static let readOnly = OpenFlags([])
    public static let writeOnly = OpenFlags(rawValue: O_WRONLY)
    public static let readWrite = OpenFlags(rawValue: O_RDWR)
    public static let create = OpenFlags(rawValue: O_CREAT)
    public static let exclusive = OpenFlags(rawValue: O_EXCL)
    public static let truncate = OpenFlags(rawValue: O_TRUNC)
    public static let append = OpenFlags(rawValue: O_APPEND)
    public static let noFollow = OpenFlags(rawValue: O_NOFOLLOW)
    public static let closeOnExec = OpenFlags(rawValue: O_CLOEXEC)
    public static let noControllingTerminal = OpenFlags(rawValue: O_NOCTTY)
    public static let nonBlocking = OpenFlags(rawValue: O_NONBLOCK)
    public static let directory = OpenFlags(rawValue: O_DIRECTORY)
    /// `O_NOATIME`: no access-time update (the owner or `CAP_FOWNER` only; see ``Directory``'s retry without it).
    public static var noAccessTime: OpenFlags { OpenFlags(rawValue: photodrop_O_NOATIME) }
}
