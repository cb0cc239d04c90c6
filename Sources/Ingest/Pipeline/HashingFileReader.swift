import CCrypto
import MediaProbe
import PhotoCatalog
import PhotodropSystem

/// What reading a file once produced: its SHA-256 and the identity it had while being read.
public struct FileDigest: Sendable, Hashable {
    public var sha256: SHA256Digest
    /// From `fstat` on the open descriptor; checked again after the last byte, so it describes exactly the bytes
    /// that were hashed.
    public var identity: FileIdentity
    /// Link count, owner, group and mode from the same `fstat`.
    public var links: UInt64 = 1
    public var owner: UInt32 = 0
    public var group: UInt32 = 0
    public var mode: UInt32 = 0

    public var size: Int64 { identity.size }

    /// What the library records (and, for placing the file, trusts) about the file that was hashed.
    public var resourceFileStatus: ResourceFileStatus {
        var status = identity.resourceFileStatus
        status.links = links
        status.owner = owner
        status.group = group
        status.mode = mode
        return status
    }
}

/// Why a file could not be read and hashed.
public enum FileReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A system call failed.
    case system(SystemError)
    /// Not a regular file (a link, a folder, a device…).
    case notRegularFile(path: String)
    /// Size, mtime or inode changed between the first and the last byte: a writer is still at work. Retry later.
    case changedWhileReading(path: String)
    /// libcrypto failed (it should not: SHA-256 needs no resources).
    case crypto(String)

    public var description: String {
        switch self {
        case .system(let error): return error.description
        case .notRegularFile(let path): return "\(path) is not a regular file"
        case .changedWhileReading(let path):
            return "\(path) changed while it was being read; a writer is still at work, it will be tried again"
        case .crypto(let what): return "SHA-256 failed in libcrypto: \(what)"
        }
    }
}

/// Reads a file once, front to back, through one reusable buffer, feeding OpenSSL's SHA-256 and an optional visitor
/// (a content probe) from the same bytes.
///
/// - The first `headCapacity` bytes land in a region of their own and stay available after the read
///   (``head``), so a probe can look at the start of the file (libmagic, box headers) without reading it
///   again. The rest streams through a `chunkSize` region.
/// - Size, mtime and inode come from `fstat` on the descriptor before the first byte and are checked again after the
///   last; a change throws ``FileReadError/changedWhileReading(path:)``.
/// - The digest algorithm is fetched once (`EVP_MD_fetch`) and the context reused, so a small file costs little
///   more than its bytes.
///
/// Not `Sendable`: one reader per worker (it owns the buffer and the `EVP_MD_CTX`).
public final class HashingFileReader {
    /// Bytes per read after the head.
    public let chunkSize: Int
    /// Bytes kept from the start of the last file read.
    public let headCapacity: Int

    /// Holds the head: an array, so that a prober can read it in place (``head``); never reallocated while
    /// nobody else holds it.
    private var headStorage: [UInt8]
    /// The chunks after the head.
    private let buffer: UnsafeMutableRawBufferPointer
    private var headLength = 0
    private let algorithm: OpaquePointer
    private let context: OpaquePointer

    /// A reader with a `headCapacity + chunkSize` buffer (default 256 KiB + 1 MiB).
    public init(chunkSize: Int = 1 << 20, headCapacity: Int = 256 << 10) throws(FileReadError) {
        precondition(chunkSize > 0 && headCapacity > 0, "buffer sizes must be positive")
        guard let algorithm = EVP_MD_fetch(nil, "SHA256", nil) else { throw .crypto("EVP_MD_fetch(SHA256)") }
        guard let context = EVP_MD_CTX_new() else {
            EVP_MD_free(algorithm)
            throw .crypto("EVP_MD_CTX_new")
        }
        self.chunkSize = chunkSize
        self.headCapacity = headCapacity
        self.algorithm = algorithm
        self.context = context
        // Not zero-filled: 256 KiB of zeros are 64 resident pages per worker for nothing, since a page is only
        // touched when a file is that long. Bytes past `headLength` are never read (``head`` hands out
        // the count with the array), and the reads write before anything looks.
        self.headStorage = [UInt8](unsafeUninitializedCapacity: headCapacity) { _, count in count = headCapacity }
        self.buffer = .allocate(byteCount: chunkSize, alignment: 4096)
    }

    deinit {
        EVP_MD_CTX_free(context)
        EVP_MD_free(algorithm)
        buffer.deallocate()
    }

    /// Opens `path` (never following a symbolic link), reads and hashes it, and closes it.
    ///
    /// `visit` sees every byte once, in order, as `(chunk, offsetOfChunk)`; the first call covers the head.
    public func read(
        path: String, visit: (UnsafeRawBufferPointer, Int64) throws -> Void = { _, _ in }
    ) throws -> FileDigest {
        let fd = SourceFileOpener.openForReading(path)
        guard fd >= 0 else {
            if errno == ELOOP { throw FileReadError.notRegularFile(path: path) }
            throw FileReadError.system(.current("open", path: path))
        }
        defer { close(fd) }
        return try read(fileDescriptor: fd, path: path, visit: visit)
    }

