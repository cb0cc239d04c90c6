/// Big- and little-endian byte writers for hand-built fixtures.
extension Array where Element == UInt8 {
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be32(_ v: Int) -> [UInt8] {
        [UInt8(v >> 24 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
    static func be64(_ v: UInt64) -> [UInt8] { (0..<8).map { UInt8(v >> (56 - 8 * UInt64($0)) & 0xFF) } }
    static func le16(_ v: Int) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF)] }
    static func le32(_ v: Int) -> [UInt8] {
        [UInt8(v & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v >> 16 & 0xFF), UInt8(v >> 24 & 0xFF)]
    }
    static func ascii(_ s: String) -> [UInt8] { Array(s.utf8) }
    /// A four-character code; `©` becomes the Mac Roman byte 0xA9.
    static func fourCC(_ s: String) -> [UInt8] {
        let bytes = s.unicodeScalars.map { $0 == "©" ? UInt8(0xA9) : UInt8(truncatingIfNeeded: $0.value) }
        precondition(bytes.count == 4, "four-character code \(s)")
        return bytes
    }
    static func zeros(_ n: Int) -> [UInt8] { [UInt8](repeating: 0, count: n) }
}

/// CRC-32 (ISO 3309, as PNG uses it).
enum CRC32 {
    static let table: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    static func checksum(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = table[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
