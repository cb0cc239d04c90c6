/// Why a file is not accepted; the raw values are the `reason` codes of `EXPECTED.tsv`, `probe --json` and
/// `<name>.reason.json`, and never change.
public enum RejectionReason: String, Sendable, Hashable, Codable, CaseIterable {
    /// A video (or a movie container) that Apple devices cannot play: another container (MKV, WebM, AVI, MPEG-TS …),
    /// a codec outside the configured lists, MP3 or AMR audio, an encrypted track.
    case unsupportedVideo
    /// Anything that is neither a photo, a GIF nor a video: text, PDF, archives, audio-only files.
    case unsupportedType
    /// Truncated or structurally broken; ``ProbeResult/isTruncated`` tells an interrupted upload apart.
    case corrupt
    /// Zero bytes.
    case empty
}
