import FoundationEssentials
import PhotoCatalog
import PhotodropSystem

/// Where an upload stands: received and waiting in the inbox, or what `watch` made of it (``OutcomeRecord``).
///
/// The upload's record (``UploadRecord``) holds the file's device and inode; the outcome is the first outcome
/// record of that file written after the upload's record (records are numbered in commit order, so an inode that a
/// later file reuses is never mistaken for this one).
public struct UploadStatus: Sendable {
    /// The upload's id (its record's).
    public let id: Int64
    public let upload: UploadRecord
    public let receivedAt: Date
    /// What became of it; nil while it waits in the inbox (or is put back to be retried).
    public let outcome: OutcomeRecord?
    public let finishedAt: Date?

    /// `waiting`, `stored` (a new asset, or attached to one), `duplicate`, `rejected`, `failed` or `unknown`.
    public var state: String {
        guard let outcome else { return "waiting" }
        switch OutcomeKind(rawValue: outcome.outcome) {
        case .photo?, .gif?, .video?, .attached?: return "stored"
        case .duplicate?: return "duplicate"
        case .rejected?: return "rejected"
        case .failed?: return "failed"
        case nil: return "unknown"
        }
    }

    /// The upload `id` and its outcome so far; nil when there is no such upload (never made, or older than the
    /// records are kept).
    public static func find(_ id: Int64, in library: PhotoLibrary) throws -> UploadStatus? {
        guard let record = try library.fileRecord(id: id), record.kind == UploadRecord.kind,
            let upload = UploadRecord(payload: record.payload)
        else { return nil }
        let outcome = try library.fileRecords(
            kind: OutcomeRecord.kind, device: record.device, inode: record.inode, after: record.id, limit: 1
        ).first
        return UploadStatus(
            id: id, upload: upload, receivedAt: record.recordedAt,
            outcome: outcome.flatMap { OutcomeRecord(payload: $0.payload) }, finishedAt: outcome?.recordedAt)
    }
}
