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
        var words = [UInt64](repeating: 0, count: 4)
        for (index, byte) in bytes.enumerated() { words[index / 8] = words[index / 8] << 8 | UInt64(byte) }
        word0 = words[0]
        word1 = words[1]
        word2 = words[2]
        word3 = words[3]
    }

    /// A digest from 64 hex digits (either case); nil otherwise.
    public init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        for index in stride(from: 0, to: 64, by: 2) {
            guard let high = SHA256Digest.nibble(digits[index]), let low = SHA256Digest.nibble(digits[index + 1]) else {
                return nil
            }
            bytes.append(high << 4 | low)
        }
        self.init(bytes: bytes)
    }

    /// The 32 bytes.
    public var bytes: [UInt8] {
        [word0, word1, word2, word3].flatMap { word in
            (0..<8).reversed().map { UInt8(truncatingIfNeeded: word >> ($0 * 8)) }
        }
    }

    /// 64 lowercase hex digits, as `sha256sum` prints.
    public var hex: String {
        let alphabet = Array("0123456789abcdef".utf8)
        var output: [UInt8] = []
        output.reserveCapacity(64)
        for byte in bytes {
            output.append(alphabet[Int(byte >> 4)])
            output.append(alphabet[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    public var description: String { hex }

    public static func < (lhs: SHA256Digest, rhs: SHA256Digest) -> Bool {
        (lhs.word0, lhs.word1, lhs.word2, lhs.word3) < (rhs.word0, rhs.word1, rhs.word2, rhs.word3)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
