import PhotodropSystem

/// Writing JSON text by hand, for log lines and `reason.json` files, where key order and speed matter.
///
/// File names that are not valid UTF-8 (held in ``PhotodropSystem/FileNameEncoding`` form) are written with each
/// stray byte as the escape of a lone low surrogate, `\udcXX` (Python's `surrogateescape`): `json.loads` followed by
/// `os.fsencode` gives the name's original bytes back.
public enum JSONText {
    /// `text` as a JSON string literal, quotes included; control characters, `"` and `\` escaped.
    public static func quoted(_ text: String) -> String {
        var output = "\""
        appendEscaped(text, to: &output)
        output += "\""
        return output
    }

    /// Appends `text` escaped for use inside a JSON string literal (without the quotes).
    public static func appendEscaped(_ text: String, to output: inout String) {
        var needsEscaping = false
        for byte in text.utf8 where byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
            needsEscaping = true
            break
        }
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
