import PhotodropSystem

/// Where a ``Logger`` writes finished lines (each ends with `\n`).
public struct LogSink: Sendable {
    /// Receives one complete line, newline included.
    public let write: @Sendable (String) -> Void

    public init(write: @escaping @Sendable (String) -> Void) {
        self.write = write
    }

    /// The process's stderr. Each line goes out in one `write(2)` call, so lines from several threads do not
    /// interleave (up to `PIPE_BUF` bytes on a pipe; a terminal or a file keeps whole writes together too).
    public static let standardError = LogSink { line in
        // When stderr is gone, nothing sensible is left to do with a log line.
        try? FileSystem.writeAll(line, to: .standardError, path: nil)
    }
}
