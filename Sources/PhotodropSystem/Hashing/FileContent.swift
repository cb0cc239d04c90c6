import Glibc
/// Reading a file's bytes in order, once, for hashing: the part both the workers' hashing reader and the library's
/// own checks share.
public enum FileContent {
    /// Whether a file has holes (fewer blocks than bytes).
    public static func isSparse(_ info: FileStatus) -> Bool { info.allocatedBlocks * 512 < info.size }

    /// Calls `body` with the bytes of `descriptor` from `start` up to `end`, in order, as `(chunk, offset)`, with
    /// `pread` into `buffer` (the descriptor's offset does not matter). In a sparse file, holes are passed as the
    /// zeros they read as without reading them, so that the kernel does not zero-fill page cache for gigabytes of
    /// nothing. Stops early at the file's end; returns the offset reached.
    @discardableResult
    public static func forEachChunk(
        of file: FileDescriptor, from start: Int64, to end: Int64, isSparse: Bool, buffer: UnsafeMutableRawBufferPointer,
        path: String, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void
    ) throws -> Int64 {
        try forEachChunk(
            of: file.rawValue, from: start, to: end, isSparse: isSparse, buffer: buffer, path: path, body)
    }

    @discardableResult
    static func forEachChunk(
        of descriptor: Int32, from start: Int64, to end: Int64, isSparse: Bool, buffer: UnsafeMutableRawBufferPointer,
        path: String, _ body: (UnsafeRawBufferPointer, Int64) throws -> Void
    ) throws -> Int64 {
        var offset = start
        var dataEnd = isSparse ? offset : end
        while offset < end {
            if offset >= dataEnd {
                let found = lseek(descriptor, off_t(offset), SEEK_DATA)
                let dataStart = found >= 0 ? min(Int64(found), end) : (errno == ENXIO ? end : offset)
                while offset < dataStart {
                    let count = Int(min(Int64(zeros.count), dataStart - offset))
                    try body(UnsafeRawBufferPointer(rebasing: zeros[0..<count]), offset)
                    offset += Int64(count)
                }
                if offset >= end { break }
                let hole = lseek(descriptor, off_t(offset), SEEK_HOLE)
                dataEnd = hole > offset ? min(Int64(hole), end) : end
            }
            let wanted = Int(min(Int64(buffer.count), min(end, dataEnd) - offset))
            let count = try FileSystem.check("read", path) {
                pread(descriptor, buffer.baseAddress, wanted, off_t(offset))
            }
            if count == 0 { break }
            try body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]), offset)
            offset += Int64(count)
        }
        return offset
    }

    /// 1 MiB of zeros: what a hole reads as. Allocated once, never freed (`calloc`: the pages stay untouched until
    /// a sparse file is read); read only, by any number of threads.
    nonisolated(unsafe) private static let zeros: UnsafeRawBufferPointer = {
        let count = 1 << 20
        return UnsafeRawBufferPointer(start: calloc(count, 1), count: count)
    }()
}
