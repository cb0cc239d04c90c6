/// Which video and audio codecs (sample-entry four-character codes) count as playable on Apple devices: the
/// `video.videoCodecs` / `video.audioCodecs` lists of `config.json`.
///
/// A movie is accepted when it has a video track, every video track's codec is in ``videoCodecs`` and every audio
/// track's codec is in ``audioCodecs``. `mp4a` is further narrowed by its MPEG-4 object type: MP3 carried in `mp4a`
/// (object types 0x69 and 0x6B) plays silent on Apple devices and is rejected even when `mp4a` is listed.
public struct VideoPolicy: Sendable, Equatable {
    /// Accepted video sample entries, e.g. `avc1`, `hvc1`.
    public var videoCodecs: Set<String>
    /// Accepted audio sample entries, e.g. `mp4a`, `sowt`.
    public var audioCodecs: Set<String>

    /// Creates a policy from two lists of four-character codes (case-sensitive: `ac-3`, `twos`).
    public init(videoCodecs: Set<String>, audioCodecs: Set<String>) {
        self.videoCodecs = videoCodecs
        self.audioCodecs = audioCodecs
    }

    /// What Apple devices play, as in the repository's `config.json`: H.264 (`avc1`, `avc3`), HEVC (`hvc1`), Dolby
    /// Vision (`dvh1`), MPEG-4 Part 2 (`mp4v`), Motion JPEG (`jpeg`, `mjpa`, `mjpb`), ProRes (`apch`, `apcn`, `apcs`,
    /// `apco`, `ap4h`, `ap4x`); AAC (`mp4a`), AC-3, E-AC-3, ALAC, LPCM (`lpcm`, `twos`, `sowt`, `in24`, `in32`,
    /// `fl32`, `fl64`), µ-law, A-law and IMA4.
    public static let appleDefault = VideoPolicy(
        videoCodecs: [
            "avc1", "avc3", "hvc1", "dvh1", "mp4v", "jpeg", "mjpa", "mjpb", "apch", "apcn", "apcs", "apco", "ap4h",
            "ap4x",
        ],
        audioCodecs: [
            "mp4a", "ac-3", "ec-3", "alac", "lpcm", "twos", "sowt", "in24", "in32", "fl32", "fl64", "ulaw", "alaw",
            "ima4",
        ])

    /// Codes in the lists that are not four characters long: they can never match a sample entry, so a
    /// configuration loader should report them (naming the key) instead of silently ignoring them.
    public var malformedCodes: [String] {
        (videoCodecs.union(audioCodecs)).filter { $0.utf8.count != 4 }.sorted()
    }
}
