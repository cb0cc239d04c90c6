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
/// Large files have a lane of their own (``send(_:)`` puts a job whose expected size is at least
/// ``largeFileThreshold`` there): a worker on a dispatch thread of its own, at the lowest priority, takes them one at
/// a time. Hashing a 5 GB upload takes seconds of a core, and while the regular workers (on Swift's cooperative
/// threads, one per core) were all busy with such files, a small file dropped beside them waited for the last of
/// them, and so did the watch loop. Now the regular workers only ever see files below the threshold.
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
                guard let stored = try? lookup.asset(withSHA256: digest.hex, albumTitle: album), !stored.isDeleted,
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
        let jobs = self.jobs
        let committer = self.committer
        async let committed: Void = committer.run(findings)
        async let largeDone: Void = runLargeFileLane()
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

    /// The large-file lane: one worker whose blocking reads run on a serial dispatch queue (a thread of its own,
    /// not one of Swift's cooperative threads) at the lowest priority. Its state is made at its first job.
    private func runLargeFileLane() async {
        let box = LaneWorker(makeWorker: makeWorker)
        while let job = await largeJobs.receive() {
            let output = await box.process(job)
            try? await findings.send(output)
        }
    }
}

/// The large-file lane's worker, confined to its serial queue: ``IngestWorker`` is not `Sendable`, and only the queue
/// touches it (`@unchecked Sendable` on that invariant).
private final class LaneWorker: @unchecked Sendable {
    private let queue = DispatchQueue(label: "photodrop.large-files")
    private let makeWorker: @Sendable (Int) throws -> IngestWorker
    private var worker: IngestWorker?
    private var failure: IngestFailure?

    init(makeWorker: @escaping @Sendable (Int) throws -> IngestWorker) {
        self.makeWorker = makeWorker
    }

    func process(_ job: IngestJob) async -> WorkerOutput {
        await withCheckedContinuation { continuation in
            queue.async {
                // Large files are bulk work: small files and the writer come first.
                WorkerThreadPriority.lowerCurrentThread(to: 19)
                if self.worker == nil && self.failure == nil {
                    do { self.worker = try self.makeWorker(-1) } catch { self.failure = IngestFailure(error) }
                }
                guard let worker = self.worker else {
                    continuation.resume(
                        returning: WorkerOutput(job: job, finding: .failed(self.failure ?? .unexpected("no worker"))))
                    return
                }
                continuation.resume(returning: worker.process(job))
            }
        }
    }
}
