import FoundationEssentials
import PhotoCatalog
import PhotodropSystem
import Synchronization
import PhotodropTelemetry
import PhotodropConfiguration
import Uploads

/// Takes settled files out of the inbox atomically and remembers them in the library's journal, so that a crash at
/// any instant loses nothing: the next start finishes or rolls back every file in flight (``recover(logger:)``).
///
/// Order of a claim: (1) one journal transaction with a `claim` entry per file (``ClaimPayload``), (2) each file
/// renamed to `<inbox>/.photodrop/claimed/<entry id>` — a dot-folder on the inbox's own file system, which the
/// watcher and the scanner skip, and which only the daemon's user may enter (mode 0700): nobody else can touch a
/// staged file between its hash and its placement. The entry is removed in the same transaction that stores the
/// asset (``PhotoCatalog/JournalChangeRequest``), or after the file was rejected or put back.
///
/// Every rename goes through open folders (``FolderRoot``, ``PhotodropSystem/Directory``): a folder of the inbox
/// swapped for a symbolic link between the look and the claim cannot make photodrop take a file from outside the
/// inbox, and the staging folder is held open, so that replacing `.photodrop` in the inbox changes nothing.
public struct ClaimJournal: Sendable {
    /// The journal kind of claim entries of a library that one node writes (SQLite).
    public static let kind = "claim"

    /// The outcome of a claim batch.
    public struct Claimed: Sendable {
        /// Jobs for the workers, one per file now staged.
        public var jobs: [IngestJob] = []
        /// Files that were gone (or could not be moved) by the time of the rename; nothing happened to them.
        public var missed: [(path: String, error: SystemError)] = []
    }

    /// What ``recover(logger:)`` found after a crash.
    public struct Recovery: Sendable {
        /// Staged files to process (again): those whose entry survived, and staged files without an entry.
        public var jobs: [IngestJob] = []
        /// Entries whose file never left the inbox (crash between journal and rename): dropped; the scan takes them.
        var returnedToInbox = 0
        /// Entries whose file was already finished (stored, or rejected just before the crash): dropped.
        var alreadyFinished = 0
        /// Staged files without an entry (usually the dropped copy of a duplicate whose commit removed the entry just
        /// before the crash): claimed again and processed like any drop, never deleted unseen.
        var unaccountedStagedFiles = 0
    }

    /// The library whose journal holds the claims.
    public let library: PhotoLibrary
    /// The watched inbox.
    public let inbox: FolderRoot
    /// How a claimed file's folder names its album (config `albums`).
    public let albums: AlbumRule
    /// The node whose claims these are (config `node`), when several share the catalog (PostgreSQL); nil for a
    /// library one node writes. Each node has its own journal kind and staging folder, so that one node's recovery
    /// never touches another's files.
    public let node: String?
    /// This node's journal kind: `claim`, or `claim:<node>`.
    public let kind: String
    /// This node's staging folder, relative to the inbox: `.photodrop/claimed`, or `.photodrop/claimed/<node>`.
    public let stagingRelativePath: String
    private let staging: StagingFolder
    /// Entries to remove that could not be removed when they should have been (``settleLeftovers()``).
    let leftovers = ClaimLeftovers()
    /// Names claimed lately, by folder and pairing stem: a file whose partner was claimed a moment before it (and so
    /// is no longer in the folder) still knows it has one.
    private let recent = RecentClaims()

    /// Claims for the inbox at `inbox` (absolute), journaled in `library`.
    public init(library: PhotoLibrary, inbox: String, albums: AlbumRule = .firstLevelFolder, node: String? = nil) {
        self.library = library
        self.inbox = FolderRoot(path: inbox)
        self.albums = albums
        self.node = node
        self.kind = ClaimJournal.kind(node: node)
        self.stagingRelativePath = ClaimJournal.stagingRelativePath(node: node)
        self.staging = StagingFolder()
    }