    /// Reads and hashes an open descriptor from offset 0 (with `pread`, so its file offset does not matter);
    /// `path` is only used in errors.
    public func read(
        fileDescriptor fd: Int32, path: String, visit: (UnsafeRawBufferPointer, Int64) throws -> Void = { _, _ in }
    ) throws -> FileDigest {
        headLength = 0
        var before = stat()
        guard fstat(fd, &before) == 0 else { throw FileReadError.system(.current("fstat", path: path)) }
        guard before.st_mode & S_IFMT == S_IFREG else { throw FileReadError.notRegularFile(path: path) }
        // Read-ahead hint for the chunked part only: a file that fits the head costs one pread and no hint.
        if before.st_size > headCapacity { _ = posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL) }
        guard EVP_DigestInit_ex2(context, algorithm, nil) == 1 else { throw FileReadError.crypto("EVP_DigestInit_ex2") }

        // Reads stop at the size fstat gave, so a small file costs one pread (no extra read to see the end). A file
        // that grows or shrinks meanwhile is caught by the second fstat below.
        let size = Int64(before.st_size)
        // The head: fill its region completely (or to the end of the file).
        let headWanted = Int(min(Int64(headCapacity), size))
        let headCount = try headStorage.withUnsafeMutableBytes { storage in
            try fill(UnsafeMutableRawBufferPointer(rebasing: storage[0..<headWanted]), from: fd, at: 0, path: path)
        }
        headLength = headCount
        var offset = Int64(headCount)
        if headCount > 0 {
            try headStorage.withUnsafeBytes { storage in
                let bytes = UnsafeRawBufferPointer(rebasing: storage[0..<headCount])
                try update(bytes)
                try visit(bytes, 0)
            }
        }
        // The rest, if the head was full.
        if headCount == headCapacity {
            let chunk = buffer
            // A file with holes (fewer blocks than bytes): holes are hashed as the zeros they read as, without
            // reading them, so that the kernel does not zero-fill page cache for gigabytes of nothing.
            let sparse = Int64(before.st_blocks) * 512 < size
            var dataEnd = sparse ? offset : size
            while offset < size {
                if offset >= dataEnd {
                    let start = lseek(fd, off_t(offset), SEEK_DATA)
                    let dataStart = start >= 0 ? min(Int64(start), size) : (errno == ENXIO ? size : offset)
                    while offset < dataStart {
                        let count = Int(min(Int64(HashingFileReader.zeros.count), dataStart - offset))
                        let bytes = UnsafeRawBufferPointer(rebasing: HashingFileReader.zeros[0..<count])
                        try update(bytes)
                        try visit(bytes, offset)
                        offset += Int64(count)
                    }
                    if offset >= size { break }
                    let hole = lseek(fd, off_t(offset), SEEK_HOLE)
                    dataEnd = hole > offset ? min(Int64(hole), size) : size
                }
                let wanted = Int(min(Int64(chunk.count), min(size, dataEnd) - offset))
                let count = retryingOnInterrupt { pread(fd, chunk.baseAddress, wanted, off_t(offset)) }
                if count < 0 { throw FileReadError.system(.current("read", path: path)) }
                if count == 0 { break }
                let bytes = UnsafeRawBufferPointer(rebasing: chunk[0..<count])
                try update(bytes)
                try visit(bytes, offset)
                offset += Int64(count)
            }
        }

        var after = stat()
        guard fstat(fd, &after) == 0 else { throw FileReadError.system(.current("fstat", path: path)) }
        let identity = FileIdentity(before)
        guard FileIdentity(after) == identity, offset == identity.size else {
            throw FileReadError.changedWhileReading(path: path)
        }
        var output = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &output, &length) == 1, length == 32,
            let digest = SHA256Digest(bytes: output[0..<32])
        else { throw FileReadError.crypto("EVP_DigestFinal_ex") }
        return FileDigest(
            sha256: digest, identity: identity, links: UInt64(after.st_nlink), owner: after.st_uid, group: after.st_gid,
            mode: after.st_mode)
    }

    /// 1 MiB of zeros: what a hole of a sparse file reads as.
    /// Allocated once, never freed (`calloc`: the pages stay untouched until a sparse file is read); read only, by
    /// any number of threads.
    nonisolated(unsafe) private static let zeros: UnsafeRawBufferPointer = {
        let count = 1 << 20
        return UnsafeRawBufferPointer(start: calloc(count, 1), count: count)
    }()

    /// The head of the file read last (its first bytes, up to ``headCapacity``; the whole file if it is smaller), as
    /// an array whose first `count` bytes are valid (the array is longer when the file was smaller than
    /// ``headCapacity``). Shared, not copied; holding it past the next read makes that read copy the array once.
    public var head: (bytes: [UInt8], count: Int) { (headStorage, headLength) }

    private func update(_ bytes: UnsafeRawBufferPointer) throws(FileReadError) {
        guard EVP_DigestUpdate(context, bytes.baseAddress, bytes.count) == 1 else {
            throw .crypto("EVP_DigestUpdate")
        }
    }

    /// Reads until `region` is full or the file ends; returns the byte count.
    private func fill(_ region: UnsafeMutableRawBufferPointer, from fd: Int32, at start: Int64, path: String)
        throws(FileReadError) -> Int
    {
        var filled = 0
        while filled < region.count {
            let count = retryingOnInterrupt {
                pread(fd, region.baseAddress! + filled, region.count - filled, off_t(start + Int64(filled)))
            }
            if count < 0 { throw .system(.current("read", path: path)) }
            if count == 0 { break }
            filled += count
        }
        return filled
    }
}
