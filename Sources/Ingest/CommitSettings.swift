/// What the committer does with each kind of outcome; the differences between `watch`, `import`, `import --move` and
/// `import --dry-run`.
public struct CommitSettings: Sendable, Hashable {
    /// How an accepted file gets into the library.
    public enum Placement: Sendable, Hashable {
        /// `rename(2)` (copy and remove across file systems): watch and `import --move`.
        case move
        /// Reflink or copy, the source stays: `import`.
        case copy
        /// Nothing is written at all: `import --dry-run`.
        case none
    }

    /// How accepted files get into the library.
    public var placement: Placement
    /// What a duplicate does to the album.
    public var duplicates: DuplicatePolicy
    /// Whether the dropped copy of a duplicate is removed after the commit (watch, `import --move`).
    public var removesDuplicateCopies: Bool
    /// Whether rejected files are moved to `Rejected/` (watch, `import --move`) or only reported.
    public var quarantinesRejected: Bool
    /// Whether the files come from claims that can be put back into the inbox (watch).
    public var usesClaims: Bool
    /// The most outcomes committed in one transaction.
    public var batchLimit: Int

    /// Settings; see the presets ``watch(duplicates:)`` and ``importing(move:dryRun:duplicates:)``.
    public init(
        placement: Placement, duplicates: DuplicatePolicy, removesDuplicateCopies: Bool, quarantinesRejected: Bool,
        usesClaims: Bool, batchLimit: Int = 256
    ) {
        self.placement = placement
        self.duplicates = duplicates
        self.removesDuplicateCopies = removesDuplicateCopies
        self.quarantinesRejected = quarantinesRejected
        self.usesClaims = usesClaims
        self.batchLimit = max(1, batchLimit)
    }

    /// `photodrop watch`.
    public static func watch(duplicates: DuplicatePolicy) -> CommitSettings {
        CommitSettings(
            placement: .move, duplicates: duplicates, removesDuplicateCopies: true, quarantinesRejected: true,
            usesClaims: true)
    }

    /// `photodrop import` (`move`: `--move`; `dryRun`: `--dry-run`).
    public static func importing(move: Bool, dryRun: Bool, duplicates: DuplicatePolicy) -> CommitSettings {
        if dryRun {
            return CommitSettings(
                placement: .none, duplicates: duplicates, removesDuplicateCopies: false, quarantinesRejected: false,
                usesClaims: false)
        }
        return CommitSettings(
            placement: move ? .move : .copy, duplicates: duplicates, removesDuplicateCopies: move,
            quarantinesRejected: move, usesClaims: false)
    }
}
