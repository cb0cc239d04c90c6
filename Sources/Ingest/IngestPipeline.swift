import MediaProbe
import PhotoCatalog

/// The stages after the source: a bounded job queue, `workers` worker tasks (each with its own ``IngestWorker``), a
/// bounded queue of findings, and the ``Committer``.
///
/// Memory is bounded by the two queues' capacities plus one group commit, whatever the number of files. Feed
/// ``jobs`` (``BoundedQueue/send(_:)`` waits while the workers are busy: back-pressure on the source), then call
/// ``BoundedQueue/finish()`` on it; ``run()`` returns once every job was committed.
public final class IngestPipeline: Sendable {
    /// Where the source puts files to process.
    public let jobs: BoundedQueue<IngestJob>
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
        self.findings = BoundedQueue(capacity: max(committer.settings.batchLimit, 256))
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
                guard let stored = try? lookup.asset(withSHA256: digest.hex, albumTitle: album), !stored.isDeleted,
                    stored.isOriginalIntact
                else { return nil }
                return KnownContent(
                    assetID: stored.localIdentifier, mime: stored.mimeType, isVideo: stored.mediaType == .video,
                    isComplete: album == nil || stored.isInAlbum == true)
            }
        }
    }

    /// Runs workers and committer until ``jobs`` is finished and everything in it is committed.
    ///
    /// - Throws: when a worker cannot be set up (no libmagic database, no libcrypto); jobs still queued are left.
    public func run() async throws {
        let findings = self.findings
        let jobs = self.jobs
        let committer = self.committer
        async let committed: Void = committer.run(findings)
        do {
            try await WorkerPool.run(
                workers: workers, jobs: jobs, makeState: makeWorker,
                process: { worker, job in
                    // The writer is the pipeline's one serial stage: let it preempt the workers (see the type).
                    WorkerThreadPriority.lowerCurrentThread()
                    let output = worker.process(job)
                    try? await findings.send(output)
                    // Reading and probing block the thread, and the source (a scan, the watch loop's claimer) runs
                    // on the same cooperative threads: once the jobs run low, give it a turn to refill them. (A
                    // yield after every file cost about 1 % of a worker's time in task switches.)
                    if jobs.count < jobs.capacity / 2 { await Task.yield() }
                })
        } catch {
            findings.finish()
            await committed
            throw error
        }
        findings.finish()
        await committed
    }
}
