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
    var resourceFileStatus: ResourceFileStatus {
        var status = identity.resourceFileStatus
        status.links = links
        status.owner = owner
        status.group = group
        status.mode = mode
        return status
    }
}

/// Reads a file once, front to back, through one reusable buffer, feeding ``PhotodropSystem/SHA256`` and keeping
/// the head for the probe.
///
/// - The first `headCapacity` bytes land in a region of their own and stay available after the read
///   (``head``), so a probe can look at the start of the file (libmagic, box headers) without reading it
///   again. The rest streams through a `chunkSize` region.
/// - Size, mtime and inode come from `fstat` on the descriptor before the first byte and are checked again after the
///   last; a change throws ``IngestFailure/changedWhileReading(path:)``.
/// - The hasher is reused, so a small file costs little more than its bytes.
///
/// Not `Sendable`: one reader per worker (it owns the buffer and the hasher).
public final class HashingFileReader {
    /// Bytes per read after the head.
    let chunkSize: Int
    /// Bytes kept from the start of the last file read.
    let headCapacity: Int

    /// Holds the head: an array, so that a prober can read it in place (``head``); never reallocated while
    /// nobody else holds it.
    private var headStorage: [UInt8]
    /// The chunks after the head.
    private let buffer: UnsafeMutableRawBufferPointer
    private var headLength = 0
    private var hasher: SHA256

    /// A reader with a `headCapacity + chunkSize` buffer (default 256 KiB + 1 MiB).
    public init(chunkSize: Int = 1 << 20, headCapacity: Int = 256 << 10) throws(IngestFailure) {
        precondition(chunkSize > 0 && headCapacity > 0, "buffer sizes must be positive")
        do { hasher = try SHA256() } catch { throw .crypto(error.call) }
        self.chunkSize = chunkSize
        self.headCapacity = headCapacity
        // Not zero-filled: 256 KiB of zeros are 64 resident pages per worker for nothing, since a page is only
        // touched when a file is that long. Bytes past `headLength` are never read (``head`` hands out
        // the count with the array), and the reads write before anything looks.
        self.headStorage = [UInt8](unsafeUninitializedCapacity: headCapacity) { _, count in count = headCapacity }
        self.buffer = .allocate(byteCount: chunkSize, alignment: 4096)
    }

    deinit {
        buffer.deallocate()
    }

    /// Reads and hashes an open descriptor from offset 0 (with `pread`, so its file offset does not matter);
    /// `path` is only used in errors. `progress` hears of every chunk after the head (bytes done, file size).
    public func read(
        fileDescriptor fd: FileDescriptor, path: String, progress: ((_ done: Int64, _ size: Int64) -> Void)? = nil
    ) throws(IngestFailure) -> FileDigest {
        headLength = 0
        let before: FileStatus
        do throws(SystemError) { before = try fd.status(path: path) } catch { throw .io(error) }
        guard before.isRegularFile else { throw IngestFailure.notRegularFile(path: path) }
        // Read-ahead hint for the chunked part only: a file that fits the head costs one pread and no hint.
        if before.size > headCapacity { fd.advise(.sequential) }

        // Reads stop at the size fstat gave, so a small file costs one pread (no extra read to see the end). A file
        // that grows or shrinks meanwhile is caught by the second fstat below.
        let size = before.size
        // The head: fill its region completely (or to the end of the file).
        let headWanted = Int(min(Int64(headCapacity), size))
        // (Array's `withUnsafe…Bytes` rethrow untyped errors: the results travel out as `Result`s.)
        let filled = headStorage.withUnsafeMutableBytes { storage in
            Result { () throws(IngestFailure) in
                try fill(UnsafeMutableRawBufferPointer(rebasing: storage[0..<headWanted]), from: fd, at: 0, path: path)
            }
        }
        let headCount = try filled.get()
        headLength = headCount
        var offset = Int64(headCount)
        if headCount > 0 {
            let hashed = headStorage.withUnsafeBytes { storage in
                Result { () throws(IngestFailure) in try update(UnsafeRawBufferPointer(rebasing: storage[0..<headCount])) }
            }
            try hashed.get()
        }
        // The rest, if the head was full. Holes of a sparse file are hashed without being read.
        if headCount == headCapacity {
            do {
                offset = try FileContent.forEachChunk(
                    of: fd, from: offset, to: size, isSparse: FileContent.isSparse(before), buffer: buffer, path: path
                ) { bytes, start in
                    try update(bytes)
                    progress?(start + Int64(bytes.count), size)
                }
            } catch let error as SystemError {
                throw .io(error)
            } catch let error as IngestFailure {
                throw error
            } catch {
                throw .unexpected(String(describing: error))
            }
        }

        let after: FileStatus
        do throws(SystemError) { after = try fd.status(path: path) } catch { throw .io(error) }
        let identity = FileIdentity(before)
        guard FileIdentity(after) == identity, offset == identity.size else {
            throw IngestFailure.changedWhileReading(path: path)
        }
        let digest: SHA256Digest
        do { digest = try hasher.finalize() } catch { throw IngestFailure.crypto(error.call) }
        return FileDigest(
            sha256: digest, identity: identity, links: after.linkCount, owner: after.owner, group: after.group,
            mode: after.mode)
    }

    /// The head of the file read last (its first bytes, up to ``headCapacity``; the whole file if it is smaller), as
    /// an array whose first `count` bytes are valid (the array is longer when the file was smaller than
    /// ``headCapacity``). Shared, not copied; holding it past the next read makes that read copy the array once.
    public var head: (bytes: [UInt8], count: Int) { (headStorage, headLength) }

    private func update(_ bytes: UnsafeRawBufferPointer) throws(IngestFailure) {
        do { try hasher.update(bytes) } catch { throw .crypto(error.call) }
    }

    /// Reads until `region` is full or the file ends; returns the byte count.
    private func fill(_ region: UnsafeMutableRawBufferPointer, from fd: FileDescriptor, at start: Int64, path: String)
        throws(IngestFailure) -> Int
    {
        do throws(SystemError) { return try fd.readFully(into: region, at: start, path: path) } catch {
            throw .io(error)
        }
    }
}
