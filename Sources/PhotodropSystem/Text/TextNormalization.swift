extension StringProtocol {
    /// The text without the spaces and tabs (Unicode's space separators) at either end.
    public func trimmingWhitespace() -> String {
        trimmed { $0.properties.generalCategory == .spaceSeparator || $0 == "\t" }
    }

    /// The text without white space (spaces, tabs, line breaks) at either end.
    public func trimmingWhitespaceAndNewlines() -> String {
        trimmed { $0.properties.isWhitespace }
    }

    private func trimmed(where isTrimmed: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !isTrimmed($0) }) else { return "" }
        let last = scalars.lastIndex(where: { !isTrimmed($0) })!
        var text = ""
        text.unicodeScalars.append(contentsOf: scalars[first...last])
        return text
    }
}

extension String {
    /// The text in Unicode's canonical composed form (NFC: `e` + combining acute becomes `é`), as Foundation's
    /// `precomposedStringWithCanonicalMapping` gives it: macOS writes names decomposed, Linux keeps them as they
    /// came, and a title must compare equal either way. The standard library's own normalization, without ICU.
    public var canonicallyComposed: String {
        if utf8.allSatisfy({ $0 < 0x80 }) { return self }
        return String(decoding: _nfcCodeUnits, as: UTF8.self)
    }
}
