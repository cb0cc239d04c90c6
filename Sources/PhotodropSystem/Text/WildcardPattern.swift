import Glibc

/// Shell-style wildcards (`fnmatch(3)`): `*`, `?`, `[…]`.
public enum WildcardPattern {
    /// Whether `name` matches `pattern`; with `slashesLiteral`, `*` and `?` never match a `/` (`FNM_PATHNAME`).
    public static func matches(_ pattern: String, _ name: String, slashesLiteral: Bool = false) -> Bool {
        fnmatch(pattern, name, slashesLiteral ? FNM_PATHNAME : 0) == 0
    }
}