    /// `<inbox>/.photodrop/claimed`, for messages.
    var stagingPath: String { Path.join(inbox.path, stagingRelativePath) }

    /// The journal kind of `node`'s claims: `claim:<node>`, or `claim` for a library one node writes.
    public static func kind(node: String?) -> String { node.map { "\(kind):\($0)" } ?? kind }

    /// The staging folder of `node`, relative to the inbox.
    public static func stagingRelativePath(node: String?) -> String {
        node.map { ".photodrop/claimed/\($0)" } ?? ".photodrop/claimed"
    }

    /// Removes node `node`'s staging folder from the inbox at `inbox` when it is empty (a node that stops with
    /// nothing claimed): nodes still running on the inbox then no longer count it as sharing the inbox
    /// (``InboxShare``), should it run on another inbox next. One that holds files stays: they are the node's to finish
    /// at its next start, or another node's to take over.
    public static func removeStagingFolderIfEmpty(inbox: String, node: String) {
        guard let parent = try? FolderRoot(path: inbox).directory().directory(stagingRelativePath(node: nil)) else {
            return
        }
        try? parent.removeDirectory(node)  // ENOTEMPTY: it holds claimed files, and stays
    }

    /// The absolute path of a file in the inbox, for messages.
    func inboxPath(_ relative: String) -> String { Path.join(inbox.path, relative) }

    /// Opens (and creates, mode 0700) the inbox and its staging folder.
    public func prepare() throws(SystemError) {
        _ = try stagingFolder()
    }

    /// The staging folder, held open; opened again only when it was deleted (an inbox removed and made anew).
    func stagingFolder() throws(SystemError) -> Directory {
        if let current = staging.current(), (try? current.status().linkCount) ?? 0 > 0 { return current }
        let root = try inbox.directory(creating: true)
        let folder = try root.directory(stagingRelativePath, creating: true, mode: 0o700)
        // Only the daemon's user may enter the staging folder (folders made by an older photodrop were 0755);
        // .photodrop itself stays readable: it may hold the daemon's status when the library cannot be written.
        try? folder.descriptor.setPermissions(0o700)
        if let parent = try? root.directory(".photodrop") { try? parent.descriptor.setPermissions(0o755) }
        staging.set(folder)
        return folder
    }

    /// The staged file of entry `id`.
    func staged(_ id: Int64, in folder: Directory) -> FileLocation {
        FileLocation(directory: folder, relativePath: String(id))
    }

