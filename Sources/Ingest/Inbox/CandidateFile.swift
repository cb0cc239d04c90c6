import FoundationEssentials
import PhotodropSystem
import PhotodropConfiguration

/// A file found in the inbox (or an import source) that may be taken, with the album it belongs to.
public struct CandidateFile: Sendable, Hashable {
    /// The full path, for messages.
    public var path: String
    /// The file below the scanned root's open folder: how the file is opened, never through a link (nil only for
    /// candidates made by hand).
    public var location: FileLocation?
    /// The path relative to the scanned root (for a single file given as the root: its name).
    public var relativePath: String
    /// The album key (see ``AlbumRule``: `Trip`, or `2023/Paris` in the `path` mode; Unicode NFC), or nil for
    /// "library only, no album".
    public var album: String?

    public init(path: String, relativePath: String, album: String?, location: FileLocation? = nil) {
        self.path = path
        self.location = location
        self.relativePath = relativePath
        self.album = album
    }

    public static func == (lhs: CandidateFile, rhs: CandidateFile) -> Bool {
        lhs.path == rhs.path && lhs.relativePath == rhs.relativePath && lhs.album == rhs.album
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(path)
        hasher.combine(relativePath)
        hasher.combine(album)
    }
}
