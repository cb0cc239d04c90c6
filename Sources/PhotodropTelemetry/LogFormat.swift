/// How the daemon writes its log lines to stderr.
public enum LogFormat: String, Sendable, Hashable, CaseIterable {
    /// `2025-06-01T12:00:00.123Z info  stored path="Trip/IMG_1.jpg" outcome=photo`
    case text
    /// One JSON object per line: `{"time":"…","level":"info","message":"stored","path":"Trip/IMG_1.jpg",…}`
    case json
}
