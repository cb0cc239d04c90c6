import PhotodropSystem

/// Decides by content what a file is — photo, GIF, playable video, or rejected and why — and reads its metadata.
///
/// A prober wraps one libmagic cookie and a reusable read buffer, so it is confined to one thread: give each worker
/// its own (it is deliberately not `Sendable`). Probing reads headers, not whole files: the first 64 KiB, then only
/// what the structure points at (a movie header at the end of a 4 GB file costs a few small reads).
public final class MediaProber {
    /// Which codecs count as playable.
    public let policy: VideoPolicy
    private let magic: MagicCookie
    /// The head buffer, reused from probe to probe (`ByteSource.headLimit` bytes).
    private var buffer: [UInt8]

    /// Creates a prober with its own libmagic cookie.
    ///
    /// - Throws: ``ProbeError`` with code ``ProbeError/Code/magicDatabase`` when libmagic cannot load its compiled
    ///   database; the message names the database and says to install `libmagic-mgc`.
    public init(policy: VideoPolicy = .appleDefault) throws(ProbeError) {
        self.policy = policy
        self.magic = try MagicCookie()
        // Not zero-filled (its pages become resident only when a probe reads into them; a caller that passes its
        // own head never does). Only bytes a probe read into it are ever looked at.
        self.buffer = [UInt8](unsafeUninitializedCapacity: ByteSource.headLimit) { _, count in
            count = ByteSource.headLimit
        }
    }

    /// Opens the file read-only, probes it and closes it.
    ///
    /// - Throws: ``ProbeError`` only when the file cannot be read at all (`ENOENT`, `EACCES`, `EIO` …) or is not a
    ///   regular file. Content problems — truncated, broken, unsupported, empty — are rejections in the result.
    public func probe(path: String) throws(ProbeError) -> ProbeResult {
        let fd: FileDescriptor
        let info: FileStatus
        do throws(SystemError) {
            fd = try SourceFileOpener.openForReading(path, followingLinks: true)
        } catch {
            throw ProbeError.io("open", errno: error.code, path: path)
        }
        do throws(SystemError) { info = try fd.status() } catch {
            throw ProbeError.io("stat", errno: error.code, path: path)
        }
        guard info.isRegularFile else {
            throw ProbeError(
                code: .notRegularFile, path: path,
                message: "'\(path)' is not a regular file (a directory, FIFO, device or socket); nothing to probe")
        }
        return try probe(descriptor: fd, size: info.size, prefix: nil, path: path).result
    }

    /// Probes an open descriptor without moving its file offset.
    ///
    /// - Parameters:
    ///   - fileDescriptor: open for reading; it stays open.
    ///   - fileSize: the size from the caller's `fstat`; nothing at or after it is read.
    ///   - prefix: bytes `0..<prefix.count` of the file that the caller already read (e.g. while hashing); they are
    ///     used instead of reading again, and only what lies beyond them is read with `pread`.
    /// - Throws: ``ProbeError`` for I/O errors only.
    public func probe(fileDescriptor: FileDescriptor, fileSize: Int64, prefix: UnsafeRawBufferPointer?) throws(ProbeError)
        -> ProbeResult
    {
        try probe(descriptor: fileDescriptor, size: fileSize, prefix: prefix, path: nil).result
    }

    /// Probes an open descriptor whose first bytes the caller holds in an array, without copying them.
    ///
    /// - Parameters:
    ///   - head: its first `headCount` bytes are bytes `0..<headCount` of the file (the array may be longer). The
    ///     prober reads from it in place (an array is shared, not copied, while nobody writes to it), so a caller
    ///     that reads files into one reused array pays no copy per file; with ``probe(fileDescriptor:fileSize:prefix:)``
    ///     the prober copies the first 64 KiB into its own buffer.
    /// - Throws: ``ProbeError`` for I/O errors only.
    public func probe(fileDescriptor: FileDescriptor, fileSize: Int64, head: [UInt8], headCount: Int) throws(ProbeError)
        -> ProbeResult
    {
        let valid = max(0, min(headCount, head.count, Int(clamping: max(0, fileSize))))
        let outcome: Result<ProbeResult, ProbeError> = head.withUnsafeBytes { raw in
            let prefix = UnsafeRawBufferPointer(rebasing: raw[0..<valid])
            let wanted = Int(min(max(0, fileSize), Int64(ByteSource.headLimit)))
            do throws(ProbeError) {
                // The head must cover what the prober would read itself; if the caller's is shorter, read as usual.
                guard valid >= wanted else {
                    return .success(
                        try probe(descriptor: fileDescriptor, size: fileSize, prefix: prefix, path: nil).result)
                }
                let source = ByteSource(
                    descriptor: fileDescriptor, size: max(0, fileSize), head: head, headCount: wanted,
                    prefix: prefix, path: nil, headBytesRead: 0)
                return .success(try ContentClassifier.analyze(source, policy: policy, magic: magic))
            } catch {
                return .failure(error)
            }
        }
        return try outcome.get()
    }

    /// The probe, plus how many bytes it read from the descriptor and in how many `pread` calls (for tests and
    /// benchmarks).
    func probe(descriptor fd: FileDescriptor, size: Int64, prefix: UnsafeRawBufferPointer?, path: String?) throws(ProbeError)
        -> (result: ProbeResult, bytesRead: Int64, readCalls: Int)
    {
        let size = max(0, size)
        let wanted = Int(min(size, Int64(ByteSource.headLimit)))
        var have = 0
        if let prefix, let base = prefix.baseAddress {
            have = min(prefix.count, wanted)
            buffer.withUnsafeMutableBytes { $0.baseAddress!.copyMemory(from: base, byteCount: have) }
        }
        var readBytes: Int64 = 0
        var failure: Errno?
        if have < wanted {
            buffer.withUnsafeMutableBytes { raw in
                while have < wanted {
                    let n: Int
                    do throws(SystemError) {
                        n = try fd.read(
                            into: UnsafeMutableRawBufferPointer(rebasing: raw[have..<wanted]), at: Int64(have))
                    } catch {
                        failure = error.code
                        return
                    }
                    if n == 0 { return }
                    have += n
                    readBytes += Int64(n)
                }
            }
        }
        if let failure { throw ProbeError.io("read", errno: failure, path: path) }
        let source = ByteSource(
            descriptor: fd, size: size, head: buffer, headCount: have, prefix: prefix, path: path,
            headBytesRead: readBytes)
        let result = try ContentClassifier.analyze(source, policy: policy, magic: magic)
        return (result, source.bytesRead, source.readCalls + (readBytes > 0 ? 1 : 0))
    }
}

@available(*, unavailable, message: "a MediaProber owns a libmagic cookie: create one per thread")
extension MediaProber: Sendable {}
