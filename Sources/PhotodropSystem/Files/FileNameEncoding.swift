import Glibc
/// How photodrop holds file names that are not valid UTF-8 in a Swift `String`, losslessly, and how it writes them.
///
/// Linux file names are bytes. A name written by an old Windows or Samba client in Latin-1 (`M\xFCnchen.jpg`) is not
/// valid UTF-8, and a `String` made from it with replacement characters names no file at all. photodrop keeps each
/// byte that is not part of valid UTF-8 as a NUL character followed by two uppercase hex digits (`M\u{0}FCnchen.jpg`):
/// a name can never contain NUL, so the form is unambiguous, and a valid name is its own form. Every system call
/// turns the form back into the original bytes (``withPlatformString(_:_:)``).
///
/// Where the name is written out:
/// - JSON (logs, `reason.json`, `--json` output) writes each such byte as the escape of a lone low surrogate,
///   `\udcXX` (Python's `surrogateescape`, PEP 383): `json.loads` then `os.fsencode` gives the original bytes back;
/// - text for people writes `\xFC`.
public enum FileNameEncoding {
    /// The name for `bytes`: the UTF-8 text itself when valid, else with each stray byte escaped (see the type).
    public static func string<Bytes: Collection<UInt8>>(fromBytes bytes: Bytes) -> (text: String, isValidUTF8: Bool) {
        if let valid = String(validating: bytes, as: UTF8.self), !valid.utf8.contains(0) { return (valid, true) }
        var scalars = String.UnicodeScalarView()
        let array = Array(bytes)
        var index = 0
        while index < array.count {
            if let (scalar, length) = decodeScalar(array, at: index), scalar.value != 0 {
                scalars.append(scalar)
                index += length
            } else {
                appendEscape(of: array[index], to: &scalars)
                index += 1
            }
        }
        return (String(scalars), false)
    }

    /// Whether `text` holds escaped bytes (a name that was not valid UTF-8). `memchr` on the string's own storage: it
    /// is asked before every system call with a name.
    static func hasEscapes(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { bytes in
            guard let base = bytes.baseAddress else { return false }
            return memchr(base, 0, bytes.count) != nil
        } ?? text.utf8.contains(0)
    }

    /// The bytes a name stands for (escapes turned back into their bytes).
    public static func bytes(of text: String) -> [UInt8] {
        guard hasEscapes(text) else { return Array(text.utf8) }
        var result: [UInt8] = []
        result.reserveCapacity(text.utf8.count)
        let utf8 = Array(text.utf8)
        var index = 0
        while index < utf8.count {
            if utf8[index] == 0, index + 2 < utf8.count, let byte = hexByte(utf8[index + 1], utf8[index + 2]) {
                result.append(byte)
                index += 3
            } else {
                result.append(utf8[index])
                index += 1
            }
        }
        return result
    }

    /// Calls `body` with the NUL-terminated bytes `text` stands for: the only way a name reaches a system call.
    static func withPlatformString<R>(_ text: String, _ body: (UnsafePointer<CChar>) throws -> R) rethrows -> R {
        guard hasEscapes(text) else { return try text.withCString(body) }
        var bytes = bytes(of: text)
        bytes.append(0)
        return try bytes.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// `text` for people: escaped bytes as `\xFC`.
    public static func displayText(_ text: String) -> String {
        guard hasEscapes(text) else { return text }
        var output = ""
        forEachPart(of: text) { part in
            switch part {
            case .scalar(let scalar): output.unicodeScalars.append(scalar)
            case .byte(let byte): output += "\\x" + hex(byte)
            }
        }
        return output
    }

    /// One piece of a name: a Unicode scalar, or an escaped byte that was not valid UTF-8.
    public enum Part {
        case scalar(Unicode.Scalar)
        case byte(UInt8)
    }

    /// Walks `text` scalar by scalar, with escaped bytes as ``Part/byte(_:)``: what a JSON writer needs.
    public static func forEachPart(of text: String, _ body: (Part) -> Void) {
        var iterator = text.unicodeScalars.makeIterator()
        var lookahead: [Unicode.Scalar] = []
        func next() -> Unicode.Scalar? { lookahead.isEmpty ? iterator.next() : lookahead.removeFirst() }
        while let scalar = next() {
            guard scalar.value == 0 else {
                body(.scalar(scalar))
                continue
            }
            let high = next()
            let low = high == nil ? nil : next()
            if let high, let low, high.isASCII, low.isASCII,
                let byte = hexByte(UInt8(high.value), UInt8(low.value))
            {
                body(.byte(byte))
            } else {
                body(.scalar(scalar))
                lookahead = [high, low].compactMap { $0 }
            }
        }
    }

    // MARK: - Helpers

    private static let digits = Array("0123456789ABCDEF".unicodeScalars)

    private static func appendEscape(of byte: UInt8, to scalars: inout String.UnicodeScalarView) {
        scalars.append(Unicode.Scalar(0))
        scalars.append(digits[Int(byte >> 4)])
        scalars.append(digits[Int(byte & 0x0F)])
    }

    private static func hex(_ byte: UInt8) -> String {
        String(digits[Int(byte >> 4)]) + String(digits[Int(byte & 0x0F)])
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func hexByte(_ high: UInt8, _ low: UInt8) -> UInt8? {
        guard let high = hexValue(high), let low = hexValue(low) else { return nil }
        return high << 4 | low
    }

    /// One well-formed UTF-8 scalar at `index` (no overlong forms, no surrogates, at most U+10FFFF), or nil.
    private static func decodeScalar(_ bytes: [UInt8], at index: Int) -> (Unicode.Scalar, Int)? {
        let lead = bytes[index]
        let length: Int
        var value: UInt32
        var minimum: UInt32
        switch lead {
        case 0x00...0x7F: return (Unicode.Scalar(lead), 1)
        case 0xC2...0xDF: (length, value, minimum) = (2, UInt32(lead & 0x1F), 0x80)
        case 0xE0...0xEF: (length, value, minimum) = (3, UInt32(lead & 0x0F), 0x800)
        case 0xF0...0xF4: (length, value, minimum) = (4, UInt32(lead & 0x07), 0x10000)
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        for offset in 1..<length {
            let byte = bytes[index + offset]
            guard byte & 0xC0 == 0x80 else { return nil }
            value = value << 6 | UInt32(byte & 0x3F)
        }
        guard value >= minimum, let scalar = Unicode.Scalar(value) else { return nil }
        return (scalar, length)
    }
}
