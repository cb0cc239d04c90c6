import FoundationEssentials
import PhotoCatalog
import PhotodropTelemetry

/// A node's watch over the claims of the other nodes sharing its inbox (a shared PostgreSQL catalog): every
/// ``interval``, the files left claimed by a node whose lease ran out (no heartbeat for `claimLeaseSeconds` by the
/// database's clock, and no daemon holding its id) are taken over (``ClaimJournal/takeOver(from:lease:logger:)``) and
/// sent to this node's pipeline, and files a takeover found away are moved here once they are back
/// (``ClaimJournal/adoptPending(lease:)``). Runs until its task is cancelled or the pipeline takes no more jobs.
struct ClaimTakeover: Sendable {
    let claims: ClaimJournal
    /// Seconds without a heartbeat after which a node's claims may be taken.
    let lease: Double
    let interval: Duration
    let logger: Logger
    /// Hands a job to the pipeline; false once it takes no more (the daemon is stopping: the entries stay this node's
    /// and its next start finishes them).
    let submit: @Sendable (IngestJob) async -> Bool

    /// The round interval for a lease: a quarter of it, between 5 and 30 seconds.
    static func interval(lease: Double) -> Duration { .seconds(min(30, max(5, lease / 4))) }

    func run() async {
        while !Task.isCancelled {
            try? await Task.sleep(for: interval)
            if Task.isCancelled { return }
            for job in await round() {
                guard await submit(job) else { return }
            }
        }
    }

    /// One round: the jobs of the files taken over or adopted.
    func round() async -> [IngestJob] {
        guard let node = claims.node else { return [] }
        await claims.settleLeftovers()
        var jobs: [IngestJob] = []
        do {
            var recovered = false
            for dead in try claims.library.expiredNodes(lease: lease, excluding: node)
            where !(try claims.library.journalEntries(kind: ClaimJournal.kind(node: dead))).isEmpty {
                // A file the dead node was placing into the library when it died lies there uncommitted: its writer's
                // intents put it back into that node's staging folder first (only those of writers that are gone).
                if !recovered {
                    try await claims.library.recoverInterruptedChanges()
                    recovered = true
                }
                jobs += try await claims.takeOver(from: dead, lease: lease, logger: logger)
            }
            jobs += try await claims.adoptPending(lease: lease)
        } catch {
            logger.warning(
                "could not look for files claimed by nodes whose lease ran out; trying again in a moment",
                metadata: ["error": .string(String(describing: error))])
        }
        return jobs
    }
}
