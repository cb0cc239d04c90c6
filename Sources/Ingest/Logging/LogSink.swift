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
        var line = line
        line.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = retryingOnInterrupt {
                    LibC.write(2, buffer.baseAddress! + offset, buffer.count - offset)
                }
                if written <= 0 { return }  // stderr is gone; nothing sensible is left to do with a log line
                offset += written
            }
        }
    }
}
