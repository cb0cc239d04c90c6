import FoundationEssentials
import PhotoCatalog
import PhotodropSystem

/// What became of one file `watch` took from the inbox, kept in the catalog as a file record (kind ``kind``, found
/// by the file's device and inode) for ``PhotoCatalog/HistoryRetention/fileRecordAge`` (30 days): rejections and
/// duplicates leave no trace in the change history, and an uploader asks for its file's outcome
/// (``UploadStatus``). Written in the transaction that ends the file's claim: with its asset when it was stored.
public struct OutcomeRecord: Sendable, Hashable {
    /// The file record kind.
    public static let kind = "outcome"

    /// How it ended: a ``OutcomeKind`` raw value (`photo`, `gif`, `video`, `duplicate`, `attached`, `rejected`,
    /// `failed`), or `unknown` for a file finished just before a crash, whose outcome was not recorded.
    public var outcome: String
    /// The file's path relative to the inbox.
    public var path: String
    /// Its album key, if any.
    public var album: String?
    /// The asset it became, was a duplicate of, or was attached to.
    public var asset: String?
    /// The rejection code.
    public var reason: String?
    /// What the probe said, why it was rejected, or what failed.
    public var message: String?
    /// Where a rejected file is, relative to `Rejected/`'s parent (`Rejected/Trip/x.jpg`).
    public var rejectedPath: String?

    public init(
        outcome: String, path: String, album: String?, asset: String? = nil, reason: String? = nil,
        message: String? = nil, rejectedPath: String? = nil
    ) {
        self.outcome = outcome
        self.path = path
        self.album = album
        self.asset = asset
        self.reason = reason
        self.message = message
        self.rejectedPath = rejectedPath
    }

    /// Whether the file is in the library (as an asset of its own, a duplicate of one, or a resource of one).
    public var isStored: Bool { OutcomeKind(rawValue: outcome)?.isStored ?? false }

    /// The file record to append for the file `node`.
    ///
    /// Written with photodrop's own JSON writer: `watch` makes one per file on the committer's serial path, where
    /// Foundation's `JSONEncoder` cost about a tenth of a burst's time.
    public func draft(for node: FileNode) -> FileRecord.Draft {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.member("outcome", outcome)
        writer.member("path", path)
        if let album { writer.member("album", album) }
        if let asset { writer.member("asset", asset) }
        if let reason { writer.member("reason", reason) }
        if let message { writer.member("message", message) }
        if let rejectedPath { writer.member("rejectedPath", rejectedPath) }
        writer.endObject()
        return FileRecord.Draft(kind: Self.kind, device: node.device, inode: node.inode, payload: Data(writer.text.utf8))
    }

    /// The record in `payload`, or nil when it is not one (foreign or damaged). Read with photodrop's own parser,
    /// which takes back the `\udcXX` escapes its writer gives a name's bytes that are not UTF-8.
    public init?(payload: Data) {
        guard let value = try? JSONParser.parse(Array(payload)), case .object(let members) = value.kind else {
            return nil
        }
        var fields: [String: String] = [:]
        for member in members { if case .string(let text) = member.value.kind { fields[member.key] = text } }
        guard let outcome = fields["outcome"], let path = fields["path"] else { return nil }
        self.init(
            outcome: outcome, path: path, album: fields["album"], asset: fields["asset"], reason: fields["reason"],
            message: fields["message"], rejectedPath: fields["rejectedPath"])
    }
}
