import CCrypto

/// OpenSSL refused a call (it should not: SHA-256 needs no resources beyond a few hundred bytes).
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The OpenSSL function that failed.
    public var call: String

    public init(call: String) { self.call = call }

    public var description: String { "OpenSSL failed in \(call)" }
}

/// SHA-256 over OpenSSL's EVP interface, checking every return code: the one hasher of photodrop.
///
/// The algorithm is fetched once (`EVP_MD_fetch`) and the context is reused after ``finalize()``, so that hashing
/// many small files costs little more than their bytes. Not copyable; one per thread.
public struct SHA256: ~Copyable {
    private let algorithm: OpaquePointer
    private let context: OpaquePointer

    /// A hasher, ready for ``update(_:)``.
    public init() throws(CryptoError) {
        guard let algorithm = EVP_MD_fetch(nil, "SHA256", nil) else { throw CryptoError(call: "EVP_MD_fetch(SHA256)") }
        guard let context = EVP_MD_CTX_new() else {
            EVP_MD_free(algorithm)
            throw CryptoError(call: "EVP_MD_CTX_new")
        }
        guard EVP_DigestInit_ex2(context, algorithm, nil) == 1 else {
            EVP_MD_CTX_free(context)
            EVP_MD_free(algorithm)
            throw CryptoError(call: "EVP_DigestInit_ex2")
        }
        self.algorithm = algorithm
        self.context = context
    }

    deinit {
        EVP_MD_CTX_free(context)
        EVP_MD_free(algorithm)
    }

    /// Adds bytes.
    public mutating func update(_ bytes: UnsafeRawBufferPointer) throws(CryptoError) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        guard EVP_DigestUpdate(context, base, bytes.count) == 1 else { throw CryptoError(call: "EVP_DigestUpdate") }
    }

    /// The digest of everything added since the start or the last `finalize`; the hasher starts over.
    public mutating func finalize() throws(CryptoError) -> SHA256Digest {
        var output: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0, 0, 0)
        var length: UInt32 = 0
        let finished = withUnsafeMutableBytes(of: &output) { raw in
            EVP_DigestFinal_ex(context, raw.baseAddress!.assumingMemoryBound(to: UInt8.self), &length) == 1
        }
        guard finished, length == 32,
            let digest = withUnsafeBytes(of: &output, { SHA256Digest(bytes: UnsafeRawBufferPointer(rebasing: $0[0..<32])) })
        else { throw CryptoError(call: "EVP_DigestFinal_ex") }
        guard EVP_DigestInit_ex2(context, algorithm, nil) == 1 else { throw CryptoError(call: "EVP_DigestInit_ex2") }
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
            of: descriptor.rawValue, from: 0, to: Int64(info.st_size), isSparse: FileContent.isSparse(info), buffer: buffer,
            path: path
        ) { bytes, _ in try hasher.update(bytes) }
        return (try hasher.finalize(), count)
    }
}
