/// A QuickTime / ISO-BMFF four-character code such as `avc1`, `mp4a` or `ac-3`.
///
/// Exactly four printable ASCII characters (space included, as in `raw `). The numeric ``value`` is the big-endian
/// interpretation used in box and sample-entry headers.
public struct FourCharacterCode: Sendable, Hashable, CustomStringConvertible, Comparable {
    /// The four characters.
    public let text: String
    /// The code as it appears in a file, big-endian.
    public let value: UInt32

    /// Creates a code from exactly four printable ASCII characters; nil otherwise.
    public init?(_ text: String) {
        let bytes = Array(text.utf8)
        guard bytes.count == 4, bytes.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) else { return nil }
        self.text = text
        self.value = bytes.reduce(0) { $0 << 8 | UInt32($1) }
    }

    public var description: String { text }

    public static func < (lhs: FourCharacterCode, rhs: FourCharacterCode) -> Bool { lhs.value < rhs.value }
}
