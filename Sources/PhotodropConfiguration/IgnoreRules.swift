import PhotodropSystem

/// Which names in the inbox are never taken: temp names of upload clients, hidden names, and the config's `ignore`.
///
/// Built in (what upload clients write while a transfer runs, and what a folder shared with desktops collects):
/// - hidden names: any path component starting with `.` — dotfiles, dot-folders (`.Trash`, `.sync`), and rsync's
///   temp files `.name.XXXXXX`;
/// - temp suffixes, compared case-insensitively: `*.part` (Samba, Firefox), `*.crdownload` (Chrome), `*.tmp`;
/// - backup names ending in `~`.
///
/// Config patterns are `fnmatch(3)` globs. A pattern without `/` is matched against every path component, so
/// `"@eaDir"` skips a Synology thumbnail folder wherever it is and `"*.xmp"` skips sidecars. A pattern with `/` is
/// matched against the whole path relative to the inbox, with `FNM_PATHNAME` (`*` does not cross `/`), e.g.
/// `"Scans/raw/*"`.
public struct IgnoreRules: Sendable, Hashable {
    /// Why a name is never taken.
    public enum Reason: Sendable, Hashable, CustomStringConvertible {
        /// A component starts with `.` (dotfile, dot-folder, rsync temp file).
        case hidden
        /// The name ends with a temp suffix such as `.part`.
        case temporarySuffix(String)
        /// The name ends with `~`.
        case backup
        /// A config `ignore` pattern matched.
        case pattern(String)

        public var description: String {
            switch self {
            case .hidden: return "hidden name"
            case .temporarySuffix(let suffix): return "temporary name (*\(suffix))"
            case .backup: return "backup name (*~)"
            case .pattern(let pattern): return "matches ignore pattern \"\(pattern)\""
            }
        }
    }

    /// The built-in temp suffixes, lowercase.
    public static let temporarySuffixes = [".part", ".crdownload", ".tmp"]

    /// The config's extra patterns.
    public let patterns: [String]
    private let componentPatterns: [String]
    private let pathPatterns: [String]

    /// Rules with the built-in names plus `patterns` (config `ignore`).
    public init(patterns: [String] = []) {
        self.patterns = patterns
        self.componentPatterns = patterns.filter { !$0.contains("/") }
        self.pathPatterns = patterns.filter { $0.contains("/") }
    }

    /// Why the file at `relativePath` (relative to the inbox, `/`-separated) is never taken, or nil if it may be.
    public func reason(forFile relativePath: String) -> Reason? {
        var components = relativePath.split(separator: "/", omittingEmptySubsequences: true)
        guard let name = components.popLast() else { return .hidden }
        for directory in components {
            if let reason = reason(forComponent: directory) { return reason }
        }
        if let reason = reason(forComponent: name) { return reason }
        if let reason = IgnoreRules.temporaryReason(name) { return reason }
        return pathPatternReason(relativePath)
    }

    /// Why the folder at `relativePath` (relative to the inbox) is skipped with everything below it, or nil.
    ///
    /// Folders are skipped for hidden names and config patterns, not for temp suffixes (a folder called `x.tmp` is
    /// an ordinary album).
    public func reason(forDirectory relativePath: String) -> Reason? {
        for component in relativePath.split(separator: "/", omittingEmptySubsequences: true) {
            if let reason = reason(forComponent: component) { return reason }
        }
        return pathPatternReason(relativePath)
    }

    /// Whether a single folder name (one component) is skipped; what the scanner and the watcher ask per entry.
    public func skipsDirectory(named name: some StringProtocol, relativePath: String) -> Bool {
        reason(forComponent: name) != nil || pathPatternReason(relativePath) != nil
    }

    /// Whether a file is never taken, asked per directory entry: only the entry's own name and the path patterns
    /// are checked (its folders were checked when they were entered).
    public func skipsFile(named name: some StringProtocol, relativePath: String) -> Bool {
        reason(forComponent: name) != nil || IgnoreRules.temporaryReason(name) != nil
            || pathPatternReason(relativePath) != nil
    }

    private func reason(forComponent component: some StringProtocol) -> Reason? {
        if component.utf8.first == UInt8(ascii: ".") { return .hidden }
        guard !componentPatterns.isEmpty else { return nil }
        let name = String(component)
        for pattern in componentPatterns where WildcardPattern.matches(pattern, name) {
            return .pattern(pattern)
        }
        return nil
    }

