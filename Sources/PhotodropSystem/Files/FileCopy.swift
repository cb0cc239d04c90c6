import Glibc
import CLinux

/// Copying a file's bytes between two open descriptors, the cheapest way the file systems allow.
public enum FileCopy {
    /// How a copy was made.
    public enum Method: String, Sendable {
        /// `FICLONE`: the destination shares the source's blocks (btrfs, XFS); instant.
        case reflink
        /// `copy_file_range(2)`: copied in the kernel.
        case copyFileRange
        /// `read`/`write` through a buffer.
        case readWrite
    }

    /// Copies everything from `input` (from its start) to `output` (empty, at its start). `buffer` serves the
    /// `read`/`write` fallback. Names are for errors only.
    @discardableResult
    public static func copyContents(
        from input: FileDescriptor, to output: FileDescriptor, buffer: UnsafeMutableRawBufferPointer, source: String,
        destination: String
    ) throws(SystemError) -> Method {
        try copyContents(
            from: input.rawValue, to: output.rawValue, buffer: buffer, source: source, destination: destination)
    }

    static func copyContents(
        from input: Int32, to output: Int32, buffer: UnsafeMutableRawBufferPointer, source: String,
        destination: String
    ) throws(SystemError) -> Method {
        var info = stat()
        guard fstat(input, &info) == 0 else { throw SystemError.current("fstat", path: source) }
        let size = Int64(info.st_size)
        if size > 0, ioctl(output, photodrop_FICLONE, input) == 0 { return .reflink }
        if size > 0 && Int64(info.st_blocks) * 512 < size,
            let method = try copySparse(from: input, to: output, size: size, buffer: buffer, source: source,
                destination: destination)
        {
            return method
        }
        var copied: Int64 = 0
        var method = Method.readWrite
        if size > 0 {
            while copied < size {
                let count = photodrop_copy_file_range(input, output, UInt(min(size - copied, 1 << 30)))
                if count > 0 {
                    copied += Int64(count)
                    method = .copyFileRange
                    continue
                }
                if count == 0 { break }  // the source shrank; read/write below finds its real end
                let code = errno
                if code == EINTR { continue }
                if copied == 0, [EXDEV, ENOSYS, EOPNOTSUPP, EINVAL, EBADF, EPERM].contains(code) { break }
                throw SystemError(code: code, call: "copy_file_range", path: source)
            }
        }
        // read/write for the rest (everything, when copy_file_range was not possible).
        while try copyChunk(from: input, to: output, upTo: buffer.count, buffer: buffer, source, destination) > 0 {}
        return method
    }

    /// Copies only the data extents of a file with holes (`SEEK_DATA`/`SEEK_HOLE`), so that the copy has the same
    /// holes: a sparse 5 GB file does not become 5 GB of written zeros. Nil when the file system cannot say where the
    /// data is (then the caller copies everything).
    private static func copySparse(
        from input: Int32, to output: Int32, size: Int64, buffer: UnsafeMutableRawBufferPointer, source: String,
        destination: String
    ) throws(SystemError) -> Method? {
        var position: Int64 = 0
        while position < size {
            let start = lseek(input, off_t(position), SEEK_DATA)
            if start < 0 {
                if errno == ENXIO { break }  // only a hole is left
                if position == 0 { return nil }
                throw SystemError.current("lseek", path: source)
            }
            let end = min(Int64(lseek(input, start, SEEK_HOLE)), size)
            guard end > Int64(start), lseek(input, start, SEEK_SET) == start, lseek(output, start, SEEK_SET) == start
            else { throw SystemError.current("lseek", path: source) }
            var remaining = end - Int64(start)
            while remaining > 0 {
                let count = photodrop_copy_file_range(input, output, UInt(min(remaining, 1 << 30)))
                if count > 0 {
                    remaining -= Int64(count)
                    continue
                }
                if count < 0 && errno == EINTR { continue }
                // copy_file_range refused (or the file shrank): read and write this extent.
                let chunk = try copyChunk(
                    from: input, to: output, upTo: Int(min(Int64(buffer.count), remaining)), buffer: buffer, source,
                    destination)
                if chunk == 0 { break }
                remaining -= Int64(chunk)
            }
            position = end
        }
        guard ftruncate(output, off_t(size)) == 0 else { throw SystemError.current("ftruncate", path: destination) }
        return .copyFileRange
    }

    /// One `read` of at most `limit` bytes and the `write`s that put all of them out; returns the count (0 at the end).
    private static func copyChunk(
        from input: Int32, to output: Int32, upTo limit: Int, buffer: UnsafeMutableRawBufferPointer, _ source: String,
        _ destination: String
    ) throws(SystemError) -> Int {
        let count = retryingOnInterrupt { read(input, buffer.baseAddress, min(limit, buffer.count)) }
        if count < 0 { throw SystemError.current("read", path: source) }
        var written = 0
        while written < count {
            let result = retryingOnInterrupt { write(output, buffer.baseAddress! + written, count - written) }
            if result < 0 { throw SystemError.current("write", path: destination) }
            written += result
        }
        return count
    }
}