    /// Claims the settled files `files` (``IngestJob/init(settledAt:in:identity:graceExpired:incompleteVerdict:)``):
    /// one journal transaction, then one rename each (from the file's folder, opened once per batch, into the staging
    /// folder). The jobs come back with what the claim decided: entry, album, siblings, staged location.
    ///
    /// - Throws: the database error when the journal could not be written; then no file was moved.
    public func claim(_ files: [IngestJob], now: ContinuousClock.Instant = .now) async throws -> Claimed {
        guard !files.isEmpty else { return Claimed() }
        var files = files
        for index in files.indices {
            precondition(files[index].expectedIdentity != nil, "a settled file carries the identity its look saw")
            files[index].album = albums.album(forRelativePath: files[index].displayPath)
            files[index].startedAt = now
        }
        // Which files have a same-stem sibling in their folder (a Live Photo's other half, a RAW's JPEG, a sidecar):
        // listed before the renames, while this batch's files are still there, once per folder.
        // The folders opened for the listing are the ones the renames below go through.
        // Keyed by bytes: Swift's String equality is canonical, and `Cafe\u{301}` and `Caf\u{E9}` are two folders.
        var folders: [[UInt8]: Directory] = [:]
        var siblings: [[UInt8]: StemSiblings] = [:]
        let listingRoot = try? inbox.directory()
        for (index, file) in files.enumerated() {
            let (folderPath, name) = Path.split(file.displayPath)
            let key = Array(folderPath.utf8)
            if siblings[key] == nil {
                let folder = folderPath.isEmpty ? listingRoot : try? listingRoot?.directory(folderPath)
                if let folder { folders[key] = folder }
                siblings[key] = StemSiblings(listing: folder)
            }
            files[index].sameStemCount = siblings[key]?.count(name) ?? 1
            files[index].hasSameStemSibling = files[index].sameStemCount > 1
        }
        let recentSiblings = recent.note(files.map { Path.split($0.displayPath) }, now: now)
        for index in files.indices where recentSiblings[index] { files[index].hasSameStemSibling = true }
        await settleLeftovers()
        let batch = UInt64.random(in: 1...UInt64.max)
        let payloads = files.map { file in
            var payload = ClaimPayload(claiming: file)
            payload.batch = batch
            return Data(payload.encoded)
        }
        let ids: [Int64]
        do {
            ids = try await library.appendJournalEntries(kind: kind, payloads: payloads)
        } catch {
            // The files stay in the inbox. The write may still have been committed (a connection lost at the commit):
            // such entries are found by their batch number and removed a moment later.
            leftovers.noteFailedBatch(batch)
            throw error
        }
        var claimed = Claimed()
        claimed.jobs.reserveCapacity(files.count)
        var orphans: [Int64] = []
        let target: Directory
        let root: Directory
        do {
            target = try stagingFolder()
            root = try inbox.directory()
        } catch {
            await removeOrphans(ids)
            throw error
        }

        for (file, id) in zip(files, ids) {
            do throws(SystemError) {
                let (folderPath, name) = Path.split(file.displayPath)
                let folder: Directory
                let key = Array(folderPath.utf8)
                if let cached = folders[key] {
                    folder = cached
                } else {
                    folder = folderPath.isEmpty ? root : try root.directory(folderPath)
                    folders[key] = folder
                }
                guard try folder.rename(name, to: target, as: String(id)) else {
                    // Only a stale file from a damaged staging folder can be in the way; never overwrite it.
                    throw SystemError(code: Errno.fileExists, call: "renameat2", path: Path.join(stagingPath, String(id)))
                }
            } catch {
                orphans.append(id)
                claimed.missed.append((file.displayPath, error))
                continue
            }
            var job = file
            job.source = staged(id, in: target)
            job.claimID = id
            if let identity = file.expectedIdentity { job.node = FileNode(device: identity.device, inode: identity.inode) }
            claimed.jobs.append(job)
        }
        if !orphans.isEmpty { await removeOrphans(orphans) }
        return claimed
    }

    /// Removes the entries of files that were not moved after all (another node took them first, or they were gone);
    /// when the catalog cannot be written just now, they are kept for ``settleLeftovers()``.
    private func removeOrphans(_ ids: [Int64]) async {
        do {
            try await library.removeJournalEntries(ids)
        } catch {
            leftovers.noteOrphans(ids)
        }
    }

    /// Removes the entries that should have gone and could not: those of files not moved after all whose removal
    /// failed, and those a failed journal write may have committed all the same (found by their batch number, a few
    /// seconds after the failure, and only when their file is not staged). Called before each claim and by the
    /// periodic rounds of a node sharing its catalog (``ClaimTakeover``); what fails is kept for the next call, and
    /// the next start's ``recover(logger:)`` drops whatever is left (their files are back in the inbox).
    public func settleLeftovers(now: ContinuousClock.Instant = .now) async {
        let (ids, batches) = leftovers.take(failedBefore: now - ClaimLeftovers.batchSettleDelay)
        guard !ids.isEmpty || !batches.isEmpty else { return }
        var remove = ids
        if !batches.isEmpty {
            do {
                let folder = try stagingFolder()
                for entry in try library.journalEntries(kind: kind) {
                    guard let payload = ClaimPayload(decoding: Array(entry.payload)), let batch = payload.batch,
                        batches.contains(batch), (try? folder.status(String(entry.id))) == nil
                    else { continue }
                    remove.append(entry.id)
                }
            } catch {
                leftovers.putBack(ids: ids, batches: batches, at: now)
                return
            }
        }
        guard !remove.isEmpty else { return }
        do {
            try await library.removeJournalEntries(remove)
        } catch {
            leftovers.putBack(ids: remove, batches: [], at: now)
        }
    }

