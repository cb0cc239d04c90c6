#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// One open folder read with `opendir`/`readdir` (glibc reads it with `getdents64` in 32 KiB batches).
///
/// Entry types come from `d_type`, so a listing needs no `stat` per file except on file systems that report
/// `DT_UNKNOWN`, where `fstatat` (without following links) fills in. Not `Sendable`: it owns a `DIR*`.
final class DirectoryStream {
    enum EntryType: Sendable, Hashable {
        case directory
        case regular
        case symbolicLink
        case other
    }

    struct Entry {
        /// The name; when ``isValidUTF8`` is false, invalid bytes are replaced by U+FFFD (fine for messages only).
        var name: String
        var isValidUTF8: Bool
        var type: EntryType
    }

    let path: String
    private let handle: OpaquePointer

    /// Opens `path` for listing.
    init(path: String) throws(SystemError) {
        guard let handle = opendir(path) else { throw SystemError.current("opendir", path: path) }
        self.path = path
        self.handle = handle
    }

    deinit {
        closedir(handle)
    }

    /// The next entry other than `.` and `..`, or nil at the end.
    func next() throws(SystemError) -> Entry? {
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
                    let buffer = UnsafeBufferPointer(start: bytes, count: count)
                    if let valid = String(validating: buffer, as: UTF8.self) { return (valid, true) }
                    return (String(decoding: buffer, as: UTF8.self), false)
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
                if fstatat(dirfd(handle), name, &info, AT_SYMLINK_NOFOLLOW) == 0 {
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
