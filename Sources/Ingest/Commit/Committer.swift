import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem
import Synchronization
import PhotodropTelemetry
import PhotodropConcurrency
import PhotodropConfiguration
import Uploads

/// The pipeline's single writer: turns what the workers found into library changes, many files per transaction.
///
/// - Group commit: ``run(_:)`` waits for one finding, then takes whatever else is already queued (up to
///   ``CommitSettings/batchLimit``) and commits it in one `performChanges` block: one album per inbox folder
///   (find-or-create), a creation request per file with its probe metadata, the album additions, and the removal of
///   the files' claim journal entries. It never waits to fill a batch, so a lone file is committed at once.
/// - Albums: an album key (``AlbumRule``: the inbox folder) → album cache. A miss fetches the album bound to that
///   folder (else, for a first-level key, the oldest unbound top-level album of that title, which the block binds);
///   when there is none, the block creates one bound to the folder, inside the library folders that the `path` mode
///   makes first, and only a committed block updates the cache. One block (and one committer) per process means one
///   album per folder however many files arrive at once; a renamed album keeps receiving its folder's files.
/// - Duplicates: the creation request resolves to the stored asset; with `duplicates: addToAlbum` it joins the album.
///   The dropped copy is removed only after the commit.
/// - Rejected files go to ``Quarantine`` (watch, `import --move`); truncated, changed and failed claimed files are
///   put back into the inbox and handed to ``Hooks/deferred`` so the watch loop tracks them again. Both are written by
///   the ``RejectionDesk``, on a thread of its own: their renames and `fsync`s never stall a commit.
/// - A block that fails is retried file by file, so one bad file never blocks the others.
public actor Committer {
    /// Where outcomes go.
    public struct Hooks: Sendable {
        /// Every final outcome, in commit order.
        public var finished: @Sendable (FileOutcome) -> Void
        /// Claimed files put back into the inbox (watch only).
        public var deferred: @Sendable (Deferral) -> Void
        /// The library is gone (deleted, replaced, unmounted) or the daemon's lock was taken away: the daemon must
        /// stop. Called with what happened and what to do, once by the committer (and once more when the
        /// ``RejectionDesk`` found it first).
        var libraryLost: @Sendable (IngestFailure) -> Void
        /// Checked before every batch (watch: the daemon's lock is still its own); throws to stop like
        /// ``libraryLost``.
        var guardCheck: @Sendable () throws -> Void
        /// How many files wait for a partner, after every batch in which the number changed.
        var pairsWaiting: @Sendable (Int) -> Void
        /// Where each batch's commit is marked as an activity (the watchdog's view of the writer).
        public var progress: WorkProgress?
        /// How long each batch took, from its turn to its end (the metrics' commit latency).
        public var committed: @Sendable (Duration) -> Void

        /// Hooks; `deferred`, `libraryLost` and `guardCheck` only matter for claimed files (watch).
        public init(
            finished: @escaping @Sendable (FileOutcome) -> Void,
            deferred: @escaping @Sendable (Deferral) -> Void = { _ in },
            libraryLost: @escaping @Sendable (IngestFailure) -> Void = { _ in },
            guardCheck: @escaping @Sendable () throws -> Void = {},
            pairsWaiting: @escaping @Sendable (Int) -> Void = { _ in }, progress: WorkProgress? = nil,
            committed: @escaping @Sendable (Duration) -> Void = { _ in }
        ) {
            self.committed = committed
            self.pairsWaiting = pairsWaiting
            self.progress = progress
            self.finished = finished
            self.deferred = deferred
            self.libraryLost = libraryLost
            self.guardCheck = guardCheck
        }
    }

    /// The library written to.
    public let library: PhotoLibrary
    /// What happens to each kind of outcome.
    public let settings: CommitSettings
    private let claims: ClaimJournal?
    /// The journal kind of this node's claims when several nodes share the catalog: a block's commit then checks that
    /// its claims are still this node's (the fencing check), see ``finishClaims(_:fencedKind:)``.
    nonisolated var fencedClaimKind: String? { claims?.node == nil ? nil : claims?.kind }
    /// Writes rejections and put-backs off the writer's queue.
    let rejections: RejectionDesk
    let hooks: Hooks
    let logger: Logger
    private let executor: any SerialExecutor

    /// The committer runs on the library's writer queue (``PhotoLibrary/writerExecutor``): between two blocks it
    /// does little, and each hand-off to the writer and back would otherwise wake another thread.
    public nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// Album by album key (``AlbumRule``), filled from fetches and committed creations; cleared when a block fails.
    var albums: [String: AssetCollection] = [:]
    /// Library folders by inbox folder path (the `path` album mode).
    var folders: [String: CollectionList] = [:]
    /// Dry run: contents this run would have stored.
    private var dryRunContents: Set<SHA256Digest> = []
    /// Claim entries of files that left the pipeline outside a change block (a duplicate already in place), with their
    /// outcome records; removed in one transaction at the end of each batch.
    private var finishedClaims = FinishedClaims()
    /// Whether a batch is being committed, and who waits for its turn: batches never interleave, even when
    /// ``commit(_:)`` is called concurrently (the actor is reentrant across the library's `await`), so that the album
    /// cache decides every title exactly once.
    private var isCommitting = false
    private var waitingBatches: [CheckedContinuation<Void, Never>] = []
    /// Set once the library turned out gone (or the daemon's lock taken): from then on nothing is written, every
    /// claimed file is put back into the inbox.
    private(set) var lostLibrary: IngestFailure?
    /// Files that may have a partner wait here for it (nil: pairing is turned off).
    private var pairing: PairingStage?
    /// The number of waiting files last reported (``Hooks/pairsWaiting``).
    private var reportedPairsWaiting = 0
    /// The task that commits the waiting groups when the earliest one's wait ends, and that moment: set again after
    /// every batch, so that nothing polls (a group that completes earlier is handed over by the batch that completes
    /// it).
    private var pairTimer: (deadline: ContinuousClock.Instant, task: Task<Void, Never>)?
    /// Set when ``run(_:)`` drains the last groups: no timer is started after that.
    private var pairTimerStopped = false

    /// A committer; `claims` is the watch daemon's claim journal (nil for imports).
    public init(
        library: PhotoLibrary, settings: CommitSettings, quarantine: Quarantine, claims: ClaimJournal?, hooks: Hooks,
        logger: Logger = .disabled
    ) {
        self.library = library
        self.settings = settings
        self.claims = claims
        self.rejections = RejectionDesk(
            library: library, quarantine: quarantine, claims: claims, hooks: hooks, logger: logger)
        self.hooks = hooks
        self.logger = logger
        self.executor = library.writerExecutor
        if let pairing = settings.pairing {
            self.pairing = PairingStage(pairing, listsFolders: claims == nil)
        }
    }

    /// Commits findings until `outputs` is finished and drained; files still waiting for a partner are committed
    /// then (nothing more will come).
    public func run(_ outputs: BoundedQueue<WorkerOutput>) async {
        while let first = await outputs.receive() {
            var batch = [first]
            outputs.receiveAvailable(upTo: settings.batchLimit - 1, appendingTo: &batch)
            await commit(batch)
        }
        // The timer ends before the committer does: a task still holding it at exit would keep the library open, and
        // its write-ahead log would not be checkpointed into library.sqlite.
        pairTimerStopped = true
        let timer = pairTimer?.task
        pairTimer = nil
        timer?.cancel()
        await timer?.value
        await commit([], drainingPairs: true)
        await rejections.waitUntilIdle()
    }

    /// Returns once every file rejected or put back so far is in place and its claim entry removed (``run(_:)`` waits
    /// for this before it returns).
    func waitForRejections() async {
        await rejections.waitUntilIdle()
    }

    /// How many rejections and put-backs may wait before a commit waits for them: bounded memory under a burst of
    /// bad files on a slow disk.
    static let rejectionBacklogLimit = 4096

    /// Files that wait for a partner are committed when their wait ends, even when no other file arrives: a timer
    /// for the earliest deadline of the waiting groups, set again whenever that deadline moves.
    private func scheduleExpiredPairs() {
        let next = pairTimerStopped ? nil : pairing?.desk.nextDeadline
        guard pairTimer?.deadline != next else { return }
        pairTimer?.task.cancel()
        pairTimer = nil
        guard let next else { return }
        let task = Task { [weak self] in
            do { try await Task.sleep(until: next, clock: .continuous) } catch { return }
            await self?.commitExpiredPairs()
        }
        pairTimer = (next, task)
    }

    /// Commits the groups whose wait for a partner ended.
    private func commitExpiredPairs() async {
        guard let pairing, let deadline = pairing.desk.nextDeadline, deadline <= .now else {
            scheduleExpiredPairs()
            return
        }
        await commit([])
    }

    /// Commits one batch of findings; concurrent calls take turns. `drainingPairs`: also every file still waiting for
    /// a partner.
    public func commit(_ batch: [WorkerOutput], drainingPairs: Bool = false) async {
        if isCommitting {
            await withCheckedContinuation { waitingBatches.append($0) }
        } else {
            isCommitting = true
        }
        defer {
            if waitingBatches.isEmpty {
                isCommitting = false
            } else {
                waitingBatches.removeFirst().resume()
            }
        }
        let activity = hooks.progress?.begin("committing \(batch.count) files to the library")
        let started = ContinuousClock.now
        await commitInTurn(batch, drainingPairs: drainingPairs)
        if rejections.backlog > Self.rejectionBacklogLimit { await rejections.waitUntilIdle() }
        if !drainingPairs { scheduleExpiredPairs() }
        if !batch.isEmpty { hooks.committed(ContinuousClock.now - started) }
        if let activity { hooks.progress?.end(activity) }
    }

    private func commitInTurn(_ batch: [WorkerOutput], drainingPairs: Bool) async {
        if lostLibrary == nil {
            do { try hooks.guardCheck() } catch { loseLibrary(IngestFailure(error)) }
        }
        if lostLibrary != nil {
            for output in batch { putBackUnwritten(output.job) }
            if var stage = pairing {
                for outcome in stage.drain() {
                    switch outcome {
                    case .store(let group): for item in group.items { putBackUnwritten(item.job) }
                    case .unpaired(let item): putBackUnwritten(item.job)
                    }
                }
                pairing = stage
            }
            return
        }
        var storable: [StoreItem] = []
        storable.reserveCapacity(batch.count)
        var albumMetadata: [StoreItem] = []
        for output in batch {
            let job = output.job
            switch output.finding {
            case .accepted(let probe, let digest):
                storable.append(StoreItem(job: job, digest: digest, probe: probe, known: nil))
            case .known(let digest, let known):
                if settings.placement != .none && (known.isComplete || settings.duplicates == .skip) {
                    alreadyStored(job, digest, known)
                } else {
                    storable.append(StoreItem(job: job, digest: digest, probe: nil, known: known))
                }
            case .rejected(let probe, let digest):
                if probe.metadata.contentIdentifier != nil, probe.metadata.videoCodec != nil {
                    logger.warning(
                        "a Live Photo's movie was rejected; its photo is stored alone",
                        metadata: ["path": .string(job.displayPath), "reason": .string(probe.message)])
                }
                if SidecarName.kind(of: job.originalName) == .takeoutAlbum {
                    // A Takeout album's metadata.json: describes its album.
                    albumMetadata.append(StoreItem(job: job, digest: digest, probe: probe, known: nil))
                } else if pairing != nil, PairingStage.takesRejected(named: job.originalName) {
                    // A sidecar or adjustments: kept with its media file's asset, if that comes.
                    storable.append(StoreItem(job: job, digest: digest, probe: probe, known: nil))
                } else {
                    reject(job, probe, bytes: digest.size)
                }
            case .truncated(let probe, let identity):
                if settings.usesClaims {
                    putBack(
                        job,
                        .incomplete(
                            IncompleteVerdict(
                                identity: identity, code: probe.rejection?.rawValue ?? "corrupt",
                                message: probe.message, mime: probe.mime)))
                } else {
                    reject(job, probe, bytes: identity.size)
                }
            case .stillIncomplete(let verdict):
                logger.info(
                    "still incomplete after its grace period and unchanged: rejected without reading it again",
                    metadata: ["path": .string(job.displayPath), "bytes": .count(Int(verdict.identity.size))])
                reject(
                    job, code: QuarantineReason.Code(rawValue: verdict.code) ?? .corrupt,
                    message: Self.waitedOut(verdict.message), mime: verdict.mime, bytes: verdict.identity.size)
            case .changed:
                if settings.usesClaims {
                    putBack(job, .changed)
                } else {
                    fail(job, .changedWhileReading(path: job.displayPath))
                }
            case .failed(let failure):
                if settings.usesClaims {
                    putBack(job, .failed(failure))
                } else {
                    fail(job, failure)
                }
            }
        }
        var groups: [StoreGroup] = []
        var attachments: [StoredPartners.Attachment] = []
        if var stage = pairing {
            var outcomes: [PairingStage.Outcome] = []
            outcomes += stage.take(storable)
            outcomes += drainingPairs ? stage.drain() : stage.expired()
            pairing = stage
            var unpaired: [StoreItem] = []
            for outcome in outcomes {
                switch outcome {
                case .store(let group): groups.append(group)
                case .unpaired(let item): unpaired.append(item)
                }
            }
            attachments = matchStoredPartners(&groups, &unpaired)
            let waiting = stage.desk.fileCount
            if waiting != reportedPairsWaiting {
                reportedPairsWaiting = waiting
                hooks.pairsWaiting(waiting)
            }
            for item in unpaired {
                // No primary came and none is stored: an edited rendition is an asset of its own; a sidecar or
                // adjustments file is rejected.
                if item.probe?.isAccepted == true { groups.append(StoreGroup(primary: item)) } else { rejectOrphan(item) }
            }
        } else {
            groups = storable.map { StoreGroup(primary: $0) }
        }
        if settings.placement == .none {
            for group in groups { dryRun(group) }
            for attachment in attachments { dryRun(attachment) }
        } else {
            if !groups.isEmpty { await store(groups) }
            if !attachments.isEmpty { await attach(attachments) }
        }
        if !albumMetadata.isEmpty { await applyAlbumMetadata(albumMetadata) }
        if !finishedClaims.isEmpty && lostLibrary == nil {
            let batch = finishedClaims.take()
            do {
                try await library.appendFileRecords(batch.records, removingJournalEntries: batch.ids)
            } catch let error as PhotosError where error.code == .libraryVolumeOffline {
                loseLibrary(.catalog(error))
            } catch {
                // Tried again with the next batch's (a catalog away for a moment). Harmless if it never succeeds: at
                // the next start each entry finds its file gone from the staging folder and is dropped.
                logger.warning(
                    "cannot remove finished claim journal entries yet; trying again with the next ones",
                    metadata: ["entries": .count(batch.ids.count), "error": .string("\(error)")])
                finishedClaims.keep(batch)
            }
        }
    }

    // MARK: - Storing

    private func store(_ groups: [StoreGroup]) async {
        await commitOneByOneOnFailure(groups, files: \.items) { committer, groups in
            let (outcomes, leftovers) = try await committer.storeBlock(groups)
            committer.deliver(groups, outcomes)
            await committer.storeLeftovers(leftovers)
        }
    }

    /// Runs `commit` (one change block and what follows it) for all of `works`; when it fails for another reason than
    /// a lost library, runs it for each work alone, so that one bad file fails on its own. Once the library is lost,
    /// every work's claimed files go back into the inbox.
    func commitOneByOneOnFailure<Work>(
        _ works: [Work], files: (Work) -> [StoreItem],
        _ commit: (isolated Committer, [Work]) async throws -> Void
    ) async {
        // The closure runs on the committer (`isolated`), as the code it replaced did: no hop off the writer queue.
        do {
            try await commit(self, works)
        } catch let error as PhotosError where error.code == .libraryVolumeOffline {
            loseLibrary(.catalog(error))
            for work in works { for item in files(work) { putBackUnwritten(item.job) } }
        } catch {
            albums.removeAll()
            folders.removeAll()
            guard works.count > 1 else {
                for item in files(works[0]) { failStored(item, error) }
                return
            }
            logger.warning(
                "a group commit failed; committing its files one by one",
                metadata: ["files": .count(works.count), "error": .string(IngestFailure(error).description)])
            for work in works {
                if lostLibrary != nil {
                    for item in files(work) { putBackUnwritten(item.job) }
                    continue
                }
                do {
                    try await commit(self, [work])
                } catch let error as PhotosError where error.code == .libraryVolumeOffline {
                    loseLibrary(.catalog(error))
                    for item in files(work) { putBackUnwritten(item.job) }
                } catch {
                    albums.removeAll()
                    folders.removeAll()
                    for item in files(work) { failStored(item, error) }
                }
            }
        }
    }

    /// The other files of groups whose primary file turned out to be stored already: they join that asset where they
    /// fit it (a second copy of a stored file is a duplicate); media files that do not fit are stored on their own,
    /// other files are rejected.
    private func storeLeftovers(_ leftovers: [(item: StoreItem, type: AssetResourceType, existing: String)]) async {
        guard !leftovers.isEmpty else { return }
        let assets = (try? Asset.fetchAssets(
            withLocalIdentifiers: Array(Set(leftovers.map(\.existing))),
            options: FetchOptions(includeHiddenAssets: true), library: library
        ).map { $0 }) ?? []
        var attachments: [StoredPartners.Attachment] = []
        var groups: [StoreGroup] = []
        for (item, type, existing) in leftovers {
            if let asset = assets.first(where: { $0.localIdentifier == existing }) {
                let index = attachments.firstIndex { $0.asset.localIdentifier == existing }
                let planned = index.map { attachments[$0].files.map(\.type) } ?? []
                if StoredPartners.fits(type, asset: asset, adding: planned) {
                    if let index {
                        attachments[index].files.append((item, type))
                    } else {
                        attachments.append(StoredPartners.Attachment(asset: asset, files: [(item, type)]))
                    }
                    continue
                }
            }
            if item.probe?.isAccepted == true {
                groups.append(StoreGroup(primary: item))
            } else {
                reject(
                    item.job, code: .orphanSidecar,
                    message: "its media file is already in the library as \(existing), which already has a "
                        + "\(type.name) resource; the file is kept here",
                    mime: item.mime, bytes: item.digest.size)
            }
        }
        if !attachments.isEmpty { await attach(attachments) }
        if !groups.isEmpty { await store(groups) }
    }

    /// Records the album identifiers a block creates (written inside the block, read after it).
    private final class CreatedAlbums: Sendable {
        private let titles = Mutex<[(title: String, identifier: String)]>([])
        func record(_ title: String, _ identifier: String) { titles.withLock { $0.append((title, identifier)) } }
        var all: [(title: String, identifier: String)] { titles.withLock { $0 } }
    }

    /// Records what a block decides inside it (written inside the block, read after it).
    final class BlockNotes: Sendable {
        /// The journal kind of this node's claims when the catalog is shared (then the block's commit depends on them
        /// still being this node's: ``PhotoCatalog/JournalChangeRequest/consumeEntries(_:kind:)``); nil otherwise.
        private let fencedKind: String?
        init(fencedKind: String?) { self.fencedKind = fencedKind }

        private let state = Mutex<(leftovers: [(Int, String)], claims: [Int64], records: [FileRecord.Draft])>(
            ([], [], []))
        /// Group `index`'s primary file was a duplicate of `existing`: its other files were not added.
        func leftOver(_ index: Int, existing: String) { state.withLock { $0.leftovers.append((index, existing)) } }
        /// A claimed file this block finishes: its claim entry goes, and its outcome is recorded, with the block.
        func finished(_ item: StoreItem, _ outcome: @autoclosure () -> OutcomeRecord) {
            guard let claim = item.job.claimID else { return }
            let record = item.job.node.map { outcome().draft(for: $0) }
            state.withLock {
                $0.claims.append(claim)
                if let record { $0.records.append(record) }
            }
        }
        var leftovers: [(Int, String)] { state.withLock { $0.leftovers } }
        var claims: [Int64] { state.withLock { $0.claims } }

        /// Removes the finished claims' entries and records their outcomes, in the block.
        func commitFinished() throws {
            let (claims, records) = state.withLock { ($0.claims, $0.records) }
            if !claims.isEmpty { try Committer.finishClaims(claims, fencedKind: fencedKind) }
            if !records.isEmpty { try FileRecordChangeRequest.append(records) }
        }
    }

    /// One `performChanges` block for `groups` (one creation request each); returns the creation outcomes in group
    /// order, and the files left out of groups whose primary was a duplicate (with that asset's identifier).
    private func storeBlock(_ groups: [StoreGroup]) async throws
        -> (outcomes: [AssetCreationOutcome], leftovers: [(item: StoreItem, type: AssetResourceType, existing: String)])
    {
        var existing: [String: AssetCollection] = [:]
        var parents: [String: CollectionList] = [:]
        for key in Set(groups.compactMap(\.primary.job.album)) {
            if let album = try album(forKey: key) {
                existing[key] = album
            } else if let parent = AlbumRule.folders(forAlbum: key).last {
                parents[key] = try await folder(forPath: parent)
            }
        }
        let knownAlbums = existing
        let knownParents = parents
        let created = CreatedAlbums()
        let notes = BlockNotes(fencedKind: fencedClaimKind)
        let move = settings.placement == .move
        let skipDuplicates = settings.duplicates == .skip
        let sidecars = groups.map { group in readSidecars(group.members.map(\.item)) }
        let contents = groups.map { $0.primary.digest.sha256.hex }
        let report = try await library.performChanges {
            try AssetCreationRequest.lookUpStoredContent(sha256: contents)
            var order: [String] = []
            var members: [String: [ObjectPlaceholder]] = [:]
            for (index, group) in groups.enumerated() {
                let item = group.primary
                let request = try AssetCreationRequest.forAsset()
                request.addResource(
                    with: item.isVideo ? .video : .photo,
                    file: item.job.source,
                    options: AssetResourceCreationOptions(
                        shouldMoveFile: move, originalFilename: item.job.originalName, mimeType: item.mime,
                        contentSHA256: item.digest.sha256.hex, fileExtension: item.probe?.fileExtension,
                        fileStatus: item.digest.resourceFileStatus))
                request.pairingKey = item.job.pairingKey
                if group.members.isEmpty, StoredPartners.awaitsPartner(group) { request.awaitsPartner = true }
                let asset = request.placeholderForCreatedAsset?.localIdentifier
                notes.finished(item, item.outcomeRecord(duplicate: request.isDuplicate, asset: asset))
                if request.isDuplicate && !group.members.isEmpty {
                    notes.leftOver(index, existing: asset ?? "")
                } else {
                    for (member, type) in group.members {
                        request.addResource(
                            with: type, file: member.job.source, options: member.resourceOptions(move: move))
                        notes.finished(
                            member,
                            member.outcomeRecord(
                                .attached, asset: asset,
                                message: "stored with \(item.job.originalName) as its \(type.name)"))
                    }
                }
                if var metadata = item.probe?.metadata {
                    SidecarReading.apply(sidecars[index], to: &metadata)
                    AssetMetadata.apply(metadata, to: request)
                    for reading in sidecars[index] { reading.apply(to: request) }
                }
                guard let title = item.job.album, let placeholder = request.placeholderForCreatedAsset else { continue }
                if skipDuplicates && request.isDuplicate { continue }
                if members[title] == nil { order.append(title) }
                members[title, default: []].append(placeholder)
            }
            for key in order {
                let albumRequest: AssetCollectionChangeRequest
                if let album = knownAlbums[key] {
                    albumRequest = try AssetCollectionChangeRequest(for: album)
                    // An album found by its title files this folder from now on, whatever it is renamed to.
                    if album.bindingKey != key { albumRequest.bindingKey = key }
                } else {
                    albumRequest = try Committer.newAlbum(forKey: key, in: knownParents[key])
                    if let placeholder = albumRequest.placeholderForCreatedAssetCollection {
                        created.record(key, placeholder.localIdentifier)
                    }
                }
                albumRequest.addAssets(members[key] ?? [])
            }
            try notes.commitFinished()
        }
        let newAlbums = created.all
        if !newAlbums.isEmpty {
            for album in newAlbums { logger.info("created album", metadata: ["album": .string(album.title)]) }
            if let fetched = try? AssetCollection.fetchAssetCollections(
                withLocalIdentifiers: newAlbums.map(\.identifier), library: library)
            {
                for collection in fetched { if let key = collection.bindingKey { albums[key] = collection } }
            }
        }
        guard report.assetCreations.count == groups.count else {
            throw PhotosError(
                .internalError, title: "Unexpected change report",
                message: "the library reported \(report.assetCreations.count) creations for \(groups.count) assets")
        }
        let leftovers = notes.leftovers.flatMap { index, existing in
            groups[index].members.map { (item: $0.item, type: $0.type, existing: existing) }
        }
        return (report.assetCreations, leftovers)
    }

    /// What the sidecars among `items` say (an empty reading for any other file), each read once; a sidecar that
    /// cannot be read is logged, and stored as it is.
    func readSidecars(_ items: [StoreItem]) -> [SidecarReading] {
        items.map { item in
            let reading = SidecarReading(item: item)
            if let problem = reading.problem {
                logger.warning(
                    "a sidecar could not be read; it is stored as it is, and its photo without what it says",
                    metadata: ["path": .string(item.job.displayPath), "problem": .string(problem)])
            }
            return reading
        }
    }

    /// A request, inside a change block, for the album an inbox folder key files into: titled by ``AlbumRule``, bound to
    /// the key, inside `parent` (the library folder the `path` mode makes) when given.
    static func newAlbum(forKey key: String, in parent: CollectionList?) throws -> AssetCollectionChangeRequest {
        // Find-or-create: another node (or an import) that made this folder's album since the lookup wins, and the
        // assets go there.
        let request = try AssetCollectionChangeRequest.creationRequestForAssetCollection(
            withTitle: AlbumRule.title(forAlbum: key), bindingKey: key)
        if let parent, let placeholder = request.placeholderForCreatedAssetCollection {
            try CollectionListChangeRequest(for: parent).addChildCollections([placeholder])
        }
        return request
    }

    /// The album for an album key (``AlbumRule``), from the cache or the library: the album bound to that inbox
    /// folder; else, for a key without folders, the oldest album of that title at the top level that no folder is
    /// bound to yet (an album made by hand, or before albums recorded their folder), which the block then binds.
    func album(forKey key: String) throws -> AssetCollection? {
        if let cached = albums[key] { return cached }
        var found = try AssetCollection.fetchAlbum(forBindingKey: key, library: library)
        if found == nil, !key.utf8.contains(UInt8(ascii: "/")) {
            found = try AssetCollection.fetchAssetCollections(
                with: .album, subtype: .any,
                options: FetchOptions(predicate: .title(.equals(key)), sortDescriptors: []), library: library
            ).first { $0.bindingKey == nil && $0.parentFolderIdentifier == nil }
        }
        if let found, found.bindingKey == key { albums[key] = found }
        return found
    }

    /// The library folder for an inbox folder path (`2023`, `2023/Trips`), made with the folders above it when
    /// missing, in a change of its own (they are few, and an empty folder left by a crash is reused).
    func folder(forPath path: String) async throws -> CollectionList {
        if let cached = folders[path] { return cached }
        if let found = try CollectionList.fetchCollectionList(forBindingKey: path, library: library) {
            folders[path] = found
            return found
        }
        let chain = AlbumRule.folders(forAlbum: path + "/") // every level, outermost first, ending with `path`
        var existing: [String: CollectionList] = [:]
        for level in chain {
            if let found = try CollectionList.fetchCollectionList(forBindingKey: level, library: library) {
                existing[level] = found
            }
        }
        let known = existing
        let made = Mutex<[String]>([])
        try await library.performChanges {
            var parent: CollectionListChangeRequest?
            for level in chain {
                let request: CollectionListChangeRequest
                if let folder = known[level] {
                    request = try CollectionListChangeRequest(for: folder)
                } else {
                    request = try CollectionListChangeRequest.creationRequestForCollectionList(
                        withTitle: AlbumRule.title(forAlbum: level))
                    request.bindingKey = level
                    if let placeholder = request.placeholderForCreatedCollectionList {
                        parent?.addChildCollections([placeholder])
                        made.withLock { $0.append(level) }
                    }
                }
                parent = request
            }
        }
        for level in made.withLock({ $0 }) { logger.info("created folder", metadata: ["folder": .string(level)]) }
        guard let folder = try CollectionList.fetchCollectionList(forBindingKey: path, library: library) else {
            throw PhotosError(
                .internalError, title: "Folder not created", message: "the library folder for '\(path)' is missing")
        }
        folders[path] = folder
        return folder
    }

    private func deliver(_ groups: [StoreGroup], _ outcomes: [AssetCreationOutcome]) {
        let now = ContinuousClock.now
        for (group, outcome) in zip(groups, outcomes) {
            let item = group.primary
            let kind: FileOutcome.Kind
            var message: String
            if outcome.isDuplicate {
                kind = .duplicate
                message =
                    outcome.restoredFromRecentlyDeleted
                    ? "same content as \(outcome.localIdentifier), which was restored from Recently Deleted"
                    : "same content as \(outcome.localIdentifier)"
                if let repair = outcome.repairedOriginal {
                    // The dropped copy is the stored original now (moved or copied there): nothing to remove.
                    message +=
                        "; \(repair.problem), so this copy replaced it"
                        + (repair.damagedFileKeptAt.map { " (the damaged file is kept at \($0))" } ?? "")
                    logger.warning(
                        "repaired a stored original from a dropped copy",
                        metadata: [
                            "path": .string(item.job.displayPath), "asset": .string(outcome.localIdentifier),
                            "original": .string(repair.path), "problem": .string(repair.problem),
                            "damaged_file_kept_at": repair.damagedFileKeptAt.map { .string($0) } ?? .string("none"),
                        ])
                } else if settings.removesDuplicateCopies {
                    Committer.remove(item.job.source, logger: logger)
                }
            } else {
                switch item.probe?.kind {
                case .gif?: kind = .gif
                case .video?: kind = .video
                case .photo?: kind = .photo
                case nil: kind = item.isVideo ? .video : (item.known?.isAnimated == true ? .gif : .photo)
                }
                message = item.probe?.message ?? "stored"
            }
            hooks.finished(
                FileOutcome(
                    path: item.job.displayPath, kind: kind, message: message, mime: item.mime,
                    assetID: outcome.localIdentifier, album: item.job.album, bytes: item.digest.size,
                    elapsed: item.job.startedAt.duration(to: now)))
            // The other files of the asset (none when the primary was a duplicate: they are stored on their own).
            guard !(outcome.isDuplicate && outcome.sourcePaths.count == 1) else { continue }
            for (member, type) in group.members {
                let wasStored = outcome.alreadyStoredSourcePaths.contains(member.job.source.path)
                if wasStored && settings.removesDuplicateCopies { Committer.remove(member.job.source, logger: logger) }
                hooks.finished(
                    FileOutcome(
                        path: member.job.displayPath, kind: wasStored ? .duplicate : .attached,
                        message: wasStored
                            ? "same content as a file already in the library"
                            : "stored with \(item.job.originalName) as its \(type.name)",
                        mime: member.mime, assetID: outcome.localIdentifier, album: member.job.album,
                        bytes: member.digest.size, elapsed: member.job.startedAt.duration(to: now)))
            }
        }
    }

    /// A duplicate whose asset is already where it belongs: no change to make, only the dropped copy to remove.
    private func alreadyStored(_ job: IngestJob, _ digest: FileDigest, _ known: KnownContent) {
        if settings.removesDuplicateCopies { Committer.remove(job.source, logger: logger) }
        let outcome = FileOutcome(
            path: job.displayPath, kind: .duplicate, message: "same content as \(known.assetID)", mime: known.mime,
            assetID: known.assetID, album: job.album, bytes: digest.size,
            elapsed: job.startedAt.duration(to: .now))
        hooks.finished(outcome)
        markClaimDone(job, outcome: outcome)
    }

    /// Removes the claim entries of the files a block finishes, in the block. On a shared catalog (`fencedKind`) the
    /// block depends on them: if another node took them over after this node's lease ran out, nothing commits.
    static func finishClaims(_ ids: [Int64], fencedKind: String?) throws {
        if let fencedKind {
            try JournalChangeRequest.consumeEntries(ids, kind: fencedKind)
        } else {
            try JournalChangeRequest.removeEntries(ids)
        }
    }

    func failStored(_ item: StoreItem, _ error: any Error) {
        if let gone = (error as? PhotosError)?.goneJournalEntries, let claim = item.job.claimID, gone.contains(claim) {
            // Another node holds this file now (it took the claim over after this node's lease ran out) and finishes
            // it: nothing here may touch it again.
            logger.warning(
                "a claimed file was taken over by another node; it is left to that node",
                metadata: ["path": .string(item.job.displayPath), "claim": .count(claim)])
            hooks.finished(Committer.failure(item.job, .claimTakenOver(path: item.job.displayPath)))
            return
        }
        let failure = IngestFailure(error)
        if settings.usesClaims {
            putBack(item.job, .failed(failure))
        } else {
            fail(item.job, failure, bytes: item.digest.size)
        }
    }

    // MARK: - Dry run

    /// A dry run of a group: its primary file as ``dryRun(_:)-(StoreItem)`` says, the others as what they would be
    /// stored with.
    private func dryRun(_ group: StoreGroup) {
        dryRun(group.primary)
        for (member, type) in group.members {
            hooks.finished(
                FileOutcome(
                    path: member.job.displayPath, kind: .attached,
                    message: "would be stored with \(group.primary.job.originalName) as its \(type.name)",
                    mime: member.mime, album: member.job.album, bytes: member.digest.size,
                    elapsed: member.job.startedAt.duration(to: .now)))
        }
    }

    private func dryRun(_ item: StoreItem) {
        var assetID = item.known?.assetID
        if assetID == nil {
            let stored = try? Asset.fetchAssets(
                with: FetchOptions(
                    predicate: .sha256(item.digest.sha256.hex), fetchLimit: 1, includeHiddenAssets: true),
                library: library
            ).firstObject
            assetID = stored?.localIdentifier
        }
        let kind: FileOutcome.Kind
        let message: String
        if let assetID {
            kind = .duplicate
            message = "would be a duplicate of \(assetID)"
        } else if !dryRunContents.insert(item.digest.sha256).inserted {
            kind = .duplicate
            message = "would be a duplicate of another file of this import"
        } else {
            switch item.probe?.kind {
            case .gif?: kind = .gif
            case .video?: kind = .video
            default: kind = .photo
            }
            message = "would be stored: " + (item.probe?.message ?? "")
        }
        hooks.finished(
            FileOutcome(
                path: item.job.displayPath, kind: kind, message: message, mime: item.mime, assetID: assetID,
                album: item.job.album, bytes: item.digest.size, elapsed: item.job.startedAt.duration(to: .now)))
    }

    // MARK: - Rejected, put back, failed

    /// Rejects a sidecar or adjustments file whose media file never came within the wait.
    private func rejectOrphan(_ item: StoreItem) {
        let name = item.job.originalName
        let lookedFor: String
        if let kind = SidecarName.kind(of: name) {
            let base = kind == .xmp ? String(name.dropLast(4)) : SidecarName.takeoutBase(name.lowercased()).base
            lookedFor = "'\(base)' (or another file named \(SidecarName.stem(of: base)).*)"
        } else {
            lookedFor = "a file named \(SidecarName.stem(of: name)).*"
        }
        let wait = settings.pairing.map { Int($0.wait.components.seconds) } ?? 0
        reject(
            item.job, code: .orphanSidecar,
            message: "no media file for this sidecar arrived: looked for \(lookedFor) in the same folder within "
                + "\(wait) s; drop it together with its photo or video", mime: item.mime, bytes: item.digest.size)
    }

    /// Rejects a file (its claim entry goes once it left the staging folder).
    private func reject(_ job: IngestJob, _ probe: ProbeResult, bytes: Int64) {
        let message = probe.isTruncated && job.graceExpired ? Self.waitedOut(probe.message) : probe.message
        reject(
            job, code: probe.rejection.map(QuarantineReason.Code.init) ?? .corrupt, message: message, mime: probe.mime,
            bytes: bytes)
    }

    /// What a truncated file rejected after its grace period is told: that it was waited for, not that it will be.
    static func waitedOut(_ message: String) -> String {
        message + "; it stayed so for the whole grace period photodrop waits for an upload to resume "
            + "(incompleteGraceSeconds)"
    }

    /// Rejects a file: into `Rejected/` by the ``RejectionDesk`` where rejected files are moved (its claim entry goes
    /// once it left the staging folder), else only reported.
    func reject(_ job: IngestJob, code: QuarantineReason.Code, message: String, mime: String?, bytes: Int64) {
        let reason = QuarantineReason(code, message: message, mime: mime)
        if settings.quarantinesRejected {
            rejections.submit(.reject(job, reason, bytes: bytes))
            return
        }
        let outcome = FileOutcome(
            path: job.displayPath, kind: .rejected, reason: code.rawValue, message: message, mime: mime, album: job.album,
            bytes: bytes, elapsed: job.startedAt.duration(to: .now))
        hooks.finished(outcome)
        markClaimDone(job, outcome: outcome)
    }

    /// A claimed file is finished: its claim entry goes (with the next batch's records), and `outcome`, when it is
    /// final (not a file put back to be retried), is recorded for it.
    func markClaimDone(_ job: IngestJob, outcome: FileOutcome?) {
        finishedClaims.add(job, outcome: outcome)
    }

    /// Puts a claimed file back into the inbox, by the ``RejectionDesk`` (its claim entry goes once it left the
    /// staging folder); an import's file, which has no claim, fails instead.
    private func putBack(_ job: IngestJob, _ reason: Deferral.Reason) {
        guard claims != nil else {
            switch reason {
            case .failed(let failure): fail(job, failure)
            case .changed: fail(job, .changedWhileReading(path: job.displayPath))
            case .incomplete(let verdict): fail(job, .unexpected("incomplete: \(verdict.message)"))
            }
            return
        }
        rejections.submit(.putBack(job, reason))
    }

    /// Stops writing: the library is gone, or the daemon's lock is no longer its own.
    func loseLibrary(_ failure: IngestFailure) {
        guard lostLibrary == nil else { return }
        lostLibrary = failure
        logger.error(
            "the library is gone; nothing more is written, claimed files go back into the inbox, and photodrop stops",
            metadata: ["error": .string(failure.description)])
        hooks.libraryLost(failure)
    }

    /// Puts a claimed file back into the inbox without touching the library (by the ``RejectionDesk``; its journal
    /// entry stays); an import's file fails.
    func putBackUnwritten(_ job: IngestJob) {
        guard claims != nil else {
            fail(job, .libraryLost(reason: lostLibrary?.description ?? "the library is gone"))
            return
        }
        rejections.submit(.putBackUnwritten(job))
    }

    private func fail(_ job: IngestJob, _ failure: IngestFailure, bytes: Int64 = 0) {
        hooks.finished(Committer.failure(job, failure, bytes: bytes))
    }

    /// The outcome of a file that failed.
    static func failure(_ job: IngestJob, _ failure: IngestFailure, bytes: Int64 = 0) -> FileOutcome {
        FileOutcome(
            path: job.displayPath, kind: .failed, failure: failure, message: failure.description, album: job.album,
            bytes: bytes, elapsed: job.startedAt.duration(to: .now))
    }

    // MARK: - Helpers

    static func remove(_ file: FileLocation, logger: Logger) {
        do {
            try file.remove()
        } catch {
            logger.warning(
                "cannot remove the dropped copy of a duplicate",
                metadata: ["path": .string(file.path), "error": .string(error.description)])
        }
    }

    /// Whether `error` is SQLite's "database is locked" (another process held the write lock past the busy timeout).

}
