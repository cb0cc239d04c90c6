import Dispatch
import FoundationEssentials
import MediaProbe
import PhotoCatalog
import Synchronization
import PhotodropConcurrency
import PhotodropConfiguration
import PhotodropSystem

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
final class IngestPipeline: Sendable {
    /// Where the source puts files to process (use ``send(_:)``, which chooses the lane).
    public let jobs: BoundedQueue<IngestJob>
    /// Files of at least ``largeFileThreshold`` bytes.
    let largeJobs: BoundedQueue<IngestJob>
    /// The size from which a file goes to the large-file lane: 64 MiB, a few tenths of a second of hashing.
    static let largeFileThreshold: Int64 = 64 << 20
    /// The writer.
    public let committer: Committer
    private let findings: BoundedQueue<WorkerOutput>
    private let workers: Int
    private let makeWorker: @Sendable (Int) throws -> IngestWorker
    /// Where each file a worker reads is marked as an activity, advanced chunk by chunk (the watchdog's view).
    private let progress: WorkProgress?

    /// A pipeline with `workers` workers committing into `committer`.
    ///
    /// - Parameter makeWorker: builds worker `n`'s state, on that worker's task.
    public init(
        workers: Int, committer: Committer, jobCapacity: Int? = nil, progress: WorkProgress? = nil,
        makeWorker: @escaping @Sendable (Int) throws -> IngestWorker
    ) {
        self.progress = progress
        self.workers = max(1, workers)
        self.committer = committer
        self.makeWorker = makeWorker
        self.jobs = BoundedQueue(capacity: jobCapacity ?? max(64, 32 * max(1, workers)))
        self.largeJobs = BoundedQueue(capacity: 4096)
        // Two blocks deep: while the committer writes one block (on PostgreSQL mostly waiting for the server), the
        // workers fill the next instead of stopping at a full queue. Measured: W1 `import --move` into PostgreSQL
        // 1.59 → 1.30 s with the block's rows sent by COPY (BENCHMARKS.md).
        self.findings = BoundedQueue(capacity: 2 * max(committer.settings.batchLimit, 256))
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
    func finishIntake() {
        jobs.finish()
        largeJobs.finish()
    }

    /// Builds workers the usual way: the configuration's video policy, and a lookup of stored content so that a file
    /// already in the library is recognised without probing it.
    static func standardWorkers(
        config: IngestConfig, library: PhotoLibrary, truncatedFiles: IngestWorker.TruncatedFiles
    ) -> @Sendable (Int) throws -> IngestWorker {
        let policy = IngestWorker.policy(for: config)
        return { _ in
            let lookup = ContentLookup(library: library)
            return try IngestWorker(policy: policy, truncatedFiles: truncatedFiles) { digest, album in
                // A stored original that is missing or damaged is not "known": the file takes the full path and
                // repairs it, instead of being thrown away as a duplicate.
                guard let stored = try? lookup.asset(withSHA256: digest.hex, bindingKey: album), !stored.isDeleted,
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
        let progress = self.progress
        async let committed: Void = committer.run(findings)
        async let largeDone: Void = runLargeFileLane()
        do {
            try await WorkerThreads.run(
                count: workers, name: "pd worker", jobs: jobs, results: findings, makeState: makeWorker,
                process: { worker, job in IngestPipeline.process(job, with: worker, progress: progress) })
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
        let progress = self.progress
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
                case .success(let ready): return IngestPipeline.process(job, with: ready, progress: progress)
                case .failure(let failure): return WorkerOutput(job: job, finding: .failed(failure))
                }
            })
    }

    /// One file through a worker, marked in `progress` while it is read (advanced with every chunk, its detail every
    /// 64 MiB), so that a 5 GB file being hashed is a long wait that makes progress, not a stall.
    private static func process(_ job: IngestJob, with worker: IngestWorker, progress: WorkProgress?) -> WorkerOutput {
        guard let progress else { return worker.process(job) }
        let activity = progress.begin("reading \(job.displayPath)")
        defer { progress.end(activity) }
        if let stall = stallingFileName, job.originalName == stall {
            // Test-only fault (PHOTODROP_TEST_STALL_FILE): this worker wedges, as a deadlock would, so that the
            // watchdog test sees a pipeline that stops making progress. No real input is known to wedge a worker.
            while true { SystemThread.sleep(seconds: 3600) }
        }
        var reported: Int64 = 0
        return worker.process(job) { done, size in
            if done - reported >= 64 << 20 || done == size {
                reported = done
                progress.advance(activity, detail: "\(done >> 20) of \(size >> 20) MiB")
            } else {
                progress.advance(activity)
            }
        }
    }

    /// The file name a worker wedges on, for the watchdog test only (`PHOTODROP_TEST_STALL_FILE`).
    private static let stallingFileName: String? = {
        guard let name = ProcessInfo.processInfo.environment["PHOTODROP_TEST_STALL_FILE"], !name.isEmpty else { return nil }
        return name
    }()
}
