import Glibc
/// A SHA-256 digest: 32 bytes, compared and hashed as four words, printed as 64 lowercase hex digits.
public struct SHA256Digest: Sendable, Hashable, Comparable, CustomStringConvertible {
    // Big-endian words, so that comparing them compares the bytes.
    private let word0: UInt64
    private let word1: UInt64
    private let word2: UInt64
    private let word3: UInt64

    /// A digest from exactly 32 bytes; nil for any other count.
    public init?(bytes: some Collection<UInt8>) {
        guard bytes.count == 32 else { return nil }
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        withUnsafeMutableBytes(of: &words) { raw in
            for (index, byte) in bytes.enumerated() { raw[index] = byte }
        }
        word0 = UInt64(bigEndian: words.0)
        word1 = UInt64(bigEndian: words.1)
        word2 = UInt64(bigEndian: words.2)
        word3 = UInt64(bigEndian: words.3)
    }

    /// Whether `text` is written as this type prints a digest: 64 lowercase hex digits.
    public static func isLowercaseHex(_ text: String) -> Bool {
        let utf8 = text.utf8
        return utf8.count == 64 && utf8.allSatisfy { ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }
    }

    /// The 32 bytes.
    public var bytes: [UInt8] {
        withBytes { Array($0) }
    }

    /// 64 lowercase hex digits, as `sha256sum` prints. (Built in place: the committer asks for it once per file.)
    public var hex: String {
        withBytes { raw in
            String(unsafeUninitializedCapacity: 64) { output in
                for (index, byte) in raw.enumerated() {
                    output[2 * index] = SHA256Digest.hexDigit(byte >> 4)
                    output[2 * index + 1] = SHA256Digest.hexDigit(byte & 0x0F)
                }
                return 64
            }
        }
    }

    /// Calls `body` with the 32 bytes, in order, without allocating.
    private func withBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        withUnsafeBytes(of: (word0.bigEndian, word1.bigEndian, word2.bigEndian, word3.bigEndian), body)
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    public var description: String { hex }

    public static func < (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        (lhs.word0, lhs.word1, lhs.word2, lhs.word3) < (rhs.word0, rhs.word1, rhs.word2, rhs.word3)
    }

}
