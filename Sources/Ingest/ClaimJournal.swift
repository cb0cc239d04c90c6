import Foundation
import PhotoCatalog
import PhotodropSystem

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#endif

/// Takes settled files out of the inbox atomically and remembers them in the library's journal, so that a crash at
/// any instant loses nothing: the next start finishes or rolls back every file in flight (``recover(logger:)``).
///
/// Order of a claim: (1) one journal transaction with a `claim` entry per file (``ClaimPayload``), (2) each file
/// renamed to `<inbox>/.photodrop/claimed/<entry id>` — a dot-folder on the inbox's own file system, which the
/// watcher and the scanner skip. A staged file without an entry is therefore always finished work. The entry is
/// removed in the same transaction that stores the asset (``PhotoCatalog/JournalChangeRequest``), or after the file
/// was rejected or put back.
public struct ClaimJournal: Sendable {
    /// The journal kind of claim entries.
    public static let kind = "claim"

    /// A file the settle step found finished.
    public struct SettledFile: Sendable, Hashable {
        /// Relative to the inbox.
        public var relativePath: String
        /// What the last look saw.
        public var identity: FileIdentity
        /// The grace period of a truncated file ended: reject it if it is still truncated.
        public var graceExpired: Bool

        /// A settled file.
        public init(relativePath: String, identity: FileIdentity, graceExpired: Bool = false) {
            self.relativePath = relativePath
            self.identity = identity
            self.graceExpired = graceExpired
        }
    }

    /// The outcome of a claim batch.
    public struct Claimed: Sendable {
        /// Jobs for the workers, one per file now staged.
        public var jobs: [IngestJob] = []
        /// Files that were gone (or could not be moved) by the time of the rename; nothing happened to them.
        public var missed: [(path: String, error: SystemError)] = []
    }

    /// What ``recover(logger:)`` found after a crash.
    public struct Recovery: Sendable {
        /// Staged files whose entry survived: process them again.
        public var jobs: [IngestJob] = []
        /// Entries whose file never left the inbox (crash between journal and rename): dropped; the scan takes them.
        public var returnedToInbox = 0
        /// Entries whose file was already finished (stored, or rejected just before the crash): dropped.
        public var alreadyFinished = 0
        /// Staged files without an entry: their content was committed (a duplicate's dropped copy); removed.
        public var removedStagedFiles = 0
    }

    /// The library whose journal holds the claims.
    public let library: PhotoLibrary
    /// The watched inbox (absolute).
    public let inbox: String
    /// `<inbox>/.photodrop/claimed`.
    public let stagingFolder: String

    /// Claims for `inbox` (absolute), journaled in `library`.
    public init(library: PhotoLibrary, inbox: String) {
        self.library = library
        self.inbox = inbox
        self.stagingFolder = PathResolution.join(inbox, ".photodrop/claimed")
    }

    /// The staged path of the file claimed by entry `id`.
    public func stagedPath(_ id: Int64) -> String { stagingFolder + "/" + String(id) }

    /// The absolute path of a file in the inbox.
    public func inboxPath(_ relative: String) -> String { PathResolution.join(inbox, relative) }

    /// Creates the staging folder (and the inbox and `.photodrop`) if missing.
    public func prepare() throws(SystemError) {
        try ClaimJournal.makeDirectories(stagingFolder)
    }

    /// Claims `files`: one journal transaction, then one rename each.
    ///
    /// - Throws: the database error when the journal could not be written; then no file was moved.
    public func claim(_ files: [SettledFile], now: ContinuousClock.Instant = .now) async throws -> Claimed {
        guard !files.isEmpty else { return Claimed() }
        let payloads = files.map { file in
            Data(
                ClaimPayload(
                    source: file.relativePath, album: CandidateFile.album(forRelativePath: file.relativePath),
                    identity: file.identity, graceExpired: file.graceExpired
                ).encoded)
        }
        let ids = try await library.appendJournalEntries(kind: ClaimJournal.kind, payloads: payloads)
        var claimed = Claimed()
        claimed.jobs.reserveCapacity(files.count)
        var orphans: [Int64] = []
        for (file, id) in zip(files, ids) {
            let source = inboxPath(file.relativePath)
            let staged = stagedPath(id)
            do throws(SystemError) {
                var outcome: SafeRename.Outcome
                do {
                    outcome = try SafeRename.renameWithoutReplacing(from: source, to: staged)
                } catch  where error.code == ENOENT && !ClaimJournal.exists(stagingFolder) {
                    // The inbox was removed and made again: the staging folder went with it.
                    try prepare()
                    outcome = try SafeRename.renameWithoutReplacing(from: source, to: staged)
                }
                if outcome == .destinationExists {
                    // Only a stale file from a damaged staging folder can be in the way; never overwrite it.
                    throw SystemError(code: EEXIST, call: "rename", path: staged)
                }
            } catch {
                orphans.append(id)
                claimed.missed.append((file.relativePath, error))
                continue
            }
            claimed.jobs.append(
                IngestJob(
                    path: staged, displayPath: file.relativePath,
                    album: CandidateFile.album(forRelativePath: file.relativePath),
                    originalName: PathResolution.lastComponent(of: file.relativePath), claimID: id,
                    expectedIdentity: file.identity, graceExpired: file.graceExpired, startedAt: now))
        }
        if !orphans.isEmpty { try? await library.removeJournalEntries(orphans) }
        return claimed
    }

