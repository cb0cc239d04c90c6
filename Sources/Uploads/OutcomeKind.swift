/// How one dropped file ended, as `import --json`, the log and the outcome records name it.
public enum OutcomeKind: String, Sendable, Hashable, CaseIterable {
    /// A new photo asset.
    case photo
    /// A new GIF asset.
    case gif
    /// A new video asset.
    case video
    /// The content was already stored: the existing asset (the asset ID) was added to the album
    /// (`duplicates: addToAlbum`) or left as it was (`skip`).
    case duplicate
    /// Stored as a resource of another file's asset (the asset ID): a Live Photo's movie, the RAW of a
    /// RAW+JPEG pair, an edit, adjustments, a sidecar.
    case attached
    /// Not a supported photo, GIF or playable video; moved to `Rejected/` (watch, `import --move`) or only
    /// reported (`import`).
    case rejected
    /// An I/O or database error; the file was left where it was.
    case failed

    /// Whether the file became (or already was) an asset.
    public var isStored: Bool { self != .rejected && self != .failed }
}
