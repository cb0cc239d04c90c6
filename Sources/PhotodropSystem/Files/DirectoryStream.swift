import Glibc
/// One open folder read with `opendir`/`readdir` (glibc reads it with `getdents64` in 32 KiB batches).
///
/// Entry types come from `d_type`, so a listing needs no `stat` per file except on file systems that report
/// `DT_UNKNOWN`, where `fstatat` (without following links) fills in. Not `Sendable`: it owns a `DIR*`.
public final class DirectoryStream {
    public enum EntryType: Sendable, Hashable {
        case directory
        case regular
        case symbolicLink
        case other
    }

    public struct Entry {
        /// The name, in ``FileNameEncoding`` form (bytes that are not valid UTF-8 are escaped, losslessly).
        public var name: String
        /// Whether the name is valid UTF-8 (no escapes).
        public var isValidUTF8: Bool
        public var type: EntryType
    }

    /// The folder, for messages.
    public let path: String
    private let handle: OpaquePointer

    /// Opens `path` for listing (links in `path` are followed: a root named by a person or the config).
    public convenience init(path: String) throws(SystemError) {
        try self.init(directory: Directory.open(atPath: path))
    }

    /// Lists `directory` through a descriptor of its own (its position is not shared with `directory`).
    public init(directory: Directory) throws(SystemError) {
        let fd = FileNameEncoding.withPlatformString(".") { dot in
            retryingOnInterrupt { openat(directory.descriptor.rawValue, dot, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        }
        guard fd >= 0 else { throw SystemError.current("openat", path: directory.path) }
        guard let handle = fdopendir(fd) else {
            let error = SystemError.current("fdopendir", path: directory.path)
            close(fd)
            throw error
        }
        self.path = directory.path
        self.handle = handle
    }

    deinit {
        closedir(handle)
    }

    /// The next entry other than `.` and `..`, or nil at the end.
    public func next() throws(SystemError) -> Entry? {
        while true {
            errno = 0
            guard let raw = readdir(handle) else {
                if errno != 0 { throw SystemError.current("readdir", path: path) }
                return nil
            }
            let nameLength = Int(raw.pointee.d_reclen) - MemoryLayout<dirent>.offset(of: \dirent.d_name)!
            let decoded: (String, Bool)? = withUnsafePointer(to: &raw.pointee.d_name) { tuple in
                tuple.withMemoryRebound(to: UInt8.self, capacity: max(nameLength, 1)) { bytes in
                    let count = strlen(UnsafeRawPointer(bytes).assumingMemoryBound(to: CChar.self))
                    if count == 1 && bytes[0] == UInt8(ascii: ".") { return nil }
                    if count == 2 && bytes[0] == UInt8(ascii: ".") && bytes[1] == UInt8(ascii: ".") { return nil }
                    let decoded = FileNameEncoding.string(fromBytes: UnsafeBufferPointer(start: bytes, count: count))
                    return (decoded.text, decoded.isValidUTF8)
                }
            }
            guard let (name, valid) = decoded else { continue }
            var type: EntryType
            switch Int32(raw.pointee.d_type) {
            case Int32(DT_DIR): type = .directory
            case Int32(DT_REG): type = .regular
            case Int32(DT_LNK): type = .symbolicLink
            case Int32(DT_UNKNOWN): type = .other
            default: type = .other
            }
            if Int32(raw.pointee.d_type) == Int32(DT_UNKNOWN) {
                var info = stat()
                let found = FileNameEncoding.withPlatformString(name) {
                    fstatat(dirfd(handle), $0, &info, AT_SYMLINK_NOFOLLOW)
                }
                if found == 0 {
                    switch info.st_mode & S_IFMT {
                    case S_IFDIR: type = .directory
                    case S_IFREG: type = .regular
                    case S_IFLNK: type = .symbolicLink
                    default: type = .other
                    }
                } else {
                    continue  // vanished between readdir and fstatat
                }
            }
            return Entry(name: name, isValidUTF8: valid, type: type)
        }
    }
}
