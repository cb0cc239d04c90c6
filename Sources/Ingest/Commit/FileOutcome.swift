import PhotodropSystem
import Uploads

/// How one file ended: the pipeline's result per file, for the log, `import --json` and the counters.
public struct FileOutcome: Sendable {
    /// The outcome, as `import --json` and the log name it.
    public typealias Kind = OutcomeKind

    /// The file as people know it: relative to the inbox (watch) or as found below an import path.
    public var path: String
    /// How it ended.
    public var kind: Kind
    /// The rejection code (`corrupt`, `empty`, `unsupportedType`, `unsupportedVideo`); nil otherwise.
    public var reason: String?
    /// What the probe said (`JPEG photo 640×480`), why it was rejected, or what failed.
    public var message: String
    /// What failed, typed, for a `.failed` outcome (``message`` is its text).
    public var failure: IngestFailure?
    /// The MIME type by content, when known.
    public var mime: String?
    /// The asset's identifier: the new asset, or the existing one for a duplicate.
    public var assetID: String?
    /// The album the file was dropped for.
    public var album: String?
    /// The file's size in bytes (0 when it could not be read).
    public var bytes: Int64
    /// Where a rejected file was moved (`Rejected/<Album>/<name>`), when it was.
    public var rejectedPath: String?
    /// Time from taking the file to its outcome.
    public var elapsed: Duration

    /// An outcome.
    public init(
        path: String, kind: Kind, reason: String? = nil, failure: IngestFailure? = nil, message: String,
        mime: String? = nil, assetID: String? = nil,
        album: String? = nil, bytes: Int64 = 0, rejectedPath: String? = nil, elapsed: Duration = .zero
    ) {
        self.path = path
        self.kind = kind
        self.reason = reason
        self.failure = failure
        self.message = message
        self.mime = mime
        self.assetID = assetID
        self.album = album
        self.bytes = bytes
        self.rejectedPath = rejectedPath
        self.elapsed = elapsed
    }

    /// The item object of `import --json`: `path`, `outcome`, `reason`, `message`, `mime`, `id`, plus
    /// `album` and `bytes`. One line, keys in that order.
    public var json: String {
        var writer = JSONWriter(capacity: 256)
        writer.beginObject()
        writer.member("path", path)
        writer.member("outcome", kind.rawValue)
        writer.member("reason", reason)
        writer.member("message", message)
        writer.member("mime", mime)
        writer.member("id", assetID)
        writer.member("album", album)
        writer.member("bytes", bytes)
        if let rejectedPath { writer.member("rejectedPath", rejectedPath) }
        writer.endObject()
        return writer.text
    }

    /// Milliseconds of ``elapsed``, for log fields.
    var elapsedMilliseconds: Double {
        let (seconds, attoseconds) = elapsed.components
        return Double(seconds) * 1000 + Double(attoseconds) / 1e15
    }
}

extension OutcomeRecord {
    /// The record of a pipeline outcome.
    public init(_ outcome: FileOutcome) {
        self.init(
            outcome: outcome.kind.rawValue, path: outcome.path, album: outcome.album, asset: outcome.assetID,
            reason: outcome.reason, message: outcome.message, rejectedPath: outcome.rejectedPath)
    }
}
