import PhotodropSystem

/// Bounds-checked random access to the bytes of the file being probed: the first bytes (the head) are in memory, the
/// rest is read with `pread` on demand, never past ``size``.
///
/// One source serves one probe on one thread. It counts what it reads (``bytesRead``), which lets tests prove that a
/// probe reads headers, not whole files.
final class ByteSource {
    enum Backing {
        case descriptor(FileDescriptor)
        case memory([UInt8])
    }

    /// How many bytes from offset 0 are kept in ``head``.
    static let headLimit = 64 * 1024

    /// The size the probe judges against (the caller's `fstat`, or the buffer's length).
    let size: Int64
    /// Holds bytes `0..<headCount` of the file (the array may be longer; only `headCount` bytes are valid).
    let head: [UInt8]
    /// Valid bytes in ``head``: `min(size, headLimit)`, or fewer if the file shrank before it was read.
    let headCount: Int
    /// The file's path, for messages; `nil` for descriptors and buffers.
    let path: String?
    private let backing: Backing
    /// Bytes the caller already read (`0..<prefix.count`), valid for the duration of the probe.
    private let prefix: UnsafeRawBufferPointer?
    /// Bytes read from the descriptor (including the head when the prober read it).
    private(set) var bytesRead: Int64
    /// Number of `pread` calls.
    private(set) var readCalls = 0

    /// A source over a descriptor whose first `headCount` bytes are already in `head`.
    init(
        descriptor: FileDescriptor, size: Int64, head: [UInt8], headCount: Int, prefix: UnsafeRawBufferPointer?,
        path: String?, headBytesRead: Int64
    ) {
        self.size = size
        self.head = head
        self.headCount = headCount
        self.backing = .descriptor(descriptor)
        self.prefix = prefix
        self.path = path
        self.bytesRead = headBytesRead
    }

    /// A source over bytes in memory (tests, fuzzing).
    init(bytes: [UInt8]) {
        self.size = Int64(bytes.count)
        self.head = bytes
        self.headCount = min(bytes.count, Self.headLimit)
        self.backing = .memory(bytes)
        self.prefix = nil
        self.path = nil
        self.bytesRead = 0
    }

    /// A reader over the head.
    var headReader: ByteReader { ByteReader(head, range: 0..<headCount) }

    /// Bytes `offset..<offset+count`, or `nil` when that range is not inside the file (or the file shrank).
    func read(at offset: Int64, count: Int) throws(ProbeError) -> [UInt8]? {
        guard count >= 0, offset >= 0, offset <= size, Int64(count) <= size - offset else { return nil }
        if count == 0 { return [] }
        let end = offset + Int64(count)
        if end <= Int64(headCount) {
            return Array(head[Int(offset)..<Int(end)])
        }
        switch backing {
        case .memory(let bytes):
            return Array(bytes[Int(offset)..<Int(end)])
        case .descriptor(let fd):
            if let prefix, end <= Int64(prefix.count) {
                return Array(UnsafeRawBufferPointer(rebasing: prefix[Int(offset)..<Int(end)]))
            }
            var failure: Errno?
            var complete = true
            let result = [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
                var done = 0
                while done < count {
                    let n: Int
                    do throws(SystemError) {
                        n = try fd.read(
                            into: UnsafeMutableRawBufferPointer(start: buffer.baseAddress! + done, count: count - done),
                            at: offset + Int64(done))
                    } catch {
                        readCalls += 1
                        failure = error.code
                        break
                    }
                    readCalls += 1
                    if n == 0 {
                        complete = false
                        break
                    }
                    done += n
                }
                bytesRead += Int64(done)
                initialized = done
            }
            if let failure { throw ProbeError.io("read", errno: failure, path: path) }
            if !complete { return nil }  // the file shrank while being probed
            return result
        }
    }

    /// One byte, or `nil` outside the file.
    func u8(at offset: Int64) throws(ProbeError) -> UInt8? {
        if offset >= 0, offset < Int64(headCount) { return head[Int(offset)] }
        return try read(at: offset, count: 1)?.first
    }
}
