import Glibc
import CCrypto

/// OpenSSL refused a call (it should not: SHA-256 needs no resources beyond its context).
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The OpenSSL function that failed.
    public var call: String

    public init(call: String) { self.call = call }

    public var description: String { "OpenSSL failed in \(call)" }
}

/// SHA-256 over OpenSSL's digest-level functions (`SHA256_Init`/`Update`/`Final`, through the `pd_sha256_*`
/// wrappers of `CCrypto`), checking every return code: the one hasher of photodrop.
///
/// Not EVP: its first fetch sets up OpenSSL's provider machinery, about 1.8 MB of resident memory per process that
/// a digest does not need (see `CCrypto/shim.h`); the assembly that hashes is the same. The context is reused after
/// ``finalize()``, so that hashing many small files costs little more than their bytes. Not copyable; one per
/// thread.
public struct SHA256: ~Copyable {
    private let context: UnsafeMutablePointer<SHA256_CTX>

    /// A hasher, ready for ``update(_:)``.
    public init() throws(CryptoError) {
        let context = UnsafeMutablePointer<SHA256_CTX>.allocate(capacity: 1)
        guard pd_sha256_init(context) == 1 else {
            context.deallocate()
            throw CryptoError(call: "SHA256_Init")
        }
        self.context = context
    }

    deinit {
        // The state holds a digest of what was hashed; clear it before the memory is reused.
        context.withMemoryRebound(to: UInt8.self, capacity: MemoryLayout<SHA256_CTX>.size) {
            $0.initialize(repeating: 0, count: MemoryLayout<SHA256_CTX>.size)
        }
        context.deallocate()
    }

    /// Adds bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard pd_sha256_update(context, base, bytes.count) == 1 else { throw CryptoError(call: "SHA256_Update") }
    }

    /// The digest of everything added since the start or the last `finalize`; the hasher starts over.
    public mutating func finalize() throws(CryptoError) -> SHA256Digest {
        var output: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        let finished = withUnsafeMutableBytes(of: &output) { raw in
            pd_sha256_final(raw.baseAddress!.assumingMemoryBound(to: UInt8.self), context) == 1
        }
        guard finished, let digest = withUnsafeBytes(of: &output, { SHA256Digest(bytes: $0) })
        else { throw CryptoError(call: "SHA256_Final") }
        guard pd_sha256_init(context) == 1 else { throw CryptoError(call: "SHA256_Init") }
        return digest
    }

    /// The digest of `bytes`.
    public static func digest(of bytes: some Sequence<UInt8>) throws(CryptoError) -> SHA256Digest {
        var hasher = try SHA256()
        var failure: CryptoError?
        let contiguous: Void? = bytes.withContiguousStorageIfAvailable { buffer in
            do throws(CryptoError) { try hasher.update(UnsafeRawBufferPointer(buffer)) } catch { failure = error }
        }
        if contiguous == nil {
            let copy = Array(bytes)
            copy.withUnsafeBytes { buffer in
                do throws(CryptoError) { try hasher.update(buffer) } catch { failure = error }
            }
        }
        if let failure { throw failure }
        return try hasher.finalize()
    }

    /// Hashes an open file from offset 0 to the size `fstat` gives, with reads into `buffer` (holes of a sparse file
    /// are hashed as the zeros they read as, without reading them); returns the digest and the byte count.
    public static func digest(
        ofFile descriptor: FileDescriptor, path: String, buffer: UnsafeMutableRawBufferPointer
    ) throws -> (SHA256Digest, Int64) {
        var hasher = try SHA256()
        let info = try descriptor.status(path: path)
        _ = posix_fadvise(descriptor.rawValue, 0, 0, POSIX_FADV_SEQUENTIAL)
        let count = try FileContent.forEachChunk(
            of: descriptor.rawValue, from: 0, to: info.size, isSparse: FileContent.isSparse(info), buffer: buffer,
            path: path
        ) { bytes, _ in try hasher.update(bytes) }
        return (try hasher.finalize(), count)
    }
}
