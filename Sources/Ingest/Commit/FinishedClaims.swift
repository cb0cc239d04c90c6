import PhotoCatalog
import PhotodropSystem
import Uploads

/// Claim entries of files that left the staging folder, with the outcome records to write as they are removed (one
/// transaction: ``PhotoCatalog/PhotoLibrary/appendFileRecords(_:removingJournalEntries:)``). Kept by the committer
/// and the ``RejectionDesk``: ``take()`` hands over what is there; when its removal fails (a catalog away for a
/// moment: a database restarting) ``keep(_:)`` puts it back for the next try, up to ``limit`` entries (each a few
/// bytes; past it, the next start drops them: their files are gone from the staging folder).
struct FinishedClaims {
    /// The most entries kept for a later removal.
    static let limit = 100_000

    /// What one removal carries.
    struct Batch {
        var ids: [Int64] = []
        var records: [FileRecord.Draft] = []
    }

    private var pending = Batch()

    var isEmpty: Bool { pending.ids.isEmpty }

    /// A claimed file is finished: its entry goes, and `outcome`, when final (not a file put back to be retried), is
    /// recorded for it.
    mutating func add(_ job: IngestJob, outcome: FileOutcome?) {
        guard let id = job.claimID else { return }
        pending.ids.append(id)
        if let outcome, let node = job.node { pending.records.append(OutcomeRecord(outcome).draft(for: node)) }
    }

    /// Everything pending, for one removal.
    mutating func take() -> Batch {
        defer { pending = Batch() }
        return pending
    }

    /// A batch whose removal failed, back in front of what came since (unless that passes ``limit``).
    mutating func keep(_ batch: Batch) {
        guard pending.ids.count + batch.ids.count <= Self.limit else { return }
        pending.ids = batch.ids + pending.ids
        pending.records = batch.records + pending.records
    }
}
