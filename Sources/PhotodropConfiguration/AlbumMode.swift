/// How inbox folders become albums (config `albums`).
public enum AlbumMode: String, Sendable, Hashable, CaseIterable {
    /// The first-level folder names the album; deeper folders file into it (`Inbox/2023/Paris/x.jpg` → album `2023`).
    case firstLevel
    /// The deepest folder names the album, wherever it is (`2023/Paris` and `2024/Paris` → one album `Paris`).
    case leaf
    /// Each folder level is a folder of the library holding the albums (`Inbox/2023/Paris/` → folder `2023`, album
    /// `Paris`, distinct from `2024/Paris`).
    case path
}