    /// Puts a claimed file back into the inbox at its old path (or, if a new file took that name meanwhile, beside
    /// it as `name (2).ext`), and returns the path relative to the inbox. Missing folders on the way are made again.
    /// The caller removes the journal entry.
    func unclaim(_ job: IngestJob) throws(SystemError) -> String {
        let relative = job.displayPath
        let (folderPath, _) = Path.split(relative)
        let root = try inbox.directory(creating: true)
        let folder = folderPath.isEmpty ? root : try root.directory(folderPath, creating: true)
        let (from, name) = try job.source.parent()
        let prefix = folderPath.isEmpty ? "" : folderPath + "/"
        for attempt in 1...1000 {
            let candidate = attempt == 1 ? job.originalName : Quarantine.suffixed(job.originalName, attempt)
            if try from.rename(name, to: folder, as: candidate) { return prefix + candidate }
        }
        throw SystemError(code: Errno.fileExists, call: "renameat2", path: inboxPath(relative))
    }

    /// Reconciles the journal with the staging folder after a crash. Run it after
    /// ``PhotoCatalog/PhotoLibrary/recoverInterruptedChanges()`` (which puts half-placed originals back into the
    /// staging folder) and before the first scan.
    ///
    /// - staged file exists → process it again (its job is returned);
    /// - staged file missing, source back in the inbox → drop the entry (the scan takes the file);
    /// - neither → the file was finished (stored or rejected) just before the crash: drop the entry;
    /// - staged files without an entry → claimed again and processed like any drop. They are usually the dropped
    ///   copy of a duplicate whose entry went with its commit; the pipeline recognises that and removes them only
    ///   once the stored original is known to be intact. Nothing is deleted unseen.
    public func recover(logger: Logger = .disabled) async throws -> Recovery {
        let folder = try stagingFolder()
        var recovery = Recovery()
        let entries = try library.journalEntries(kind: kind)
        var known = Set<Int64>()
        var dropped: [Int64] = []
        var unrecorded: [FileRecord.Draft] = []
        let root = try inbox.directory(creating: true)
        for entry in entries {
            known.insert(entry.id)
            let name = String(entry.id)
            guard let payload = ClaimPayload(decoding: Array(entry.payload)) else {
                logger.warning(
                    "dropping an unreadable claim journal entry",
                    metadata: ["entry": .count(entry.id), "staged": .string(Path.join(stagingPath, name))])
                if (try? folder.status(name)) != nil {
                    // Never delete bytes we cannot account for: put them back into the inbox root.
                    _ = try? folder.rename(name, to: root, as: "recovered-\(entry.id)")
                }
                dropped.append(entry.id)
                continue
            }
            if let info = try? folder.status(name) ?? adopt(entry.id, payload, into: folder, root: root) {
                recovery.jobs.append(job(entry.id, payload, in: folder, info: info))
            } else if root.exists(payload.source) {
                recovery.returnedToInbox += 1
                dropped.append(entry.id)
            } else {
                recovery.alreadyFinished += 1
                dropped.append(entry.id)
                // Stored or rejected just before the crash; which, is not known here: say so to whoever asks.
                unrecorded.append(
                    OutcomeRecord(
                        outcome: "unknown", path: payload.source, album: payload.album,
                        message: "finished just before photodrop stopped, and its outcome was not recorded: it is in "
                            + "the library (look for its name) or in Rejected/ with its reason"
                    ).draft(for: FileNode(device: payload.identity.device, inode: payload.identity.inode)))
            }
        }
        if !dropped.isEmpty { try await library.appendFileRecords(unrecorded, removingJournalEntries: dropped) }
        var strays: [(name: String, info: FileStatus)] = []
        let stream = try folder.entries()
        while let item = try stream.next() {
            guard let id = Int64(item.name), !known.contains(id), item.type == .regular,
                let info = try? folder.status(item.name)
            else { continue }
            strays.append((item.name, info))
        }
        guard !strays.isEmpty else { return recovery }
        let payloads = strays.map { stray in
            Data(
                ClaimPayload(
                    source: "recovered-\(stray.name)", album: nil, identity: FileIdentity(stray.info)
                ).encoded)
        }
        let ids = try await library.appendJournalEntries(kind: kind, payloads: payloads)
        for (stray, id) in zip(strays, ids) {
            guard (try? folder.rename(stray.name, to: folder, as: String(id))) == true else { continue }
            recovery.unaccountedStagedFiles += 1
            recovery.jobs.append(
                IngestJob(
                    source: staged(id, in: folder), displayPath: "recovered-\(stray.name)", album: nil,
                    originalName: "recovered-\(stray.name)", claimID: id, expectedIdentity: FileIdentity(stray.info),
                    sizeHint: stray.info.size, node: stray.info.node))
        }
        return recovery
    }

}

