import Glibc
/// The one JSON writer of photodrop: log lines, `reason.json`, the claim journal's old entries, the daemon's status
/// file, `import --json` and every `--json` of the command line go through it, so that they agree on escaping and
/// numbers. Members keep the order they are written in; output is compact, or indented by two spaces (``pretty``).
///
/// - Strings: `"`, `\` and control characters escaped; file names that are not valid UTF-8 (held in
///   ``FileNameEncoding`` form) are written with each stray byte as the escape of a lone low surrogate, `\udcXX`
///   (Python's `surrogateescape`): `json.loads` followed by `os.fsencode` gives the name's original bytes back.
/// - Numbers: integers as written; a `Double` as Swift prints it, and `null` when it is not finite (JSON has no
///   NaN or infinity).
public struct JSONWriter: Sendable {
    /// The text written so far.
    public private(set) var text: String
    /// Whether objects and arrays are written over several lines.
    public let pretty: Bool
    /// Per open container: whether it has a member yet.
    private var hasMembers: [Bool] = []
    /// After ``key(_:)``: the value follows without a separator.
    private var afterKey = false

    /// A writer; `capacity` reserves room for the text.
    public init(pretty: Bool = false, capacity: Int = 128) {
        self.pretty = pretty
        self.text = ""
        text.reserveCapacity(capacity)
    }

    // MARK: Containers

    public mutating func beginObject() {
        beginValue()
        text += "{"
        hasMembers.append(false)
    }

    public mutating func endObject() { endContainer("}") }

    public mutating func beginArray() {
        beginValue()
        text += "["
        hasMembers.append(false)
    }

    public mutating func endArray() { endContainer("]") }

    /// The key of the next member of the open object.
    public mutating func key(_ name: String) {
        separate()
        Self.appendQuoted(name, to: &text)
        text += pretty ? ": " : ":"
        afterKey = true
    }

    // MARK: Values

    public mutating func string(_ value: String) {
        beginValue()
        Self.appendQuoted(value, to: &text)
    }

    /// A string, or `null` for nil.
    public mutating func string(_ value: String?) {
        if let value { string(value) } else { null() }
    }

    public mutating func int(_ value: some BinaryInteger) {
        beginValue()
        text += String(value)
    }

    /// A number; `null` when it is not finite.
    public mutating func double(_ value: Double) {
        beginValue()
        text += value.isFinite ? String(value) : "null"
    }

    public mutating func bool(_ value: Bool) {
        beginValue()
        text += value ? "true" : "false"
    }

    public mutating func null() {
        beginValue()
        text += "null"
    }

    /// A number exactly as another encoder or the input wrote it (already valid JSON).
    public mutating func number(_ literal: String) {
        beginValue()
        text += literal
    }

    // MARK: Members, for brevity

    public mutating func member(_ name: String, _ value: String?) {
        key(name)
        string(value)
    }

    public mutating func member(_ name: String, _ value: some BinaryInteger) {
        key(name)
        int(value)
    }

    public mutating func member(_ name: String, _ value: Bool) {
        key(name)
        bool(value)
    }

    public mutating func member(_ name: String, _ value: Double) {
        key(name)
        double(value)
    }

    // MARK: Layout

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        separate()
    }

    /// A comma before every member but the first, and the line break and indentation of `pretty`.
    private mutating func separate() {
        guard !hasMembers.isEmpty else { return }
        if hasMembers[hasMembers.count - 1] { text += "," }
        hasMembers[hasMembers.count - 1] = true
        if pretty { newline(depth: hasMembers.count) }
    }

    private mutating func endContainer(_ close: String) {
        let hadMembers = hasMembers.removeLast()
        if pretty && hadMembers { newline(depth: hasMembers.count) }
        text += close
    }

    private mutating func newline(depth: Int) {
        text += "\n"
        text += String(repeating: "  ", count: depth)
    }

    // MARK: Escaping

    /// `text` as a JSON string literal, quotes included.
    public static func quoted(_ text: String) -> String {
        var output = ""
        appendQuoted(text, to: &output)
        return output
    }

    /// Appends `text` as a JSON string literal, quotes included.
    public static func appendQuoted(_ text: String, to output: inout String) {
        output += "\""
        appendEscaped(text, to: &output)
        output += "\""
    }

    /// Appends `text` escaped for use inside a JSON string literal (without the quotes).
    static func appendEscaped(_ text: String, to output: inout String) {
        // Most strings need no escaping: one scan of the contiguous UTF-8 (no per-byte iterator calls), then one append.
        let needsEscaping =
            text.utf8.withContiguousStorageIfAvailable { bytes in
                var index = 0
                let count = bytes.count
                while index < count {
                    let byte = bytes[index]
                    if byte < 0x20 || byte == 0x22 || byte == 0x5C { return true }
                    index &+= 1
                }
                return false
            } ?? text.utf8.contains { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C }
        guard needsEscaping else {
            output += text
            return
        }
        if FileNameEncoding.hasEscapes(text) {
            FileNameEncoding.forEachPart(of: text) { part in
                switch part {
                case .byte(let byte):
                    let hex = String(byte, radix: 16)
                    output += "\\udc" + (hex.count < 2 ? "0" : "") + hex
                case .scalar(let scalar):
                    appendEscaped(scalar, to: &output)
                }
            }
            return
        }
        for scalar in text.unicodeScalars { appendEscaped(scalar, to: &output) }
    }

    private static func appendEscaped(_ scalar: Unicode.Scalar, to output: inout String) {
        switch scalar {
        case "\"": output += "\\\""
        case "\\": output += "\\\\"
        case "\n": output += "\\n"
        case "\r": output += "\\r"
        case "\t": output += "\\t"
        case "\u{08}": output += "\\b"
        case "\u{0C}": output += "\\f"
        case _ where scalar.value < 0x20:
            let hex = String(scalar.value, radix: 16)
            output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
        default: output.unicodeScalars.append(scalar)
        }
    }
}
