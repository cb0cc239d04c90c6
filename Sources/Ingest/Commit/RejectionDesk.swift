import Dispatch
import PhotoCatalog
import PhotodropSystem
import Synchronization
import PhotodropTelemetry
import Uploads

/// Writes the files that leave the pipeline without a library change: rejected files into `Rejected/` (with their
/// reason file, each step made durable) and claimed files put back into the inbox. An actor of its own, on a thread
/// of its own, so that these renames and `fsync`s never stall a commit: the committer hands the work over and goes on
/// with the next block.
///
/// Crash safety is the committer's as before: a file is moved first, and only then is its claim entry removed (with
/// its outcome record, in one transaction for every file of a round). A crash between the two leaves an entry whose
/// staged file is gone, which the next start drops (``ClaimJournal/recover(logger:)``); a crash inside a rejection
/// leaves a pending reason file that ``Quarantine/recover()`` completes.
actor RejectionDesk {
    /// One file to set aside.
    enum Work: Sendable {
        /// Into `Rejected/` with its reason.
        case reject(IngestJob, QuarantineReason, bytes: Int64)
        /// Back into the inbox, to be taken again for `reason`.
        case putBack(IngestJob, Deferral.Reason)
        /// Back into the inbox after the library was lost; its claim entry stays (the next start drops it).
        case putBackUnwritten(IngestJob)
        /// Nothing to set aside: a round only to remove the finished claims an earlier round could not.
        case retryFinishedClaims
    }

    /// Work waiting, and who waits for the desk.
    private struct Queue {
        var items: [Work] = []
        /// Whether a round is running (or scheduled): new work then waits for it instead of starting another.
        var busy = false
        /// Callers of ``waitUntilIdle()``.
        var idleWaiters: [CheckedContinuation<Void, Never>] = []
    }

    /// The desk's own serial queue, on which its blocking file operations run.
    private final class Executor: SerialExecutor {
        let queue = DispatchQueue(label: "photodrop.rejections")
        func enqueue(_ job: consuming ExecutorJob) {
            let job = UnownedJob(job)
            let executor = asUnownedSerialExecutor()
            queue.async { job.runSynchronously(on: executor) }
        }
    }

    private let executor = Executor()
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }

    private let queue = Mutex(Queue())
    private let library: PhotoLibrary
    private let quarantine: Quarantine
    private let claims: ClaimJournal?
    private let hooks: Committer.Hooks
    private let logger: Logger
    /// The claim entries of the files this round finished, and their outcome records: removed and written together
    /// once the round's files have moved.
    private var finishedClaims = FinishedClaims()
    /// Awaited before each round: lets a test hold the desk as a slow disk would (an `fsync` that takes seconds
    /// cannot be made on demand) and show that commits go on meanwhile. Nil in the product.
    private var holdBeforeRound: (@Sendable () async -> Void)?

    /// Holds every round until `hold` returns (tests only, see ``holdBeforeRound``).
    func setHold(_ hold: (@Sendable () async -> Void)?) { holdBeforeRound = hold }

    init(library: PhotoLibrary, quarantine: Quarantine, claims: ClaimJournal?, hooks: Committer.Hooks, logger: Logger) {
        self.library = library
        self.quarantine = quarantine
        self.claims = claims
        self.hooks = hooks
        self.logger = logger
    }

    /// How many files wait to be set aside.
    nonisolated var backlog: Int { queue.withLock { $0.items.count } }

    /// Hands `work` over; returns at once.
    nonisolated func submit(_ work: Work) {
        let starts = queue.withLock { queue in
            queue.items.append(work)
            defer { queue.busy = true }
            return !queue.busy
        }
        if starts { Task.detached { await self.drain() } }
    }

    /// Returns once every file handed over so far is set aside and its claim entry removed.
    func waitUntilIdle() async {
        await withCheckedContinuation { continuation in
            let idle = queue.withLock { queue in
                if !queue.busy { return true }
                queue.idleWaiters.append(continuation)
                return false
            }
            if idle { continuation.resume() }
        }
    }

    /// Works through the queue, a round at a time, until it is empty.
    private func drain() async {
        while true {
            let round = queue.withLock { queue in
                defer { queue.items.removeAll(keepingCapacity: true) }
                return queue.items
            }
            if round.isEmpty {
                let waiters = queue.withLock { queue -> [CheckedContinuation<Void, Never>]? in
                    guard queue.items.isEmpty else { return nil }  // more came meanwhile: another round
                    queue.busy = false
                    defer { queue.idleWaiters.removeAll() }
                    return queue.idleWaiters
                }
                guard let waiters else { continue }
                for waiter in waiters { waiter.resume() }
                return
            }
            if let holdBeforeRound { await holdBeforeRound() }
            for work in round {
                switch work {
                case .reject(let job, let reason, let bytes): reject(job, reason, bytes: bytes)
                case .putBack(let job, let reason): putBack(job, reason)
                case .putBackUnwritten(let job): putBackUnwritten(job)
                case .retryFinishedClaims: break
                }
            }
            await removeFinishedClaims()
        }
    }

    // MARK: - Setting aside

    private func reject(_ job: IngestJob, _ reason: QuarantineReason, bytes: Int64) {
        var rejectedPath: String?
        do {
            rejectedPath =
                try quarantine.reject(
                    job.source, album: job.album, name: job.originalName, reason: reason,
                    source: claims?.inboxPath(job.displayPath) ?? job.path
                ).path
        } catch let error {
            if let movedTo = error.movedTo {
                rejectedPath = movedTo  // its reason file is completed by Quarantine.recover() at the next start
                logger.warning("rejected file moved, but its reason file is pending", metadata: ["path": .string(movedTo)])
            } else if claims != nil {
                putBack(job, .failed(.quarantine(error)))
                return
            } else {
                hooks.finished(Committer.failure(job, .quarantine(error), bytes: bytes))
                return
            }
        }
        let outcome = FileOutcome(
            path: job.displayPath, kind: .rejected, reason: reason.code, message: reason.message, mime: reason.mime,
            album: job.album, bytes: bytes, rejectedPath: rejectedPath, elapsed: job.startedAt.duration(to: .now))
        hooks.finished(outcome)
        finished(job, outcome: outcome)
    }

    /// Puts a claimed file back into the inbox; its claim entry goes once it left the staging folder.
    private func putBack(_ job: IngestJob, _ reason: Deferral.Reason) {
        guard let claims else { return }
        if ((try? job.source.status()) ?? nil) == nil {
            // Nothing to put back (someone removed it from the staging folder): it ends here.
            let outcome = Committer.failure(job, .vanished(path: job.path))
            hooks.finished(outcome)
            finished(job, outcome: outcome)
            return
        }
        do {
            let relative = try claims.unclaim(job)
            hooks.deferred(Deferral(path: relative, reason: reason))
            if case .failed(let failure) = reason {
                hooks.finished(
                    FileOutcome(
                        path: relative, kind: .failed, failure: failure,
                        message: failure.description + "; it stays in the inbox and is retried",
                        album: job.album, elapsed: job.startedAt.duration(to: .now)))
            }
            // Back in the inbox, to be taken again: no outcome yet.
            finished(job, outcome: nil)
        } catch {
            logger.error(
                "cannot put a claimed file back into the inbox; it stays staged and is retried at the next start",
                metadata: [
                    "path": .string(job.displayPath), "staged": .string(job.path), "error": .string(error.description),
                ])
        }
    }

    /// Puts a claimed file back into the inbox without touching the library (its journal entry stays; the next
    /// start, on whatever library is there then, finds the file back in the inbox and drops it).
    private func putBackUnwritten(_ job: IngestJob) {
        guard let claims else { return }
        do {
            let relative = try claims.unclaim(job)
            logger.info("put back into the inbox", metadata: ["path": .string(relative)])
        } catch {
            logger.error(
                "cannot put a claimed file back into the inbox; it stays staged and is taken at the next start",
                metadata: [
                    "path": .string(job.displayPath), "staged": .string(job.path), "error": .string(error.description),
                ])
        }
    }

    /// A claimed file left the staging folder: its entry goes, and `outcome`, when final, is recorded.
    private func finished(_ job: IngestJob, outcome: FileOutcome?) {
        finishedClaims.add(job, outcome: outcome)
    }

    /// Removes the round's finished claim entries and records their outcomes, in one transaction.
    private func removeFinishedClaims() async {
        guard !finishedClaims.isEmpty else { return }
        let batch = finishedClaims.take()
        do {
            try await library.appendFileRecords(batch.records, removingJournalEntries: batch.ids)
        } catch let error as PhotosError where error.code == .libraryVolumeOffline {
            hooks.libraryLost(.catalog(error))
        } catch {
            // Tried again with the next round's (a catalog away for a moment: a database restarting). Harmless if it
            // never succeeds: at the next start each entry finds its file gone from the staging folder and is dropped.
            logger.warning(
                "cannot remove finished claim journal entries yet; trying again with the next ones",
                metadata: ["entries": .count(batch.ids.count), "error": .string("\(error)")])
            finishedClaims.keep(batch)
            // No further round may come (nothing more is rejected or put back): one is asked for in a moment, for at
            // most five minutes of failures in a row.
            if failedRemovals < Self.removalRetries {
                failedRemovals += 1
                Task.detached { [self] in
                    try? await Task.sleep(for: .seconds(2))
                    submit(.retryFinishedClaims)
                }
            }
            return
        }
        failedRemovals = 0
    }

    /// How many rounds in a row could not remove their finished claims (see ``removeFinishedClaims()``).
    private var failedRemovals = 0
    static let removalRetries = 150
}
