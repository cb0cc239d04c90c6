import Dispatch
import MediaProbe
import PhotoCatalog
import Synchronization

/// The stages after the source: a bounded job queue, `workers` worker tasks (each with its own ``IngestWorker``), a
/// bounded queue of findings, and the ``Committer``.
///
/// Memory is bounded by the two queues' capacities plus one group commit, whatever the number of files. Feed
/// ``jobs`` (``BoundedQueue/send(_:)`` waits while the workers are busy: back-pressure on the source), then call
/// ``finishIntake()``; ``run()`` returns once every job was committed.
///
/// The workers run on threads of their own (``WorkerThreads``), not on Swift's cooperative pool: their reads block.
///
/// Large files have a lane of their own (``send(_:)`` puts a job whose expected size is at least
/// ``largeFileThreshold`` there): one more thread, at the lowest priority, takes them one at a time. Hashing a 5 GB
/// upload takes seconds of a core, and while the regular workers were all busy with such files, a small file dropped
/// beside them waited for the last of them. Now the regular workers only ever see files below the threshold.
public final class IngestPipeline: Sendable {
    /// Where the source puts files to process (use ``send(_:)``, which chooses the lane).
    public let jobs: BoundedQueue<IngestJob>
    /// Files of at least ``largeFileThreshold`` bytes.
    public let largeJobs: BoundedQueue<IngestJob>
    /// The size from which a file goes to the large-file lane: 64 MiB, a few tenths of a second of hashing.
    public static let largeFileThreshold: Int64 = 64 << 20
    /// The writer.
    public let committer: Committer
    private let findings: BoundedQueue<WorkerOutput>
    private let workers: Int
    private let makeWorker: @Sendable (Int) throws -> IngestWorker

    /// A pipeline with `workers` workers committing into `committer`.
    ///
    /// - Parameter makeWorker: builds worker `n`'s state, on that worker's task.
    public init(
        workers: Int, committer: Committer, jobCapacity: Int? = nil,
        makeWorker: @escaping @Sendable (Int) throws -> IngestWorker
    ) {
        self.workers = max(1, workers)
        self.committer = committer
        self.makeWorker = makeWorker
        self.jobs = BoundedQueue(capacity: jobCapacity ?? max(64, 32 * max(1, workers)))
        self.largeJobs = BoundedQueue(capacity: 4096)
        self.findings = BoundedQueue(capacity: max(committer.settings.batchLimit, 256))
    }

    /// Queues a job in its lane (waits while that lane is full).
    public func send(_ job: IngestJob) async throws {
        if let size = job.expectedSize, size >= IngestPipeline.largeFileThreshold {
            try await largeJobs.send(job)
        } else {
            try await jobs.send(job)
        }
    }

    /// No more jobs will come: the workers finish what is queued, then ``run()`` returns.
    public func finishIntake() {
        jobs.finish()
        largeJobs.finish()
    }

    /// Builds workers the usual way: the configuration's video policy, and a lookup of stored content so that a file
    /// already in the library is recognised without probing it.
    public static func standardWorkers(
        config: IngestConfig, library: PhotoLibrary, truncatedFiles: IngestWorker.TruncatedFiles
    ) -> @Sendable (Int) throws -> IngestWorker {
        let policy = IngestWorker.policy(for: config)
        return { _ in
            let lookup = ContentLookup(library: library)
            return try IngestWorker(policy: policy, truncatedFiles: truncatedFiles) { digest, album in
                // A stored original that is missing or damaged is not "known": the file takes the full path and
                // repairs it, instead of being thrown away as a duplicate.
                guard let stored = try? lookup.asset(withSHA256: digest.hex, inboxFolder: album), !stored.isDeleted,
                    stored.isOriginalIntact
                else { return nil }
                return KnownContent(
                    assetID: stored.localIdentifier, mime: stored.mimeType, isVideo: stored.mediaType == .video,
                    isAnimated: stored.playbackStyle == .imageAnimated, isComplete: album == nil || stored.isInAlbum == true)
            }
        }
    }

    /// Runs workers and committer until ``jobs`` is finished and everything in it is committed.
    ///
    /// - Throws: when a worker cannot be set up (no libmagic database, no libcrypto); jobs still queued are left.
    public func run() async throws {
        let findings = self.findings
        async let committed: Void = committer.run(findings)
        async let largeDone: Void = runLargeFileLane()
        do {
            try await WorkerThreads.run(
                count: workers, name: "pd worker", jobs: jobs, results: findings, makeState: makeWorker,
                process: { worker, job in worker.process(job) })
        } catch {
            largeJobs.finish()
            await largeDone
            findings.finish()
            await committed
            throw error
        }
        await largeDone
        findings.finish()
        await committed
    }

    /// The large-file lane: one thread at the lowest priority (large files are bulk work: small files and the writer
    /// come first), started by the first large file. Its worker is made at its first job, and a worker that cannot be made fails each job instead of
    /// the pipeline (the regular workers report that failure).
    private func runLargeFileLane() async {
        let makeWorker = self.makeWorker
        // Its thread starts with the first large file: most runs never see one.
        guard let first = await largeJobs.receive() else { return }
        try? await WorkerThreads.run(
            count: 1, name: "pd large", niceness: 19, jobs: largeJobs, results: findings, batch: 1,
            startingWith: [first],
            makeState: { _ in Result<IngestWorker, IngestFailure>?.none },
            process: { worker, job in
                if worker == nil {
                    do { worker = .success(try makeWorker(-1)) } catch { worker = .failure(IngestFailure(error)) }
                }
                switch worker! {
                case .success(let ready): return ready.process(job)
                case .failure(let failure): return WorkerOutput(job: job, finding: .failed(failure))
                }
            })
    }
}
