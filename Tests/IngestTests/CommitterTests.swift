import Foundation
import MediaProbe
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

@testable import Ingest
import PhotodropTelemetry
import PhotodropConcurrency
import Uploads

/// The committer against a real library in a temporary folder.
@Suite("Committer", .timeLimit(.minutes(3)))
struct CommitterTests {
    let folder: TemporaryFolder
    let library: PhotoLibrary
    let collector = OutcomeCollector()

    init() throws {
        folder = try TemporaryFolder("committer")
        library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
    }

    func committer(_ settings: CommitSettings, claims: ClaimJournal? = nil) -> Committer {
        Committer(
            library: library, settings: settings, quarantine: Quarantine(root: folder.url("Rejected")), claims: claims,
            hooks: collector.hooks)
    }

    /// Worker outputs for fixtures `indexes` written to `<album>/IMG_<n>.jpg` in the source folder.
    func outputs(_ indexes: Range<Int>, album: String?, folderName: String = "src") throws -> [WorkerOutput] {
        let worker = try IngestWorker(policy: .appleDefault, truncatedFiles: .reject)
        return try indexes.map { index in
            let relative = "\(folderName)/\(album ?? "root")/IMG_\(index).jpg"
            let path = try JPEGFixture.write(index, to: relative, in: folder)
            return worker.process(
                try IngestJob(path: path, displayPath: relative, album: album, originalName: "IMG_\(index).jpg"))
        }
    }

