import PhotodropSystem
/// How scanned files get their album: the album key of a file, which is also the inbox folder its album is bound to.
///
/// The key is `Trip` (first level), `Paris` (leaf), or `2023/Paris` (path: each level but the last names a folder of
/// the library, the last the album). Folder names are in Unicode NFC. Files directly in the root have no album.
public enum AlbumRule: Sendable, Hashable {
    /// Inbox folders, by the configured ``AlbumMode``.
    case folders(AlbumMode)
    /// Every file gets this album (`import --album NAME`), or none (nil).
    case fixed(String?)

    /// The default inbox rule: the first-level folder is the album.
    public static let firstLevelFolder = AlbumRule.folders(.firstLevel)

    /// The album key of a file at `relativePath` below the root.
    public func album(forRelativePath relativePath: String) -> String? {
        switch self {
        case .fixed(let album): return album
        case .folders(let mode):
            // Bytes, not Characters: a name starting with a combining mark forms one Character with the "/" before it.
            guard let lastSlash = relativePath.utf8.lastIndex(of: UInt8(ascii: "/")) else { return nil }
            return AlbumRule.album(forFolder: relativePath[..<lastSlash], mode: mode)
        }
    }

    /// The album key of the files in `folder` (a path below the root, without a trailing slash).
    public static func album(forFolder folder: Substring, mode: AlbumMode) -> String? {
        let parts = folder.utf8.split(separator: UInt8(ascii: "/")).map { Substring($0) }
        guard let first = parts.first, let last = parts.last else { return nil }
        switch mode {
        case .firstLevel: return Self.albumTitle(forFolderName: first)
        case .leaf: return Self.albumTitle(forFolderName: last)
        case .path: return parts.map { Self.albumTitle(forFolderName: $0) }.joined(separator: "/")
        }
    }

    /// The album's title for a key: its last level.
    public static func title(forAlbum key: String) -> String {
        key.utf8.lastIndex(of: UInt8(ascii: "/")).map { String(key[key.utf8.index(after: $0)...]) } ?? key
    }

    /// The folder paths that hold a key's album, outermost first (`2023/Paris` → `["2023"]`).
    public static func folders(forAlbum key: String) -> [String] {
        var result: [String] = []
        var index = key.utf8.startIndex
        while let slash = key.utf8[index...].firstIndex(of: UInt8(ascii: "/")) {
            result.append(String(key[..<slash]))
            index = key.utf8.index(after: slash)
        }
        return result
    }

    /// A folder name as an album title: Unicode NFC, so that `Cafe\u{301}` (NFD, as macOS writes over SMB) and
    /// `Caf\u{E9}` (NFC) are the same album, byte for byte.
    public static func albumTitle(forFolderName name: some StringProtocol) -> String {
        let text = String(name)
        // ASCII is always NFC; skip Foundation's normalisation for the common case.
        if text.utf8.allSatisfy({ $0 < 0x80 }) { return text }
        return text.canonicallyComposed
    }
}
