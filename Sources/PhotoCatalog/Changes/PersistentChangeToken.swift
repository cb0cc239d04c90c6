/// A position in a library's persistent change history (`PHPersistentChangeToken`).
///
/// Tokens are ordered within one library and can be stored as text (``stringValue``) and read back with
/// ``init(string:)``, e.g. by `photodrop events --since TOKEN`.
public struct PersistentChangeToken: Sendable, Hashable, Codable, Comparable, CustomStringConvertible {
    /// The library the token belongs to (empty for the token of a library that did not exist yet, which comes before
    /// every change of whatever library is created there).
    public let libraryID: String
    /// The number of the last transaction seen (0: none).
    public let value: Int64

    init(libraryID: String, value: Int64) {
        self.libraryID = libraryID
        self.value = value
    }

    /// The token as text: `<libraryID>:<value>`.
    public var stringValue: String { "\(libraryID):\(value)" }

    /// Reads a token written by ``stringValue``; nil when `string` is not one.
    public init?(string: String) {
        guard let colon = string.lastIndex(of: ":"), let value = Int64(string[string.index(after: colon)...]),
            value >= 0
        else { return nil }
        let library = String(string[..<colon])
        guard library.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else { return nil }
        self.init(libraryID: library, value: value)
    }

    public var description: String { stringValue }

    /// Orders tokens of one library by position in its history.
    public static func < (lhs: PersistentChangeToken, rhs: PersistentChangeToken) -> Bool { lhs.value < rhs.value }
}