    func albums() throws -> [String: Int] {
        let collections = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library)
        var result: [String: Int] = [:]
        for collection in collections {
            #expect(result[collection.title] == nil, "two albums titled \(collection.title)")
            result[collection.title] = try Asset.fetchAssets(in: collection).count
        }
        return result
    }

    @Test func oneAlbumPerTitleAcrossBatchesAndConcurrentCalls() async throws {
        let committer = committer(.importing(move: true, dryRun: false, duplicates: .addToAlbum))
        let batches = try (0..<6).map { try outputs(($0 * 50)..<($0 * 50 + 50), album: "Burst") }
        await withTaskGroup(of: Void.self) { group in
            for batch in batches { group.addTask { await committer.commit(batch) } }
        }
        #expect(try albums() == ["Burst": 300])
        #expect(collector.outcomes.value.count == 300)
        #expect(collector.outcomes.value.allSatisfy { $0.kind == .photo && $0.assetID != nil })
        #expect(try Asset.fetchAssets(library: library).count == 300)
    }

    /// What `run` commits per transaction when 600 findings are already queued: `import --move` takes them all in
    /// one (its limit is ``CommitSettings/movingImportBatchLimit``), a copying import and `watch` in blocks of at most
    /// 256.
    @Test(arguments: [
        (CommitSettings.importing(move: true, dryRun: false, duplicates: .addToAlbum), 1),
        (CommitSettings.importing(move: false, dryRun: false, duplicates: .addToAlbum), 3),
        (CommitSettings.watch(duplicates: .addToAlbum), 3),
    ])
    func runGroupsQueuedFindingsUpToTheLimit(_ settings: CommitSettings, _ transactions: Int) async throws {
        #expect(settings.batchLimit == (transactions == 1 ? CommitSettings.movingImportBatchLimit : 256))
        let queue = BoundedQueue<WorkerOutput>(capacity: 1024)
        for output in try outputs(0..<600, album: "Queued") { try await queue.send(output) }
        queue.finish()
        let start = try library.currentChangeToken
        await committer(settings).run(queue)
        #expect(try library.fetchPersistentChanges(since: start).count == transactions)
        #expect(try albums() == ["Queued": 600])
    }

    @Test func anExistingAlbumWithTheTitleIsUsed() async throws {
        try await library.performChanges {
            _ = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: "Trip")
        }
        await committer(.importing(move: false, dryRun: false, duplicates: .addToAlbum)).commit(
            try outputs(0..<3, album: "Trip"))
        #expect(try albums() == ["Trip": 3])
    }

    @Test func duplicatesInOneBatchMakeOneAssetAndJoinTheAlbum() async throws {
        var batch = try outputs(0..<2, album: "A")
        batch += try outputs(0..<1, album: "B", folderName: "again")  // same bytes as IMG_0 in A
        await committer(.importing(move: true, dryRun: false, duplicates: .addToAlbum)).commit(batch)
        let kinds = collector.kinds()
        #expect(kinds["again/B/IMG_0.jpg"] == .duplicate)
        #expect(try albums() == ["A": 2, "B": 1])
        #expect(try Asset.fetchAssets(library: library).count == 2)
        #expect(!FileManager.default.fileExists(atPath: folder.url("again/B/IMG_0.jpg")), "the dropped copy stays")
    }

    @Test func skipLeavesAlbumsAsTheyAre() async throws {
        let committer = committer(.importing(move: false, dryRun: false, duplicates: .skip))
        await committer.commit(try outputs(0..<1, album: "A"))
        await committer.commit(try outputs(0..<1, album: "B", folderName: "again"))
        #expect(try albums() == ["A": 1])
        #expect(collector.kinds()["again/B/IMG_0.jpg"] == .duplicate)
        #expect(FileManager.default.fileExists(atPath: folder.url("again/B/IMG_0.jpg")), "a copied source is kept")
    }

    @Test func aBadFileFailsAloneAndTheOthersAreStored() async throws {
        var batch = try outputs(0..<5, album: "Mixed")
        // The third file vanishes between the worker and the commit: the group fails, then file by file.
        unlink(batch[2].job.path)
        batch[2].job.displayPath = "vanished.jpg"
        await committer(.importing(move: true, dryRun: false, duplicates: .addToAlbum)).commit(batch)
        let kinds = collector.kinds()
        #expect(kinds["vanished.jpg"] == .failed)
        #expect(kinds.values.filter { $0 == .photo }.count == 4)
        #expect(try albums() == ["Mixed": 4])
    }

    @Test func rejectedFilesAreQuarantinedOnlyWhenMoving() async throws {
        let note = folder.url("src/notes.txt")
        try FileManager.default.createDirectory(atPath: folder.url("src"), withIntermediateDirectories: true)
        try Data("text\n".utf8).write(to: URL(fileURLWithPath: note))
        let worker = try IngestWorker(policy: .appleDefault, truncatedFiles: .reject)
        let output = worker.process(
            try IngestJob(path: note, displayPath: "notes.txt", album: "Docs", originalName: "notes.txt"))
        await committer(.importing(move: false, dryRun: false, duplicates: .addToAlbum)).commit([output])
        #expect(FileManager.default.fileExists(atPath: note))
        let moving = committer(.importing(move: true, dryRun: false, duplicates: .addToAlbum))
        await moving.commit([output])
        // The rejection desk writes it, off the committer's path: wait for it.
        await moving.waitForRejections()
        #expect(!FileManager.default.fileExists(atPath: note))
        #expect(FileManager.default.fileExists(atPath: folder.url("Rejected/Docs/notes.txt.reason.json")))
        #expect(collector.outcomes.value.map(\.reason) == ["unsupportedType", "unsupportedType"])
    }

    /// A rejection waits for a slow disk (held here by the test: an `fsync` that takes seconds cannot be made on
    /// demand) while the next commits go on; it is written once the disk answers.
    @Test func aSlowRejectionDoesNotStallCommits() async throws {
        let note = folder.url("src/notes.txt")
        try FileManager.default.createDirectory(atPath: folder.url("src"), withIntermediateDirectories: true)
        try Data("text\n".utf8).write(to: URL(fileURLWithPath: note))
        let worker = try IngestWorker(policy: .appleDefault, truncatedFiles: .reject)
        let rejected = worker.process(
            try IngestJob(path: note, displayPath: "notes.txt", album: "Docs", originalName: "notes.txt"))
        let committer = committer(.importing(move: true, dryRun: false, duplicates: .addToAlbum))
        let (released, release) = AsyncStream<Void>.makeStream()
        await committer.rejections.setHold {
            for await _ in released { return }
        }
        await committer.commit([rejected])
        await committer.commit(try outputs(0..<3, album: "Trip"))
        #expect(try Asset.fetchAssets(library: library).count == 3, "the photos were committed")
        #expect(FileManager.default.fileExists(atPath: note), "while the rejection still waits")
        #expect(!collector.outcomes.value.contains { $0.kind == .rejected })
        release.yield()
        release.finish()
        await committer.waitForRejections()
        #expect(!FileManager.default.fileExists(atPath: note))
        #expect(FileManager.default.fileExists(atPath: folder.url("Rejected/Docs/notes.txt.reason.json")))
        #expect(collector.outcomes.value.filter { $0.kind == .rejected }.map(\.path) == ["notes.txt"])
    }

    @Test func dryRunWritesNothing() async throws {
        let batch = try outputs(0..<3, album: "Dry")
        await committer(.importing(move: true, dryRun: true, duplicates: .addToAlbum)).commit(batch + batch)
        #expect(!FileManager.default.fileExists(atPath: folder.url("Library")))
        let kinds = collector.outcomes.value.map(\.kind)
        #expect(kinds.filter { $0 == .photo }.count == 3 && kinds.filter { $0 == .duplicate }.count == 3)
        #expect(batch.allSatisfy { FileManager.default.fileExists(atPath: $0.job.path) })
    }
}

