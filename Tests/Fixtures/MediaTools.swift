import Foundation

/// The real programs that write media and their metadata (ExifTool, FFmpeg), for tests that check photodrop against
/// files the tools people use produce, not only bytes made by hand for the parser that reads them. `.ci/run` installs
/// them (Debian `libimage-exiftool-perl`, `ffmpeg`).
///
/// Async: a test awaits the program without holding one of the few threads Swift's concurrency runs on (as many as
/// cores), which in-process daemons of other tests need meanwhile.
public enum MediaTools {
    public static let exiftoolPath = "/usr/bin/exiftool"
    public static let ffmpegPath = "/usr/bin/ffmpeg"

    public static let hasExifTool = FileManager.default.isExecutableFile(atPath: exiftoolPath)
    public static let hasFFmpeg = FileManager.default.isExecutableFile(atPath: ffmpegPath)

    /// Why a tool call failed.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Runs ExifTool on `file` with `arguments` (tag assignments), in place, with `-m` so that its minor warnings
    /// (a JPEG XL codestream wrapped in a container) do not stop the write.
    public static func exiftool(_ arguments: [String], on file: String) async throws {
        let result = try await ProcessRunner.run(
            URL(fileURLWithPath: exiftoolPath), ["-m", "-q", "-overwrite_original"] + arguments + [file])
        guard result.status == 0 else { throw Failure(description: "exiftool \(arguments): \(result)") }
    }

    /// What ExifTool reads from `file` for `tags` (`-s3`: values only, one per line), e.g. to check a write took.
    public static func exiftoolRead(_ tags: [String], from file: String) async throws -> [String] {
        let result = try await ProcessRunner.run(URL(fileURLWithPath: exiftoolPath), ["-s3"] + tags + [file])
        guard result.status == 0 else { throw Failure(description: "exiftool read \(tags): \(result)") }
        return result.lines
    }

    /// Runs FFmpeg quietly, overwriting its output.
    public static func ffmpeg(_ arguments: [String]) async throws {
        let result = try await ProcessRunner.run(URL(fileURLWithPath: ffmpegPath), ["-v", "error", "-y"] + arguments)
        guard result.status == 0 else { throw Failure(description: "ffmpeg \(arguments): \(result)") }
    }

    /// A `seconds`-long H.264 test pattern of `width` × `height` at `rate` frames per second, written by FFmpeg to
    /// `path` (its container from the extension), with `extra` arguments before the output (`-metadata …`).
    public static func testVideo(
        _ path: String, width: Int = 320, height: Int = 240, rate: Int = 30, seconds: Double = 2, extra: [String] = []
    ) async throws {
        try await ffmpeg(
            ["-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=\(rate)", "-t", String(seconds), "-c:v",
             "libx264", "-pix_fmt", "yuv420p"] + extra + [path])
    }
}
