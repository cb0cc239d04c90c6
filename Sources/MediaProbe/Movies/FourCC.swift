/// A four-character code: an ISO-BMFF box type, a sample-entry codec, a brand, a RIFF chunk id.
public struct FourCC: Hashable, Sendable, Comparable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The four bytes, big-endian (the first character in the high byte).
    public let rawValue: UInt32

    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// Reads four bytes at `index` of `bytes`; the caller checks that they exist.
    init<C: RandomAccessCollection>(_ bytes: C, at index: C.Index) where C.Element == UInt8 {
        var value: UInt32 = 0
        var i = index
        for _ in 0..<4 {
            value = value << 8 | UInt32(bytes[i])
            i = bytes.index(after: i)
        }
        rawValue = value
    }

    /// `©day`: the QuickTime user-data date (0xA9 is © in Mac Roman).
    static let userDataDay = FourCC(rawValue: 0xA964_6179)
    /// `©xyz`: the QuickTime user-data ISO 6709 location.
    static let userDataLocation = FourCC(rawValue: 0xA978_797A)

    /// A code from a four-character ASCII literal such as `"moov"` or `"ac-3"`.
    public init(stringLiteral value: StaticString) {
        precondition(value.utf8CodeUnitCount == 4, "a four-character code has four ASCII characters")
        var raw: UInt32 = 0
        value.withUTF8Buffer { for byte in $0 { raw = raw << 8 | UInt32(byte) } }
        rawValue = raw
    }

    /// A code from exactly four printable ASCII characters (space included, as in `raw `), as a person writes one in
    /// `video.videoCodecs`; nil otherwise.
    public init?(_ string: String) {
        let utf8 = Array(string.utf8)
        guard utf8.count == 4, utf8.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        self.init(utf8, at: 0)
    }

    public static func < (lhs: FourCC, rhs: FourCC) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The four bytes.
    var bytes: [UInt8] {
        [
            UInt8(rawValue >> 24), UInt8(truncatingIfNeeded: rawValue >> 16), UInt8(truncatingIfNeeded: rawValue >> 8),
            UInt8(truncatingIfNeeded: rawValue),
        ]
    }

    /// The code as text; bytes outside printable ASCII are shown as Latin-1 (`©xyz`), control bytes as `?`.
    public var description: String {
        String(
            decoding: bytes.map { byte -> UInt8 in byte < 0x20 || byte == 0x7F ? 0x3F : byte }.flatMap { byte in
                byte < 0x80 ? [byte] : Array(String(UnicodeScalar(byte)).utf8)
            }, as: UTF8.self)
    }
}