/// The claim journal: claims, putting back, and recovery after a crash.
@Suite("Claim journal", .timeLimit(.minutes(3)))
struct ClaimJournalTests {
    @Test("a claimed file knows whether a same-stem partner is in its folder, or was claimed just before it")
    func claimsKnowSiblings() async throws {
        let folder = try TemporaryFolder("claims-siblings")
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        let claims = ClaimJournal(library: library, inbox: folder.url("Inbox"))
        try claims.prepare()
        func settled(_ name: String, _ index: Int) throws -> IngestJob {
            let path = try JPEGFixture.write(index, to: "Inbox/Card/\(name)", in: folder)
            var info = stat()
            stat(path, &info)
            return IngestJob(
                settledAt: "Card/\(name)", in: try Directory.open(atPath: folder.url("Inbox")),
                identity: FileIdentity(FileStatus(info)))
        }
        // IMG_0001.CR2 is claimed while IMG_0001.JPG is still in the folder; the JPEG comes in the next batch, when
        // the RAW has left the folder: both know of each other. IMG_0002 has no partner.
        let raw = try settled("IMG_0001.CR2", 1)
        let jpeg = try settled("IMG_0001.JPG", 2)
        let alone = try settled("IMG_0002.JPG", 3)
        let first = try await claims.claim([raw, alone])
        let second = try await claims.claim([jpeg])
        #expect(first.jobs.map(\.hasSameStemSibling) == [true, false])
        #expect(second.jobs.map(\.hasSameStemSibling) == [true])
        // After a crash the recovered claims still know, so a recovered half waits for its partner again.
        let recovered = try await ClaimJournal(library: library, inbox: folder.url("Inbox")).recover()
        let flags = Dictionary(uniqueKeysWithValues: recovered.jobs.map { ($0.originalName, $0.hasSameStemSibling) })
        #expect(flags == ["IMG_0001.CR2": true, "IMG_0001.JPG": true, "IMG_0002.JPG": false])
        // The same name dropped again (in another case too) is not its own partner; another stem's file is not one.
        let again = try settled("img_0002.jpg", 4)
        let other = try settled("IMG_0003.JPG", 5)
        let third = try await claims.claim([again, other])
        #expect(third.jobs.map(\.hasSameStemSibling) == [false, false])
        // A RAW for IMG_0002 after its JPEG left is one.
        let lateRaw = try settled("IMG_0002.DNG", 6)
        #expect(try await claims.claim([lateRaw]).jobs.map(\.hasSameStemSibling) == [true])
    }

