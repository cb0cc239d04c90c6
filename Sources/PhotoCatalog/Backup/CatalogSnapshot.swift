/// A consistent copy of a library's catalog written by ``PhotoLibrary/writeCatalogSnapshot(to:)``, and the stored
/// files that copy refers to (a photodrop addition).
///
/// The file list is read from the copy itself, so it is exactly what the copy records: a file stored after the
/// snapshot is not in it (the next snapshot has it), and a file a purge removes after the snapshot is still listed.
public struct CatalogSnapshot: Sendable {
    /// One file under `originals/` or `derivatives/` that the snapshot's catalog records.
    public struct StoredFile: Sendable, Hashable {
        /// Which of the library's two folders of stored files holds it.
        public enum Kind: String, Sendable {
            /// A stored original (a resource of an asset).
            case original
            /// A thumbnail, preview or playable video made from an original.
            case derivative
        }

        public var kind: Kind
        /// The path relative to the library folder (`originals/ab/<uuid>.jpg`).
        public var path: String
        /// The size the catalog recorded.
        public var byteCount: Int64
        /// The SHA-256 (lowercase hex) the catalog recorded.
        public var sha256: String
        /// The asset the file belongs to.
        public var assetIdentifier: String
    }

    /// Where the copy of the database was written.
    public var databasePath: String
    /// The library's identifier (`library_meta.library_id`); the copy keeps it.
    public var libraryID: String
    /// Assets in the snapshot, Recently Deleted included.
    public var assetCount: Int
    /// Every stored file the snapshot records, originals first, each group sorted by path.
    public var files: [StoredFile]
    /// The size of the database copy in bytes.
    public var databaseBytes: Int64

    /// The originals the snapshot records.
    public var originals: [StoredFile] { files.filter { $0.kind == .original } }
    /// The thumbnails, previews and playable videos the snapshot records.
    public var derivatives: [StoredFile] { files.filter { $0.kind == .derivative } }
}