extension ClaimJournal {
    /// The job of entry `id`, whose file is staged in `folder` (``recover(logger:)``, ``takeOver(from:lease:logger:)``).
    func job(_ id: Int64, _ payload: ClaimPayload, in folder: Directory, info: FileStatus) -> IngestJob {
        IngestJob(
            source: staged(id, in: folder), displayPath: payload.source, album: payload.album,
            originalName: payload.originalName, claimID: id, expectedIdentity: nil,
            graceExpired: payload.graceExpired, sizeHint: Int64(info.size),
            hasSameStemSibling: payload.hasSameStemSibling, sameStemCount: payload.sameStemCount, node: info.node)
    }

    /// Moves the file of entry `id`, taken over from another node, from that node's staging folder into this one's
    /// (`folder`) and returns its status; nil when it is not there (still being undone by the node it was taken from,
    /// or finished by it just before the takeover).
    func adopt(_ id: Int64, _ payload: ClaimPayload, into folder: Directory, root: Directory) -> FileStatus? {
        guard let from = payload.takenOverFrom, from.hasPrefix(".photodrop/claimed/"), !from.contains("/../") else {
            return nil
        }
        let (theirPath, name) = Path.split(from)
        guard let theirs = try? root.directory(theirPath), (try? theirs.rename(name, to: folder, as: String(id))) == true
        else { return nil }
        return try? folder.status(String(id))
    }

    /// Takes over the files a dead node (`deadNode`, whose lease ran out) left claimed in this inbox's staging folder
    /// (`.photodrop/claimed/<deadNode>/`), and returns their jobs for the pipeline.
    ///
    /// First one catalog transaction moves all its claim entries to this node under new ids (the new fencing numbers;
    /// it takes nothing while the dead node's daemon still holds its id, or its heartbeat is younger than `lease`
    /// seconds by the database's clock); then each file is renamed into this node's staging folder under its new id.
    /// A crash between the two is finished by this node's next ``recover(logger:)`` (the entry says where the file
    /// lies: ``ClaimPayload/takenOverFrom``). An entry whose file is not there is settled by ``adoptPending(lease:)``:
    /// its file back in the inbox (the dead node died between its journal and its rename) is left to the scan, a file
    /// that comes back later is moved here, and after `lease` seconds in neither place the file counts as finished.
    /// Only a node that used this inbox has a staging folder in it: a node with an inbox of its own finishes its files
    /// itself when it starts again.
    public func takeOver(from deadNode: String, lease: Double, logger: Logger = .disabled) async throws -> [IngestJob] {
        guard node != nil, deadNode != node else { return [] }
        let root = try inbox.directory()
        let theirPath = ClaimJournal.stagingRelativePath(node: deadNode)
        guard (try? root.directory(theirPath)) != nil else { return [] }
        let ids = try library.journalEntries(kind: ClaimJournal.kind(node: deadNode)).map(\.id)
        guard !ids.isEmpty else { return [] }
        let taken = try await library.takeOverJournalEntries(
            ofNode: deadNode, fromKind: ClaimJournal.kind(node: deadNode), toKind: kind, ids: ids, lease: lease
        ) { oldID, bytes in
            guard var payload = ClaimPayload(decoding: Array(bytes)) else { return bytes }
            payload.takenOverFrom = Path.join(theirPath, String(oldID))
            return Data(payload.encoded)
        }
        guard !taken.isEmpty else { return [] }
        let folder = try stagingFolder()
        var jobs: [IngestJob] = []
        for entry in taken {
            guard let payload = ClaimPayload(decoding: Array(entry.payload)),
                let info = adopt(entry.newID, payload, into: folder, root: root)
            else { continue }
            jobs.append(job(entry.newID, payload, in: folder, info: info))
        }
        logger.warning(
            "took over files another node had claimed and not finished before its lease ran out",
            metadata: [
                "from_node": .string(deadNode), "entries": .count(taken.count), "files": .count(jobs.count),
                "lease_s": .count(Int(lease)),
            ])
        return jobs + (try await adoptPending(lease: lease))
    }