    /// Puts a claimed file back into the inbox at its old path (or, if a new file took that name meanwhile, beside
    /// it as `name (2).ext`), and returns the path relative to the inbox. The caller removes the journal entry.
    public func unclaim(_ job: IngestJob) throws(SystemError) -> String {
        let relative = job.displayPath
        let folder = PathResolution.directory(of: inboxPath(relative))
        try ClaimJournal.makeDirectories(folder)
        let parent = relative.contains("/") ? PathResolution.directory(of: relative) + "/" : ""
        for attempt in 1...1000 {
            let name = attempt == 1 ? job.originalName : Quarantine.suffixed(job.originalName, attempt)
            let candidate = parent + name
            if try SafeRename.renameWithoutReplacing(from: job.path, to: inboxPath(candidate)) == .moved {
                return candidate
            }
        }
        throw SystemError(code: EEXIST, call: "rename", path: inboxPath(relative))
    }

    /// Reconciles the journal with the staging folder after a crash. Run it after
    /// ``PhotoCatalog/PhotoLibrary/recoverInterruptedChanges()`` (which puts half-placed originals back into the
    /// staging folder) and before the first scan.
    ///
    /// - staged file exists → process it again (its job is returned);
    /// - staged file missing, source back in the inbox → drop the entry (the scan takes the file);
    /// - neither → the file was finished (stored or rejected) just before the crash: drop the entry;
    /// - staged files without an entry → finished work (a duplicate's dropped copy): delete.
    public func recover(logger: Logger = .disabled) async throws -> Recovery {
        try prepare()
        var recovery = Recovery()
        let entries = try library.journalEntries(kind: ClaimJournal.kind)
        var known = Set<Int64>()
        var dropped: [Int64] = []
        for entry in entries {
            known.insert(entry.id)
            let staged = stagedPath(entry.id)
            guard let payload = ClaimPayload(decoding: Array(entry.payload)) else {
                logger.warning(
                    "dropping an unreadable claim journal entry",
                    ["entry": .count(entry.id), "staged": .string(staged)])
                if ClaimJournal.exists(staged) {
                    // Never delete bytes we cannot account for: put them back into the inbox root.
                    _ = try? SafeRename.renameWithoutReplacing(from: staged, to: inboxPath("recovered-\(entry.id)"))
                }
                dropped.append(entry.id)
                continue
            }
            if ClaimJournal.exists(staged) {
                recovery.jobs.append(
                    IngestJob(
                        path: staged, displayPath: payload.source, album: payload.album,
                        originalName: payload.originalName, claimID: entry.id, expectedIdentity: nil,
                        graceExpired: payload.graceExpired))
            } else if ClaimJournal.exists(inboxPath(payload.source)) {
                recovery.returnedToInbox += 1
                dropped.append(entry.id)
            } else {
                recovery.alreadyFinished += 1
                dropped.append(entry.id)
            }
        }
        if !dropped.isEmpty { try await library.removeJournalEntries(dropped) }
        let stream = try DirectoryStream(path: stagingFolder)
        while let item = try stream.next() {
            guard let id = Int64(item.name), !known.contains(id), item.type == .regular else { continue }
            if unlink(stagingFolder + "/" + item.name) == 0 { recovery.removedStagedFiles += 1 }
        }
        return recovery
    }

    static func exists(_ path: String) -> Bool {
        var info = stat()
        return lstat(path, &info) == 0
    }

    static func makeDirectories(_ path: String) throws(SystemError) {
        var info = stat()
        if stat(path, &info) == 0 { return }
        let parent = PathResolution.directory(of: path)
        if parent != path { try makeDirectories(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw SystemError.current("mkdir", path: path) }
    }
}
