import PhotodropSystem

/// The SHA-256 of `bytes` as 64 lowercase hex digits, for comparing with what the library stores.
public func sha256Hex(_ bytes: some Sequence<UInt8>) -> String {
    // SHA256 throws only when OpenSSL cannot allocate a few hundred bytes.
    try! SHA256.digest(of: bytes).hex
}