    /// Settles the entries this node took over whose file was not in the other node's staging folder: a file that is
    /// there now (that node was undoing a placement its failed commit had made) is moved here and returned as a job;
    /// an entry whose file is back in the inbox is dropped (the scan takes the file, as after a crash); one whose file
    /// has been in neither place for `lease` seconds is dropped as finished (stored or rejected by the node it came
    /// from just before it died), with a record saying so.
    public func adoptPending(lease: Double) async throws -> [IngestJob] {
        guard node != nil else { return [] }
        let folder = try stagingFolder()
        let root = try inbox.directory()
        var jobs: [IngestJob] = []
        var dropped: [Int64] = []
        var unrecorded: [FileRecord.Draft] = []
        let now = Date()
        for entry in try library.journalEntries(kind: kind) {
            guard let payload = ClaimPayload(decoding: Array(entry.payload)), payload.takenOverFrom != nil,
                (try? folder.status(String(entry.id))) == nil
            else { continue }
            if let info = adopt(entry.id, payload, into: folder, root: root) {
                jobs.append(job(entry.id, payload, in: folder, info: info))
            } else if root.exists(payload.source) {
                dropped.append(entry.id)
            } else if now.timeIntervalSince(entry.createdAt) > lease {
                dropped.append(entry.id)
                unrecorded.append(
                    OutcomeRecord(
                        outcome: "unknown", path: payload.source, album: payload.album,
                        message: "finished by another node just before it stopped, and its outcome was not recorded: "
                            + "it is in the library (look for its name) or in Rejected/ with its reason"
                    ).draft(for: FileNode(device: payload.identity.device, inode: payload.identity.inode)))
            }
        }
        if !dropped.isEmpty { try await library.appendFileRecords(unrecorded, removingJournalEntries: dropped) }
        return jobs
    }
}

/// Claim entries to remove later (``ClaimJournal/settleLeftovers(now:)``), shared by the copies of a ``ClaimJournal``:
/// ids whose removal failed, and batch numbers whose journal write failed as far as the claimer could tell. Bounded: past
/// ``limit`` ids or batches the oldest are forgotten (the next start's recovery drops their entries).
final class ClaimLeftovers: Sendable {
    static let limit = 100_000
    /// How long after a failed write its batch is looked for (a commit the server was finishing when the connection
    /// broke is done by then).
    static let batchSettleDelay: Duration = .seconds(2)

    private struct State {
        var ids: [Int64] = []
        var batches: [(batch: UInt64, failed: ContinuousClock.Instant)] = []
    }

    private let state = Mutex(State())

    func noteOrphans(_ ids: [Int64]) {
        state.withLock { state in
            state.ids += ids
            if state.ids.count > Self.limit { state.ids.removeFirst(state.ids.count - Self.limit) }
        }
    }

