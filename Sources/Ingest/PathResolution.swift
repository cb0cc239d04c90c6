#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Lexical path helpers: no file system access, so results do not depend on what exists yet.
enum PathResolution {
    /// `path` made absolute against `base` (`~` and `~/…` expand to `$HOME`), then normalised.
    static func resolve(_ path: String, against base: String) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        if path == "~" || path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty {
            return normalize(home + path.dropFirst())
        }
        return normalize(base + "/" + path)
    }

    /// Removes empty and `.` components and applies `..` lexically; never goes above `/`.
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            if part == "." { continue }
            if part == ".." {
                if !parts.isEmpty { parts.removeLast() }
                continue
            }
            parts.append(part)
        }
        return "/" + parts.joined(separator: "/")
    }

    /// The folder part of an absolute path (`/a/b` → `/a`, `/a` → `/`).
    static func directory(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// The last component of a path.
    static func lastComponent(of path: String) -> String {
        // Searched in the UTF-8 view: "/" is ASCII, so the index is a valid String index, and the Character view's
        // grapheme breaking cost the importer's scan a fifth of its time.
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// Whether `path` is `ancestor` or lies below it (both normalised absolute paths).
    static func isSameOrBelow(_ path: String, _ ancestor: String) -> Bool {
        if path == ancestor { return true }
        if ancestor == "/" { return true }
        return path.hasPrefix(ancestor + "/")
    }

    /// `base/name`, without doubling the slash for the root.
    static func join(_ base: String, _ name: String) -> String {
        if name.isEmpty { return base }
        if base.isEmpty { return name }
        return base.utf8.last == UInt8(ascii: "/") ? base + name : "\(base)/\(name)"
    }

    /// `path` (absolute) as the file system resolves it: the longest part that exists goes through `realpath(3)`
    /// (symbolic links resolved), the rest is appended as written. For comparing folders that may not exist yet.
    static func physical(_ path: String) -> String {
        var existing = normalize(path)
        var rest: [String] = []
        while true {
            if let resolved = realpath(existing, nil) {
                defer { free(resolved) }
                let base = String(cString: resolved)
                return rest.reversed().reduce(base) { join($0, $1) }
            }
            if existing == "/" { return normalize(path) }
            rest.append(lastComponent(of: existing))
            existing = directory(of: existing)
        }
    }

    /// The current working directory.
    static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
