import Glibc
/// A strict RFC 8259 JSON parser that keeps positions, made for configuration files.
///
/// Differences from `JSONSerialization` that matter for a config file: errors carry a line and column and say what
/// was expected ("a trailing comma before }"), duplicate keys are errors, numbers are kept as written, and nesting
/// is limited (64 levels) so that hostile input cannot exhaust the stack.
public struct JSONParser {
    /// Why the text is not valid JSON, and where.
    public struct SyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
        public var message: String
        public var position: JSONValue.Position
        public var description: String { "\(position): \(message)" }
    }

    static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    private var depth = 0

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// Parses one JSON document (a UTF-8 byte order mark is allowed and skipped).
    public static func parse(_ bytes: [UInt8]) throws(SyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        try parser.validateUTF8()
        parser.skipWhitespace()
        let value = try parser.parseValue()
        parser.skipWhitespace()
        if parser.index < bytes.count {
            throw parser.error("unexpected \(parser.describeCurrent()) after the end of the document")
        }
        return value
    }

    /// Parses a Swift string; convenience for tests.
    public static func parse(_ text: String) throws(SyntaxError) -> JSONValue {
        try parse(Array(text.utf8))
    }

    // MARK: - Values

    private mutating func parseValue() throws(SyntaxError) -> JSONValue {
        let start = position
        guard index < bytes.count else { throw error("the document ends where a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return JSONValue(try parseObject(), at: start)
        case UInt8(ascii: "["): return JSONValue(try parseArray(), at: start)
        case UInt8(ascii: "\""): return JSONValue(.string(try parseString()), at: start)
        case UInt8(ascii: "t"):
            try expectWord("true")
            return JSONValue(.bool(true), at: start)
        case UInt8(ascii: "f"):
            try expectWord("false")
            return JSONValue(.bool(false), at: start)
        case UInt8(ascii: "n"):
            try expectWord("null")
            return JSONValue(.null, at: start)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return JSONValue(.number(try parseNumber()), at: start)
        case UInt8(ascii: "'"):
            throw error("strings must be in double quotes (\"), not single quotes")
        default:
            throw error(
                "expected a value (object, list, string, number, true, false or null), found \(describeCurrent())")
        }
    }

    private mutating func parseObject() throws(SyntaxError) -> JSONValue.Kind {
        try enterNesting()
        advance()  // {
        var members: [JSONValue.Member] = []
        var seen: [String: JSONValue.Position] = [:]
        skipWhitespace()
        if peek == UInt8(ascii: "}") {
            advance()
            depth -= 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek == UInt8(ascii: "\"") else {
                if peek == UInt8(ascii: "}") { throw error("trailing comma before }") }
                if peek == nil { throw error("the document ends inside an object; a } is missing") }
                throw error("expected a key in double quotes, found \(describeCurrent())")
            }
            let keyPosition = position
            let key = try parseString()
            if let first = seen[key] {
                throw SyntaxError(
                    message: "key \"\(key)\" appears twice in this object (first at \(first))", position: keyPosition)
            }
            seen[key] = keyPosition
            skipWhitespace()
            guard peek == UInt8(ascii: ":") else { throw error("expected : after the key \"\(key)\"") }
            advance()
            skipWhitespace()
            let value = try parseValue()
            members.append(JSONValue.Member(key: key, keyPosition: keyPosition, value: value))
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): advance()
            case UInt8(ascii: "}"):
                advance()
                depth -= 1
                return .object(members)
            case nil: throw error("the document ends inside an object; a } is missing")
            default: throw error("expected , or } after the value of \"\(key)\", found \(describeCurrent())")
            }
        }
    }

    private mutating func parseArray() throws(SyntaxError) -> JSONValue.Kind {
        try enterNesting()
        advance()  // [
        var elements: [JSONValue] = []
        skipWhitespace()
        if peek == UInt8(ascii: "]") {
            advance()
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            if peek == UInt8(ascii: "]") { throw error("trailing comma before ]") }
            elements.append(try parseValue())
            skipWhitespace()
            switch peek {
            case UInt8(ascii: ","): advance()
            case UInt8(ascii: "]"):
                advance()
                depth -= 1
                return .array(elements)
            case nil: throw error("the document ends inside a list; a ] is missing")
            default: throw error("expected , or ] in a list, found \(describeCurrent())")
            }
        }
    }

    private mutating func parseString() throws(SyntaxError) -> String {
        advance()  // opening quote
        var scalars = String.UnicodeScalarView()
        var runStart = index
        func flush(_ parser: JSONParser, upTo end: Int, into scalars: inout String.UnicodeScalarView) {
            if end > runStart {
                scalars.append(contentsOf: String(decoding: parser.bytes[runStart..<end], as: UTF8.self).unicodeScalars)
            }
        }
        while true {
            guard let byte = peek else { throw error("the document ends inside a string; a \" is missing") }
            switch byte {
            case UInt8(ascii: "\""):
                flush(self, upTo: index, into: &scalars)
                advance()
                return String(scalars)
            case UInt8(ascii: "\\"):
                flush(self, upTo: index, into: &scalars)
                advance()
                try parseEscape(into: &scalars)
                runStart = index
            case 0x00..<0x20:
                throw error("a control character (0x\(String(byte, radix: 16))) must be escaped inside a string")
            default:
                advance()
            }
        }
    }

    private mutating func parseEscape(into scalars: inout String.UnicodeScalarView) throws(SyntaxError) {
        switch try parseEscape() {
        case .scalar(let scalar): scalars.append(scalar)
        case .fileNameByte(let byte):
            // A byte of a file name that is not UTF-8, as photodrop writes it (`surrogateescape`), read back into the
            // name's escaped form (see `FileNameEncoding`).
            scalars.append(contentsOf: FileNameEncoding.string(fromBytes: [byte]).text.unicodeScalars)
        }
    }

    /// What one escape stands for.
    private enum Escaped {
        case scalar(Unicode.Scalar)
        /// A lone low surrogate from U+DC80 to U+DCFF: the byte 0x80…0xFF of a file name that is not UTF-8.
        case fileNameByte(UInt8)
    }

    private mutating func parseEscape() throws(SyntaxError) -> Escaped {
        guard let byte = peek else { throw error("the document ends inside an escape sequence") }
        advance()
        switch byte {
        case UInt8(ascii: "\""): return .scalar("\"")
        case UInt8(ascii: "\\"): return .scalar("\\")
        case UInt8(ascii: "/"): return .scalar("/")
        case UInt8(ascii: "b"): return .scalar("\u{08}")
        case UInt8(ascii: "f"): return .scalar("\u{0C}")
        case UInt8(ascii: "n"): return .scalar("\n")
        case UInt8(ascii: "r"): return .scalar("\r")
        case UInt8(ascii: "t"): return .scalar("\t")
        case UInt8(ascii: "u"):
            let first = try parseHex4()
            if (0xD800..<0xDC00).contains(first) {
                guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                    throw error("a \\u escape for a high surrogate must be followed by a low surrogate")
                }
                advance()
                advance()
                let second = try parseHex4()
                guard (0xDC00..<0xE000).contains(second) else { throw error("invalid low surrogate in a \\u escape") }
                let value = 0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00)
                return .scalar(Unicode.Scalar(value)!)
            }
            if (0xDC80...0xDCFF).contains(first) { return .fileNameByte(UInt8(first & 0xFF)) }
            guard let scalar = Unicode.Scalar(first) else { throw error("a lone low surrogate in a \\u escape") }
            return .scalar(scalar)
        default:
            throw error("unknown escape sequence \\\(String(UnicodeScalar(byte)))")
        }
    }

    private mutating func parseHex4() throws(SyntaxError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek, let digit = JSONParser.hexValue(byte) else {
                throw error("a \\u escape needs four hexadecimal digits")
            }
            value = value << 4 | UInt32(digit)
            advance()
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private mutating func parseNumber() throws(SyntaxError) -> String {
        let start = index
        func isDigit(_ byte: UInt8?) -> Bool {
            byte.map { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) } ?? false
        }
        if peek == UInt8(ascii: "-") { advance() }
        if peek == UInt8(ascii: "0") {
            advance()
            if isDigit(peek) { throw error("numbers must not have leading zeros") }
        } else if isDigit(peek) {
            while isDigit(peek) { advance() }
        } else {
            throw error("expected a digit in a number")
        }
        if peek == UInt8(ascii: ".") {
            advance()
            guard isDigit(peek) else { throw error("expected a digit after the decimal point") }
            while isDigit(peek) { advance() }
        }
        if peek == UInt8(ascii: "e") || peek == UInt8(ascii: "E") {
            advance()
            if peek == UInt8(ascii: "+") || peek == UInt8(ascii: "-") { advance() }
            guard isDigit(peek) else { throw error("expected a digit in the exponent") }
            while isDigit(peek) { advance() }
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func expectWord(_ word: StaticString) throws(SyntaxError) {
        let expected = word.withUTF8Buffer { Array($0) }
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else {
            throw error("expected a value, found \(describeCurrent()) (JSON literals are true, false and null)")
        }
        for _ in expected { advance() }
        if let next = peek, JSONParser.isWordByte(next) {
            throw error("unexpected \(describeCurrent()) after \(word)")
        }
    }

    // MARK: - Helpers

    private mutating func enterNesting() throws(SyntaxError) {
        depth += 1
        if depth > JSONParser.maximumDepth { throw error("nesting deeper than \(JSONParser.maximumDepth) levels") }
    }

    private static func isWordByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private var position: JSONValue.Position { JSONValue.Position(line: line, column: column) }

    private mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        } else {
            // A UTF-8 continuation byte belongs to the scalar already counted.
        }
    }

    private mutating func skipWhitespace() {
        while let byte = peek {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): advance()
            case UInt8(ascii: "/"):
                // Comments are not JSON; say so precisely instead of "unexpected character".
                return
            default: return
            }
        }
    }

    private func describeCurrent() -> String {
        guard let byte = peek else { return "the end of the document" }
        if byte == UInt8(ascii: "/") { return "a comment (JSON has no comments)" }
        if byte >= 0x20 && byte < 0x7F { return "'\(String(UnicodeScalar(byte)))'" }
        return "the byte 0x\(String(byte, radix: 16))"
    }

    private func error(_ message: String) -> SyntaxError {
        SyntaxError(message: message, position: position)
    }

    private mutating func validateUTF8() throws(SyntaxError) {
        var iterator = bytes[index...].makeIterator()
        var decoder = UTF8()
        var cursor = JSONValue.Position(line: 1, column: 1)
        loop: while true {
            switch decoder.decode(&iterator) {
            case .scalarValue(let scalar):
                if scalar == "\n" {
                    cursor.line += 1
                    cursor.column = 1
                } else {
                    cursor.column += 1
                }
            case .emptyInput: break loop
            case .error: throw SyntaxError(message: "the file is not valid UTF-8 here", position: cursor)
            }
        }
    }
}
