/// What happens to a dropped file whose SHA-256 matches an asset already in the library.
public enum DuplicatePolicy: String, Sendable, Hashable, CaseIterable {
    /// The existing asset is added to the album of the dropped file, and the dropped copy is removed.
    case addToAlbum
    /// The dropped copy is removed; album memberships stay as they are.
    case skip
}
