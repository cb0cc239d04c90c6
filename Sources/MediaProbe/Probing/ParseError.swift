/// A structure inside an already-read block of bytes that does not fit: a count larger than its box, an offset outside
/// its block. Parsers turn it into a `corrupt` result or drop the metadata field concerned.
struct ParseError: Error, Sendable, CustomStringConvertible {
    var description: String

    init(_ description: String) {
        self.description = description
    }
}
