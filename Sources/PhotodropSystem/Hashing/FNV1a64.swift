/// FNV-1a, 64 bits: a small, fast hash whose value is the same in every process and on every machine (unlike Swift's
/// seeded `Hasher`), for checksums photodrop writes to disk and for choices several processes must agree on. Not for
/// anything an attacker must not be able to collide.
public struct FNV1a64: Sendable {
    /// The hash of the bytes added so far.
    public private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    public init() {}

    /// Adds one byte.
    public mutating func add(_ byte: UInt8) {
        value ^= UInt64(byte)
        value &*= 0x0000_0100_0000_01b3
    }

    /// Adds `bytes`, in order.
    public mutating func add<Bytes: Sequence>(_ bytes: Bytes) where Bytes.Element == UInt8 {
        for byte in bytes { add(byte) }
    }
}
