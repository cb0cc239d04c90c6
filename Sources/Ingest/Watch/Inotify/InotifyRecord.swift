import PhotodropSystem

/// One raw `struct inotify_event` as the kernel wrote it, decoded without touching the C struct's `name` member
/// (which Swift does not import: it is a flexible array member).
struct InotifyRecord: Sendable, Hashable {
    /// The watch descriptor, or -1 for `IN_Q_OVERFLOW`.
    var watch: Int32
    var mask: UInt32
    var cookie: UInt32
    /// The name inside the watched folder; empty for events on the folder itself.
    var name: String
    /// False when the name is not valid UTF-8 (then `name` holds its stray bytes escaped, see `FileNameEncoding`).
    var nameIsValidUTF8: Bool

    /// The fixed part of `struct inotify_event`: `wd`, `mask`, `cookie`, `len`.
    static let headerSize = 16

    /// Decodes every complete record in `buffer` (what one `read(2)` of an inotify descriptor returned).
    ///
    /// The kernel only returns whole records; a truncated tail (which it never produces) is ignored rather than
    /// trusted.
    static func decode(_ buffer: UnsafeRawBufferPointer) -> [InotifyRecord] {
        var records: [InotifyRecord] = []
        var offset = 0
        while offset + headerSize <= buffer.count {
            let watch = buffer.loadUnaligned(fromByteOffset: offset, as: Int32.self)
            let mask = buffer.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self)
            let cookie = buffer.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self)
            let length = Int(buffer.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
            let nameStart = offset + headerSize
            guard nameStart + length <= buffer.count else { break }
            // `len` counts the NUL terminator and padding; the name ends at the first NUL.
            var nameEnd = nameStart
            while nameEnd < nameStart + length && buffer[nameEnd] != 0 { nameEnd += 1 }
            let bytes = UnsafeRawBufferPointer(rebasing: buffer[nameStart..<nameEnd])
            let decoded = FileNameEncoding.string(fromBytes: bytes.assumingMemoryBound(to: UInt8.self))
            records.append(
                InotifyRecord(
                    watch: watch, mask: mask, cookie: cookie, name: decoded.text,
                    nameIsValidUTF8: decoded.isValidUTF8 || bytes.isEmpty))
            offset = nameStart + length
        }
        return records
    }
}