    @Test func claimStagesFilesAndRecoveryFinishesOrRollsBack() async throws {
        let folder = try TemporaryFolder("claims")
        let inbox = folder.url("Inbox")
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        let claims = ClaimJournal(library: library, inbox: inbox)
        try claims.prepare()
        var files: [IngestJob] = []
        let inboxFolder = try Directory.open(atPath: inbox)
        for index in 0..<4 {
            let path = try JPEGFixture.write(index, to: "Inbox/Trip/IMG_\(index).jpg", in: folder)
            var info = stat()
            stat(path, &info)
            files.append(
                IngestJob(settledAt: "Trip/IMG_\(index).jpg", in: inboxFolder, identity: FileIdentity(FileStatus(info))))
        }
        files.append(
            IngestJob(
                settledAt: "Trip/gone.jpg", in: inboxFolder,
                identity: FileIdentity(device: 0, inode: 0, size: 0, modificationTime: UTCTimestamp(seconds: 0))))
        let claimed = try await claims.claim(files)
        #expect(claimed.jobs.count == 4)
        #expect(claimed.missed.map(\.path) == ["Trip/gone.jpg"])
        #expect(claimed.jobs.allSatisfy { FileManager.default.fileExists(atPath: $0.path) && $0.album == "Trip" })
        #expect(try library.journalEntries(kind: ClaimJournal.kind).count == 4)

        // Simulate a crash at four different moments, one per file:
        // 0: staged, untouched → processed again;
        let jobs = claimed.jobs
        // 1: put back into the inbox but the entry not yet removed → dropped, the file is in the inbox;
        _ = try claims.unclaim(jobs[1])
        // 2: finished (moved on) but the entry not yet removed → dropped;
        unlink(jobs[2].path)
        // 3: its entry removed with the commit, but the staged duplicate copy not yet deleted → claimed again and
        // processed like a drop (the pipeline removes it only once its stored original is known intact).
        try await library.removeJournalEntries([jobs[3].claimID!])

        let recovery = try await claims.recover()
        #expect(recovery.jobs.map(\.displayPath) == ["Trip/IMG_0.jpg", "recovered-\(jobs[3].claimID!)"])
        #expect(recovery.jobs.first?.album == "Trip" && recovery.jobs.first?.path == jobs[0].path)
        #expect(recovery.returnedToInbox == 1)
        #expect(recovery.alreadyFinished == 1)
        // Whoever asks about the finished file (an uploader) learns that its outcome was not recorded.
        let identity = try #require(files[2].expectedIdentity)
        let unknown = try library.fileRecords(kind: OutcomeRecord.kind, device: identity.device, inode: identity.inode)
        #expect(unknown.count == 1)
        let record = try #require(unknown.first.flatMap { OutcomeRecord(payload: $0.payload) })
        #expect(record.outcome == "unknown" && record.path == "Trip/IMG_2.jpg" && record.album == "Trip")
        #expect(jobs.allSatisfy { $0.node != nil }, "claimed jobs know their file's node")
        #expect(recovery.jobs.allSatisfy { $0.node != nil }, "recovered jobs too")
        #expect(recovery.unaccountedStagedFiles == 1)
        #expect(FileManager.default.fileExists(atPath: folder.url("Inbox/Trip/IMG_1.jpg")))
        #expect(!FileManager.default.fileExists(atPath: jobs[3].path), "renamed to its new claim")
        let stray = try #require(recovery.jobs.last)
        #expect(stray.album == nil && FileManager.default.fileExists(atPath: stray.path))
        #expect(
            try library.journalEntries(kind: ClaimJournal.kind).map(\.id) == [jobs[0].claimID!, stray.claimID!])
    }

    /// A journal write that the server committed while its caller saw an error (the connection lost between the commit
    /// and its answer) cannot be produced on demand: the test writes such entries itself, as a claim batch would, and
    /// tells the journal that the batch's write failed. Entries whose removal failed are noted the same way.
    @Test func entriesOfAFailedWriteAndUnremovedOrphansAreSettled() async throws {
        let folder = try TemporaryFolder("claims")
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        let claims = ClaimJournal(library: library, inbox: folder.url("Inbox"))
        try claims.prepare()
        let path = try JPEGFixture.write(1, to: "Inbox/A/x.jpg", in: folder)
        var info = stat()
        stat(path, &info)
        let claimed = try await claims.claim([
            IngestJob(
                settledAt: "A/x.jpg", in: try Directory.open(atPath: folder.url("Inbox")),
                identity: FileIdentity(FileStatus(info)))
        ])
        let staged = try #require(claimed.jobs.first)
        let stagedPayload = try #require(
            try library.journalEntries(kind: ClaimJournal.kind).first.flatMap { ClaimPayload(decoding: Array($0.payload)) })
        let stagedBatch = try #require(stagedPayload.batch, "every claim entry carries its batch")

        func payload(_ name: String, batch: UInt64) -> Data {
            var payload = ClaimPayload(
                source: "A/\(name)", album: "A",
                identity: FileIdentity(device: 1, inode: 2, size: 3, modificationTime: UTCTimestamp(seconds: 4)))
            payload.batch = batch
            return Data(payload.encoded)
        }
        // The failed batch's entries (two), another batch's entry, and an orphan whose removal failed.
        let failed = try await library.appendJournalEntries(
            kind: ClaimJournal.kind, payloads: [payload("a.jpg", batch: 7), payload("b.jpg", batch: 7)])
        let other = try await library.appendJournalEntries(kind: ClaimJournal.kind, payloads: [payload("c.jpg", batch: 8)])
        let orphan = try await library.appendJournalEntries(kind: ClaimJournal.kind, payloads: [payload("d.jpg", batch: 9)])
        let failedAt = ContinuousClock.now
        claims.leftovers.noteFailedBatch(7, at: failedAt)
        claims.leftovers.noteFailedBatch(stagedBatch, at: failedAt)  // its file is staged: never removed
        claims.leftovers.noteOrphans(orphan)

        // Right after the failure only the orphan goes: a commit the server was finishing may not be visible yet.
        await claims.settleLeftovers(now: failedAt)
        var left = Set(try library.journalEntries(kind: ClaimJournal.kind).map(\.id))
        #expect(left == Set([staged.claimID!] + failed + other))
        // A moment later the failed batch's entries go too; the staged file's and the other batch's stay.
        await claims.settleLeftovers(now: failedAt + ClaimLeftovers.batchSettleDelay + .milliseconds(1))
        left = Set(try library.journalEntries(kind: ClaimJournal.kind).map(\.id))
        #expect(left == Set([staged.claimID!] + other))
        // Nothing is left to settle.
        let rest = claims.leftovers.take(failedBefore: .now + .seconds(60))
        #expect(rest.ids.isEmpty && rest.batches.isEmpty)
    }

    @Test func unclaimNeverReplacesANewFileWithTheSameName() async throws {
        let folder = try TemporaryFolder("claims")
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        let claims = ClaimJournal(library: library, inbox: folder.url("Inbox"))
        try claims.prepare()
        let path = try JPEGFixture.write(1, to: "Inbox/A/x.jpg", in: folder)
        var info = stat()
        stat(path, &info)
        let claimed = try await claims.claim([
            IngestJob(
                settledAt: "A/x.jpg", in: try Directory.open(atPath: folder.url("Inbox")),
                identity: FileIdentity(FileStatus(info)))
        ])
        try JPEGFixture.write(2, to: "Inbox/A/x.jpg", in: folder)  // a new upload under the same name
        let relative = try claims.unclaim(try #require(claimed.jobs.first))
        #expect(relative == "A/x (2).jpg")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.url("Inbox/A/x.jpg"))) == Data(JPEGFixture.bytes(2)))
    }
}
