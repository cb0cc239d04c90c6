import Glibc
/// Path arithmetic on plain strings: no file system access (except ``physical(_:)`` and ``currentDirectory()``), no
/// allocation beyond the result. Searched in the UTF-8 view: `/` is ASCII, so its index is a valid `String` index,
/// and the `Character` view's grapheme breaking both costs time and joins a combining mark to the slash before it.
public enum Path {
    /// Everything before the last `/`: `/a/b/c.jpg` → `/a/b`, `/c.jpg` → `/`, `c.jpg` → `` (empty).
    public static func parent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        if slash == path.utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Everything after the last `/` (a path without `/` is its own last component).
    public static func lastComponent(of path: String) -> String {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.utf8.index(after: slash)...])
    }

    /// `Trip/2024/IMG_1.jpg` → (`Trip/2024`, `IMG_1.jpg`); `IMG_1.jpg` → (``, `IMG_1.jpg`).
    public static func split(_ path: String) -> (folder: String, name: String) {
        guard let slash = path.utf8.lastIndex(of: UInt8(ascii: "/")) else { return ("", path) }
        let folder = slash == path.utf8.startIndex ? "/" : String(path[..<slash])
        return (folder, String(path[path.utf8.index(after: slash)...]))
    }

    /// The extension of the last component without its dot, as `URL.pathExtension` gives it: `c.JPG` → `JPG`,
    /// `archive.tar.gz` → `gz`; none (``) for `.hidden`, `..jpg`, `name.`, `name` and an extension with a space.
    public static func pathExtension(of path: String) -> String {
        let name = lastComponent(of: path)
        let utf8 = name.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")),
            utf8[..<dot].contains(where: { $0 != UInt8(ascii: ".") })
        else { return "" }
        let after = utf8.index(after: dot)
        guard after != utf8.endIndex, !utf8[after...].contains(UInt8(ascii: " ")) else { return "" }
        return String(name[after...])
    }

    /// `base/name`, without doubling the slash after the root; either may be empty.
    public static func join(_ base: String, _ name: String) -> String {
        if name.isEmpty { return base }
        if base.isEmpty { return name }
        return base.utf8.last == UInt8(ascii: "/") ? base + name : "\(base)/\(name)"
    }

    /// `path` made absolute against `base` (`~` and `~/…` expand to `$HOME`), then normalised.
    public static func resolve(_ path: String, against base: String) -> String {
        if path.hasPrefix("/") { return normalize(path) }
        if path == "~" || path.hasPrefix("~/"), let home = getenv("HOME").map({ String(cString: $0) }), !home.isEmpty {
            return normalize(home + path.dropFirst())
        }
        return normalize(base + "/" + path)
    }

    /// An absolute path with empty and `.` components removed and `..` applied lexically; never above `/`.
    public static func normalize(_ path: String) -> String {
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

    /// Whether `path` is `ancestor` or lies below it (both normalised absolute paths).
    public static func isSameOrBelow(_ path: String, _ ancestor: String) -> Bool {
        if path == ancestor || ancestor == "/" { return true }
        return path.hasPrefix(ancestor + "/")
    }

    /// `path` (absolute) as the file system resolves it: the longest part that exists goes through `realpath(3)`
    /// (symbolic links resolved), the rest is appended as written. For comparing folders that may not exist yet.
    public static func physical(_ path: String) -> String {
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
            existing = parent(of: existing)
        }
    }

    /// `realpath(3)`: `path` with every symbolic link resolved; nil when it cannot be (a part is missing).
    public static func real(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// The current working directory (`/` when it cannot be read).
    public static func currentDirectory() -> String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        guard getcwd(&buffer, buffer.count) != nil else { return "/" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }
}