    func noteFailedBatch(_ batch: UInt64, at instant: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.batches.append((batch, instant))
            if state.batches.count > Self.limit { state.batches.removeFirst(state.batches.count - Self.limit) }
        }
    }

    /// Takes the ids, and the batches that failed before `instant`.
    func take(failedBefore instant: ContinuousClock.Instant) -> (ids: [Int64], batches: Set<UInt64>) {
        state.withLock { state in
            guard !state.ids.isEmpty || !state.batches.isEmpty else { return ([], []) }
            let ids = state.ids
            state.ids.removeAll()
            var ready = Set<UInt64>()
            state.batches.removeAll { entry in
                guard entry.failed < instant else { return false }
                ready.insert(entry.batch)
                return true
            }
            return (ids, ready)
        }
    }

    /// Keeps what could not be settled for the next call.
    func putBack(ids: [Int64], batches: Set<UInt64>, at instant: ContinuousClock.Instant) {
        noteOrphans(ids)
        for batch in batches { noteFailedBatch(batch, at: instant - ClaimLeftovers.batchSettleDelay) }
    }
}

/// The staging folder's open descriptor, shared by the copies of a ``ClaimJournal``.
private final class StagingFolder: Sendable {
    private let folder = Mutex<Directory?>(nil)
    func current() -> Directory? { folder.withLock { $0 } }
    func set(_ directory: Directory) { folder.withLock { $0 = directory } }
}

/// The files claimed in the last ``lifetime``, by folder and pairing stem (at most ``limit`` kept).
///
/// Kept as 64-bit hashes of the bytes (Swift's per-process seeded `Hasher`), not as strings: about 40 bytes an
/// entry instead of about 130, which in a 10,000-file burst is a megabyte of `watch`'s peak. Among 20,000 entries
/// two keys collide with a chance of about 1 in 10^10; a collision only makes a file wait for a partner that does not
/// come (or, for the names, not wait for one that comes later and is paired late), never loses or misfiles it.
private final class RecentClaims: Sendable {
    static let lifetime: Duration = .seconds(300)
    static let limit = 20_000

    private struct Entry {
        /// The hash of the lowercased name claimed last under this key.
        var name: UInt64
        var claimed: ContinuousClock.Instant
    }

    private let entries = Mutex<[UInt64: Entry]>([:])

    /// Records `files` (folder, name); returns for each whether a file of the same folder and stem but another name
    /// was claimed within ``lifetime`` before it.
    func note(_ files: [(folder: String, name: String)], now: ContinuousClock.Instant) -> [Bool] {
        entries.withLock { entries in
            if entries.count > Self.limit {
                entries = entries.filter { now - $0.value.claimed < Self.lifetime }
                if entries.count > Self.limit { entries.removeAll() }
            }
            var result: [Bool] = []
            result.reserveCapacity(files.count)
            for (folder, name) in files {
                let key = Self.hash(folder, StemSiblings.pairingStem(of: name))
                let lowered = Self.hash(name.lowercased())
                if let earlier = entries[key], earlier.name != lowered, now - earlier.claimed < Self.lifetime {
                    result.append(true)
                } else {
                    result.append(false)
                }
                entries[key] = Entry(name: lowered, claimed: now)
            }
            return result
        }
    }

    /// The bytes of `parts`, each followed by a NUL (no name holds one), hashed.
    private static func hash(_ parts: String...) -> UInt64 {
        var hasher = Hasher()
        for part in parts {
            for byte in part.utf8 { hasher.combine(byte) }
            hasher.combine(UInt8(0))
        }
        return UInt64(bitPattern: Int64(hasher.finalize()))
    }
}

extension IngestConfig {
    /// This daemon's node id when the library is shared (a PostgreSQL catalog: config `node`), else nil: a library
    /// in SQLite has one daemon, with the claim journal, staging folder and watch lock it always had.
    public var sharedNode: String? { catalog.isPostgres ? node : nil }
}
