import PhotoCatalog
import PhotodropSystem
import PhotodropTelemetry
import PhotodropConcurrency

/// The watch daemon's claim stage: takes settled files from the watch loop, claims them in batches (one journal
/// transaction each, then the renames; ``ClaimJournal``) and hands them to the workers.
///
/// A stage of its own, so that the watch loop keeps looking at files while a claim waits for the library's writer
/// (which also runs the group commits), and so that claims batch up naturally under load: it takes one file, then
/// whatever else is already waiting, never waiting to fill a batch.
struct Claimer: Sendable {
    let claims: ClaimJournal
    let settled: BoundedQueue<IngestJob>
    let pipeline: IngestPipeline
    let mailbox: Mailbox<WatchInput>
    let stopRequested: StopFlag
    let statistics: IngestStatistics
    let logger: Logger
    /// Checked before each batch (the daemon's lock is still its own); a failure stops the daemon.
    var guardCheck: @Sendable () throws -> Void = {}
    var batchLimit = 512

    /// Claims until `settled` is finished; after a stop request, what is still waiting stays in the inbox.
    func run() async {
        while let first = await settled.receive() {
            if stopRequested.isRaised { continue }
            var files = [first]
            settled.receiveAvailable(upTo: batchLimit - 1, appendingTo: &files)
            let claimed: ClaimJournal.Claimed
            do {
                try guardCheck()
                claimed = try await claims.claim(files)
            } catch let error as PhotosError where error.code == .libraryVolumeOffline {
                mailbox.post(.pipelineFailed(.catalog(error)))
                continue
            } catch let error as DaemonLock.Failure {
                mailbox.post(.pipelineFailed(.lockLost(error)))
                continue
            } catch {
                logger.error(
                    "cannot record claims in the library's journal; the files stay in the inbox and are retried",
                    metadata: ["files": .count(files.count), "error": .string(IngestFailure(error).description)])
                mailbox.post(.claimFailed(files.map(\.displayPath), IngestFailure(error)))
                continue
            }
            // Files that could not be moved (a read-only folder, a file a link replaced): the watch loop retries them
            // with back-off and logs them (a warning the first time only).
            var lost = 0
            for missed in claimed.missed {
                if missed.error.code == Errno.noSuchFileOrDirectory {
                    lost += 1
                } else {
                    mailbox.post(.claimFailed([missed.path], .io(missed.error)))
                }
            }
            statistics.recordClaimsLost(lost)
            for job in claimed.jobs {
                do {
                    try await pipeline.send(job)
                } catch {
                    // The pipeline is gone; the claimed file stays staged and is recovered at the next start.
                    return
                }
            }
        }
    }
}
