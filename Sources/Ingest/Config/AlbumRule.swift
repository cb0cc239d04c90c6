/// How scanned files get their album.
public enum AlbumRule: Sendable, Hashable {
    /// The inbox rule: first-level folder = album (NFC), files in the root have none.
    case firstLevelFolder
    /// Every file gets this album (`import --album NAME`), or none (nil).
    case fixed(String?)
}
