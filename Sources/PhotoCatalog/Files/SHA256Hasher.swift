import PhotodropSystem
import CCrypto
import Foundation

/// Incremental SHA-256 over OpenSSL's EVP interface (`EVP_sha256`).
///
/// Feed bytes with ``update(_:)`` as they are read, then take the lowercase hex digest with ``finalize()``. The
/// hasher owns an `EVP_MD_CTX` and is not copyable; use one per thread.
public struct SHA256Hasher: ~Copyable {
    private let context: OpaquePointer

    /// Creates a hasher (`EVP_MD_CTX_new` + `EVP_DigestInit_ex`).
    public init() {
        guard let context = EVP_MD_CTX_new() else {
            // Allocation failure of a few hundred bytes: the process is out of memory.
            fatalError("OpenSSL could not allocate a digest context (out of memory)")
        }
        EVP_DigestInit_ex(context, EVP_sha256(), nil)
        self.context = context
    }

    deinit { EVP_MD_CTX_free(context) }

    /// Adds bytes (`EVP_DigestUpdate`).
    public mutating func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        EVP_DigestUpdate(context, base, bytes.count)
    }

    /// Adds the bytes of `data`.
    public mutating func update(_ data: Data) {
        data.withUnsafeBytes { update($0) }
    }

    /// The digest of everything added, as 64 lowercase hex characters (`EVP_DigestFinal_ex`).
    public consuming func finalize() -> String {
        var digest = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context, &digest, &length)
        return SHA256Hasher.hex(digest.prefix(Int(length)))
    }

    /// The digest of `data`.
    public static func hash(_ data: Data) -> String {
        var hasher = SHA256Hasher()
        hasher.update(data)
        return hasher.finalize()
    }

    /// Hashes the file at `path` with reads into `buffer`, returning the digest and the number of bytes read.
    static func hashFile(atPath path: String, buffer: UnsafeMutableRawBufferPointer) throws -> (String, Int64) {
        let descriptor = try FileSystem.open(path, O_RDONLY)
        defer { LibC.close(descriptor) }
        return try hashFile(descriptor: descriptor, path: path, buffer: buffer)
    }

    /// Hashes an open file from its current offset with reads into `buffer`. Holes of a sparse file are hashed as
    /// the zeros they read as, without reading them (the kernel would zero-fill page cache for them).
    static func hashFile(descriptor: Int32, path: String, buffer: UnsafeMutableRawBufferPointer) throws -> (
        String, Int64
    ) {
        _ = posix_fadvise(descriptor, 0, 0, POSIX_FADV_SEQUENTIAL)
        var hasher = SHA256Hasher()
        var total: Int64 = 0
        var info = stat()
        let sparse = fstat(descriptor, &info) == 0 && Int64(info.st_blocks) * 512 < Int64(info.st_size)
        let size = Int64(info.st_size)
        var position = Int64(lseek(descriptor, 0, SEEK_CUR))
        var dataEnd = sparse ? position : Int64.max
        while true {
            if sparse && position >= dataEnd && position < size {
                let start = lseek(descriptor, off_t(position), SEEK_DATA)
                let dataStart = start >= 0 ? min(Int64(start), size) : (errno == ENXIO ? size : position)
                if dataStart > position {
                    buffer.initializeMemory(as: UInt8.self, repeating: 0)
                    while position < dataStart {
                        let count = Int(min(Int64(buffer.count), dataStart - position))
                        hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                        position += Int64(count)
                        total += Int64(count)
                    }
                }
                let hole = lseek(descriptor, off_t(position), SEEK_HOLE)
                dataEnd = hole > position ? Int64(hole) : Int64.max
                guard lseek(descriptor, off_t(position), SEEK_SET) == position else {
                    throw SystemError(code: errno, call: "lseek", path: path)
                }
            }
            let wanted = sparse ? Int(min(Int64(buffer.count), max(1, dataEnd - position))) : buffer.count
            let count = try FileSystem.check("read", path) { read(descriptor, buffer.baseAddress, wanted) }
            if count == 0 { break }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            total += Int64(count)
            position += Int64(count)
        }
        return (hasher.finalize(), total)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    static func hex(_ bytes: some Sequence<UInt8>) -> String {
        var text: [UInt8] = []
        text.reserveCapacity(64)
        for byte in bytes {
            text.append(hexDigits[Int(byte >> 4)])
            text.append(hexDigits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// Whether `text` looks like a SHA-256 digest: 64 lowercase hex characters.
    static func isDigest(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count == 64 && utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }
}
