import CLinux

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

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
        from input: Int32, to output: Int32, buffer: UnsafeMutableRawBufferPointer, source: String,
        destination: String
    ) throws(SystemError) -> Method {
        var info = stat()
        guard fstat(input, &info) == 0 else { throw SystemError.current("fstat", path: source) }
        let size = Int64(info.st_size)
        if size > 0, ioctl(output, photodrop_FICLONE, input) == 0 { return .reflink }
        var copied: Int64 = 0
        var method = Method.readWrite
        if size > 0 {
            while copied < size {
                let count = photodrop_copy_file_range(input, output, Int(min(size - copied, 1 << 30)))
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
        while true {
            let count = retryingOnInterrupt { read(input, buffer.baseAddress, buffer.count) }
            if count < 0 { throw SystemError.current("read", path: source) }
            if count == 0 { break }
            var written = 0
            while written < count {
                let result = retryingOnInterrupt { write(output, buffer.baseAddress! + written, count - written) }
                if result < 0 { throw SystemError.current("write", path: destination) }
                written += result
            }
        }
        return method
    }
}
