/// Path arithmetic on plain strings, for the writer's hot path: `NSString`'s and `URL`'s equivalents normalise and
/// allocate, and cost more per file than the SQLite rows they serve.
///
/// Paths are taken as given (no `..` resolution, no trailing-slash normalisation beyond what each function says).
enum FilePathText {
    /// Everything before the last `/` (`"/a/b/c.jpg"` → `"/a/b"`, `"/c.jpg"` → `"/"`, `"c.jpg"` → `""`).
    static func parent(of path: String) -> String {
        let utf8 = path.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return "" }
        if slash == utf8.startIndex { return "/" }
        return String(path[..<slash])
    }

    /// Everything after the last `/` (`"/a/b/c.jpg"` → `"c.jpg"`; a path without `/` is its own last component).
    static func lastComponent(of path: String) -> String {
        let utf8 = path.utf8
        guard let slash = utf8.lastIndex(of: UInt8(ascii: "/")) else { return path }
        return String(path[path.index(after: slash)...])
    }

    /// The extension of the last component without its dot, as `URL.pathExtension` gives it: `"c.JPG"` → `"JPG"`,
    /// `"archive.tar.gz"` → `"gz"`; none (`""`) for `".hidden"`, `"..jpg"`, `"name."`, `"name"` and an extension with
    /// a space in it.
    static func pathExtension(of path: String) -> String {
        let name = lastComponent(of: path)
        let utf8 = name.utf8
        guard let dot = utf8.lastIndex(of: UInt8(ascii: ".")),
            utf8[..<dot].contains(where: { $0 != UInt8(ascii: ".") })
        else { return "" }
        let after = utf8.index(after: dot)
        guard after != utf8.endIndex, !utf8[after...].contains(UInt8(ascii: " ")) else { return "" }
        return String(name[after...])
    }
}
