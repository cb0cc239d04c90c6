/// What photodrop would do with one file, decided by its content: accept it as a ``MediaKind`` or reject it with a
/// ``RejectionReason``, and why.
///
/// JSON (`probe --json`, reason files): `outcome` (`photo`/`gif`/`video`/`rejected`), `reason` (a
/// ``RejectionReason`` code or `null`), `message`, `mime`, `fileExtension`, `isTruncated`, then the
/// ``MediaMetadata`` keys at the same level. Dates follow the encoder's `dateEncodingStrategy` (use `.iso8601`).
public struct ProbeResult: Sendable, Equatable, Codable {
    /// The asset kind when the file is accepted; `nil` when it is rejected.
    public var kind: MediaKind?
    /// Why the file is rejected; `nil` when it is accepted.
    public var rejection: RejectionReason?
    /// For a rejection, exactly why and what a person can do about it; for an accepted file a short description such
    /// as `HEIC photo 4032×3024` or `H.264/AAC QuickTime movie 12.3 s`.
    public var message: String
    /// The MIME type from photodrop's own sniffing (`image/jpeg`, `image/x-canon-cr3`, `video/quicktime` …) or, for
    /// formats it does not parse itself, from libmagic.
    public var mime: String
    /// The lowercase extension the stored original should get, from the content: `jpg`, `heic`, `avif`, `png`,
    /// `tiff`, `webp`, `bmp`, `dng`, `cr2`, `cr3`, `raf`, `nef`, `arw`, `orf`, `rw2`, `gif`, `mov`, `mp4`, `m4v`,
    /// `3gp` …; for unknown content `bin`.
    public var fileExtension: String
    /// True when the file is `corrupt` because data is missing at its end (an interrupted upload that may resume),
    /// as opposed to structurally broken. Also true for `empty` files. Ingest waits `incompleteGraceSeconds` before
    /// rejecting such a file.
    public var isTruncated: Bool
    /// Capture date, size, duration, location, codecs … as far as the file records them.
    public var metadata: MediaMetadata

    /// Creates a result. Exactly one of `kind` and `rejection` should be set.
    public init(
        kind: MediaKind?, rejection: RejectionReason?, message: String, mime: String, fileExtension: String,
        isTruncated: Bool = false, metadata: MediaMetadata = MediaMetadata()
    ) {
        self.kind = kind
        self.rejection = rejection
        self.message = message
        self.mime = mime
        self.fileExtension = fileExtension
        self.isTruncated = isTruncated
        self.metadata = metadata
    }

    /// An accepted file.
    public static func accepted(
        _ kind: MediaKind, message: String, mime: String, fileExtension: String, metadata: MediaMetadata
    ) -> ProbeResult {
        ProbeResult(
            kind: kind, rejection: nil, message: message, mime: mime, fileExtension: fileExtension, metadata: metadata)
    }

    /// A rejected file.
    public static func rejected(
        _ reason: RejectionReason, message: String, mime: String, fileExtension: String, isTruncated: Bool = false,
        metadata: MediaMetadata = MediaMetadata()
    ) -> ProbeResult {
        ProbeResult(
            kind: nil, rejection: reason, message: message, mime: mime, fileExtension: fileExtension,
            isTruncated: isTruncated, metadata: metadata)
    }

    /// `photo`, `gif`, `video` or `rejected`: the `outcome` field of `probe --json`.
    public var outcome: String { kind?.rawValue ?? "rejected" }

    /// Whether the file is accepted.
    public var isAccepted: Bool { kind != nil }

    enum CodingKeys: String, CodingKey {
        case outcome, reason, message, mime, fileExtension, isTruncated
    }

    /// Decodes the JSON shape described on the type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let outcome = try c.decode(String.self, forKey: .outcome)
        if outcome == "rejected" {
            kind = nil
        } else if let kind = MediaKind(rawValue: outcome) {
            self.kind = kind
        } else {
            throw DecodingError.dataCorruptedError(
                forKey: .outcome, in: c,
                debugDescription: "outcome '\(outcome)' is none of photo, gif, video, rejected")
        }
        rejection = try c.decodeIfPresent(RejectionReason.self, forKey: .reason)
        message = try c.decode(String.self, forKey: .message)
        mime = try c.decode(String.self, forKey: .mime)
        fileExtension = try c.decodeIfPresent(String.self, forKey: .fileExtension) ?? "bin"
        isTruncated = try c.decodeIfPresent(Bool.self, forKey: .isTruncated) ?? false
        metadata = try MediaMetadata(from: decoder)
    }

    /// Encodes the JSON shape described on the type: the result's keys and the metadata keys in one object.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(outcome, forKey: .outcome)
        try c.encode(rejection, forKey: .reason)
        try c.encode(message, forKey: .message)
        try c.encode(mime, forKey: .mime)
        try c.encode(fileExtension, forKey: .fileExtension)
        try c.encode(isTruncated, forKey: .isTruncated)
        try metadata.encode(to: encoder)
    }
}
