/// Something that kept a backup from being complete, with the file it concerns and what to do (a photodrop addition).
public struct BackupProblem: Sendable, Hashable {
    /// What went wrong.
    public enum Kind: String, Sendable, CaseIterable {
        /// An original the snapshot records was gone from the library by the time it was copied, and the library no
        /// longer records it either: a purge removed it during the backup. Run the backup again.
        case removedDuringBackup
        /// An original the snapshot records is missing from the library, which still records it.
        case missingInLibrary
        /// An original in the library does not have the size or SHA-256 its catalog recorded.
        case damagedInLibrary
        /// A file could not be read, written or linked.
        case copyFailed
        /// A copied file did not read back with the bytes that were written.
        case copyDamaged
        /// SQLite's `integrity_check` found damage in the copied catalog.
        case databaseIntegrity
    }

    public var kind: Kind
    /// The file concerned (in the library or in the backup), when there is one.
    public var path: String?
    /// The asset concerned, when there is one.
    public var assetIdentifier: String?
    /// What happened and what to do, for a person.
    public var message: String

    public init(kind: Kind, path: String? = nil, assetIdentifier: String? = nil, message: String) {
        self.kind = kind
        self.path = path
        self.assetIdentifier = assetIdentifier
        self.message = message
    }
}
