import Glibc

/// An inotify instance (`inotify_init1(IN_NONBLOCK | IN_CLOEXEC)`): folders to watch, and the kernel's event
/// records to read.
public final class Inotify: Sendable {
    /// What a watch reports, and the flags that come back with an event.
    public struct Events: OptionSet, Sendable, Hashable {
        public let rawValue: UInt32
        public init(rawValue: UInt32) { self.rawValue = rawValue }

        public static let modified = Events(rawValue: UInt32(IN_MODIFY))
        public static let attributesChanged = Events(rawValue: UInt32(IN_ATTRIB))
        public static let closedWrite = Events(rawValue: UInt32(IN_CLOSE_WRITE))
        public static let movedFrom = Events(rawValue: UInt32(IN_MOVED_FROM))
        public static let movedTo = Events(rawValue: UInt32(IN_MOVED_TO))
        public static let created = Events(rawValue: UInt32(IN_CREATE))
        public static let deleted = Events(rawValue: UInt32(IN_DELETE))
        public static let deletedSelf = Events(rawValue: UInt32(IN_DELETE_SELF))
        public static let movedSelf = Events(rawValue: UInt32(IN_MOVE_SELF))
        /// Flags of a watch.
        public static let onlyDirectory = Events(rawValue: UInt32(IN_ONLYDIR))
        public static let doNotFollow = Events(rawValue: UInt32(IN_DONT_FOLLOW))
        public static let excludeUnlinked = Events(rawValue: UInt32(IN_EXCL_UNLINK))
        /// Flags of an event.
        public static let unmounted = Events(rawValue: UInt32(IN_UNMOUNT))
        public static let queueOverflowed = Events(rawValue: UInt32(IN_Q_OVERFLOW))
        public static let ignored = Events(rawValue: UInt32(IN_IGNORED))
        public static let isDirectory = Events(rawValue: UInt32(IN_ISDIR))
    }

    /// The instance's descriptor (readable when events wait).
    public let descriptor: FileDescriptor

    /// A new instance; throws `EMFILE` when `fs.inotify.max_user_instances` is reached.
    public init() throws(SystemError) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { throw SystemError.current("inotify_init1") }
        descriptor = FileDescriptor(owning: fd)
    }

    /// Watches the folder at `path` (a path in ``FileNameEncoding`` form) for `events`: the watch number.
    public func addWatch(_ path: String, for events: Events) throws(SystemError) -> Int32 {
        let watch = FileNameEncoding.withPlatformString(path) { inotify_add_watch(descriptor.rawValue, $0, events.rawValue) }
        guard watch >= 0 else { throw SystemError.current("inotify_add_watch", path: path) }
        return watch
    }

    /// Watches an open folder, through `/proc/self/fd`, so that no link on its path is followed.
    public func addWatch(_ folder: Directory, for events: Events) throws(SystemError) -> Int32 {
        let watch = inotify_add_watch(
            descriptor.rawValue, "/proc/self/fd/\(folder.descriptor.rawValue)", events.rawValue)
        guard watch >= 0 else { throw SystemError.current("inotify_add_watch", path: folder.path) }
        return watch
    }

    /// Stops a watch (an unknown one is ignored).
    public func removeWatch(_ watch: Int32) {
        _ = inotify_rm_watch(descriptor.rawValue, watch)
    }

    /// Reads waiting event records into `buffer`: the bytes read, 0 when none wait.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int {
        do { return try descriptor.read(into: buffer) } catch where error.code == .wouldBlock { return 0 }
    }

    /// The most watches one user may hold (`/proc/sys/fs/inotify/max_user_watches`), if it can be read.
    public static var maximumWatchesPerUser: Int? {
        guard let file = try? FileSystem.open("/proc/sys/fs/inotify/max_user_watches", .readOnly),
            let bytes = try? file.readToEnd(limit: 64)
        else { return nil }
        return Int(String(decoding: bytes, as: UTF8.self).trimmingWhitespaceAndNewlines())
    }
}