    private func pathPatternReason(_ relativePath: String) -> Reason? {
        for pattern in pathPatterns where WildcardPattern.matches(pattern, relativePath, slashesLiteral: true) {
            return .pattern(pattern)
        }
        return nil
    }

    /// Why `pattern` is not a valid `fnmatch(3)` glob, or nil when it is. glibc matches a malformed pattern (an
    /// unclosed `[`, a trailing `\\`) literally or not at all instead of failing, so a typo would silently ignore
    /// nothing (or the wrong files); the configuration refuses it instead.
    public static func problem(in pattern: String) -> String? {
        let characters = Array(pattern.unicodeScalars)
        var index = 0
        while index < characters.count {
            switch characters[index] {
            case "\\":
                guard index + 1 < characters.count else {
                    return "it ends with a lone \"\\\" (escape it as \"\\\\\" to match a backslash)"
                }
                index += 2
            case "[":
                guard let end = bracketEnd(characters, from: index) else {
                    return "the \"[\" at position \(index + 1) opens a character class that is never closed with "
                        + "\"]\" (write \"\\[\" to match a literal \"[\")"
                }
                if let unknown = unknownClass(characters, from: index, to: end) {
                    return "\"[:\(unknown):]\" is not a character class; use one of "
                        + characterClasses.sorted().joined(separator: ", ")
                }
                index = end + 1
            default:
                index += 1
            }
        }
        return nil
    }

    private static let characterClasses: Set<String> = [
        "alnum", "alpha", "blank", "cntrl", "digit", "graph", "lower", "print", "punct", "space", "upper", "xdigit",
    ]

    /// The index of the `]` that closes the bracket expression opened at `start`, or nil.
    private static func bracketEnd(_ characters: [Unicode.Scalar], from start: Int) -> Int? {
        var index = start + 1
        if index < characters.count && (characters[index] == "!" || characters[index] == "^") { index += 1 }
        if index < characters.count && characters[index] == "]" { index += 1 }  // a leading ] is a member
        while index < characters.count {
            switch characters[index] {
            case "]": return index
            case "[" where index + 1 < characters.count && [":", ".", "="].contains(characters[index + 1]):
                let kind = characters[index + 1]
                var close = index + 2
                while close + 1 < characters.count && !(characters[close] == kind && characters[close + 1] == "]") {
                    close += 1
                }
                guard close + 1 < characters.count else { return nil }
                index = close + 2
            case "\\": index += 2
            default: index += 1
            }
        }
        return nil
    }

    private static func unknownClass(_ characters: [Unicode.Scalar], from start: Int, to end: Int) -> String? {
        var index = start + 1
        while index + 1 < end {
            if characters[index] == "[" && characters[index + 1] == ":" {
                var close = index + 2
                while close + 1 < end + 1 && !(characters[close] == ":" && characters[close + 1] == "]") { close += 1 }
                let name = String(String.UnicodeScalarView(characters[(index + 2)..<close]))
                if !characterClasses.contains(name) { return name }
                index = close + 2
            } else {
                index += 1
            }
        }
        return nil
    }

    private static func temporaryReason(_ name: some StringProtocol) -> Reason? {
        let bytes = name.utf8
        guard !bytes.isEmpty else { return nil }
        if bytes[bytes.index(bytes.startIndex, offsetBy: bytes.count - 1)] == UInt8(ascii: "~") { return .backup }
        for suffix in temporarySuffixes where hasSuffixIgnoringASCIICase(bytes, suffix) {
            return .temporarySuffix(suffix)
        }
        return nil
    }

    private static func hasSuffixIgnoringASCIICase(_ bytes: some Collection<UInt8>, _ suffix: String) -> Bool {
        let suffixBytes = suffix.utf8
        guard bytes.count > suffixBytes.count else { return false }
        var index = bytes.index(bytes.endIndex, offsetBy: -suffixBytes.count)
        for expected in suffixBytes {
            var byte = bytes[index]
            if byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") { byte += 32 }
            if byte != expected { return false }
            index = bytes.index(after: index)
        }
        return true
    }
}
