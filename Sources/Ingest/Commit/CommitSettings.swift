import PhotodropConfiguration

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

    /// How files that belong together are gathered (``PairingDesk``); nil commits every file on its own.
    public struct Pairing: Sendable, Hashable {
        /// How long a file that may have a partner waits for it (config `pairWaitSeconds`).
        public var wait: Duration
        /// Whether a RAW and its JPEG/HEIC become one asset (config `rawAndJpeg`).
        public var pairsRawAndJpeg: Bool

        public init(wait: Duration, pairsRawAndJpeg: Bool) {
            self.wait = wait
            self.pairsRawAndJpeg = pairsRawAndJpeg
        }
    }

    /// How accepted files get into the library.
    public var placement: Placement
    /// Pairing of Live Photos, RAW+JPEG, edits and sidecars; nil: none.
    public var pairing: Pairing?
    /// What a duplicate does to the album.
    public var duplicates: DuplicatePolicy
    /// Whether the dropped copy of a duplicate is removed after the commit (watch, `import --move`).
    var removesDuplicateCopies: Bool
    /// Whether rejected files are moved to `Rejected/` (watch, `import --move`) or only reported.
    var quarantinesRejected: Bool
    /// Whether the files come from claims that can be put back into the inbox (watch).
    var usesClaims: Bool
    /// The most outcomes committed in one transaction.
    ///
    /// The committer takes whatever the workers have queued, up to this many; that queue holds two such blocks (the
    /// workers fill one while the other commits). 256 by default: a `watch` burst drains in small steps and each
    /// file's latency stays short.
    /// `import --move` and `--dry-run` use ``movingImportBatchLimit``.
    var batchLimit: Int

    /// The group-commit limit of `import --move` (and `--dry-run`). A commit's cost is mostly the index pages it
    /// dirties, and the random-keyed indexes (asset UUIDs, SHA-256s) touch almost one page per file in a small commit
    /// but share pages in a large one: larger commits made `import --move` faster up to about 1,024 files (more did
    /// not pay: the last commit, which nothing overlaps, grows with it), and 768 is as fast as 1,024 with less peak
    /// memory, since the findings queue grows with this limit (BENCHMARKS.md has the runs). A copying `import` keeps
    /// 256: it is bound by the copies and their `fsync`s, and a deeper queue only held 4 MB more findings (W1: 40 MB at
    /// 1,024 against 36 MB).
    static let movingImportBatchLimit = 768

    /// Settings; see the presets ``watch(duplicates:)`` and ``importing(move:dryRun:duplicates:)``.
    public init(
        placement: Placement, duplicates: DuplicatePolicy, removesDuplicateCopies: Bool, quarantinesRejected: Bool,
        usesClaims: Bool, batchLimit: Int = 256, pairing: Pairing? = nil
    ) {
        self.pairing = pairing
        self.placement = placement
        self.duplicates = duplicates
        self.removesDuplicateCopies = removesDuplicateCopies
        self.quarantinesRejected = quarantinesRejected
        self.usesClaims = usesClaims
        self.batchLimit = max(1, batchLimit)
    }

    /// `photodrop watch`.
    public static func watch(duplicates: DuplicatePolicy, pairing: Pairing? = nil) -> CommitSettings {
        CommitSettings(
            placement: .move, duplicates: duplicates, removesDuplicateCopies: true, quarantinesRejected: true,
            usesClaims: true, pairing: pairing)
    }

    /// `photodrop import` (`move`: `--move`; `dryRun`: `--dry-run`).
    static func importing(
        move: Bool, dryRun: Bool, duplicates: DuplicatePolicy, pairing: Pairing? = nil
    ) -> CommitSettings {
        if dryRun {
            return CommitSettings(
                placement: .none, duplicates: duplicates, removesDuplicateCopies: false, quarantinesRejected: false,
                usesClaims: false, batchLimit: movingImportBatchLimit, pairing: pairing)
        }
        return CommitSettings(
            placement: move ? .move : .copy, duplicates: duplicates, removesDuplicateCopies: move,
            quarantinesRejected: move, usesClaims: false, batchLimit: move ? movingImportBatchLimit : 256,
            pairing: pairing)
    }
}

extension IngestConfig {
    /// The pairing the committer does, from ``pairWaitSeconds`` and ``rawAndJpeg``; nil when turned off.
    public var pairing: CommitSettings.Pairing? {
        pairWaitSeconds == 0
            ? nil : CommitSettings.Pairing(wait: .seconds(pairWaitSeconds), pairsRawAndJpeg: rawAndJpeg == .pair)
    }
}
