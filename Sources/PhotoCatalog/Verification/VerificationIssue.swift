/// One inconsistency between a library's catalog and its files, found by ``PhotoLibrary/verify(deep:readOnly:)``.
public struct VerificationIssue: Sendable, Hashable, CustomStringConvertible {
    /// What kind of inconsistency it is; the raw values are stable (`photodrop verify --json` prints them).
    public enum Kind: String, Sendable, Hashable, Codable, CaseIterable {
        /// The catalog lists an original that is not on disk.
        case missingOriginal
        /// An original exists but cannot be read (permissions, I/O error, not a regular file).
        case unreadableOriginal
        /// An original's size differs from the size the catalog recorded.
        case sizeMismatch
        /// An original's SHA-256 differs from the catalog's (found only by a deep check).
        case hashMismatch
        /// An asset has no stored original at all.
        case assetWithoutOriginal
        /// Several resources name the same stored file (photodrop never writes that: each name starts with its
        /// asset's UUID).
        case sharedOriginal
        /// A file under `originals/` that no asset refers to and no change in flight is placing.
        case orphanFile
        /// Placement intents of a writer that stopped mid-change (killed, crashed): files it placed or was removing
        /// are not settled yet. The next write to the library finishes or undoes them.
        case interruptedChange
        /// A file that crash recovery kept in `recovered/` because its original place was taken.
        case recoveredFile
        /// A damaged stored original that a good copy replaced, kept in `damaged/` for a person to inspect.
        case damagedOriginalKept
        /// An album's stored member count differs from its members.
        case albumCountMismatch
        /// SQLite's own check (`quick_check`/`integrity_check`, `foreign_key_check`) found damage.
        case databaseIntegrity
        /// A folder of the library could not be listed, so files in it were not checked.
        case unreadableFolder
        /// A recorded thumbnail or preview is missing, of the wrong size or (deep) the wrong bytes: made again from
        /// its original by `photodrop thumbnails`; nothing of the original is lost.
        case damagedDerivative
        /// A file under `derivatives/` that no asset refers to (an interrupted run): safe to delete.
        case orphanDerivative
    }

    /// What kind of inconsistency it is.
    public var kind: Kind
    /// The file concerned, absolute, when there is one.
    public var path: String?
    /// The asset concerned, when there is one.
    public var assetIdentifier: String?
    /// The album concerned, when there is one.
    public var albumIdentifier: String?
    /// What is wrong and what a person can do about it.
    public var message: String

    /// An issue; `message` should say what to do.
    public init(
        kind: Kind, path: String? = nil, assetIdentifier: String? = nil, albumIdentifier: String? = nil,
        message: String
    ) {
        self.kind = kind
        self.path = path
        self.assetIdentifier = assetIdentifier
        self.albumIdentifier = albumIdentifier
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }
}
