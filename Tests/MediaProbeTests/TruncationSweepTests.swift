import Foundation
import PhotodropSystem
import TestFixtures
import Testing

@testable import MediaProbe

/// Every corpus file cut at 100 evenly spaced offsets: no crash, no hang, and never a playable video or a complete
/// photo when the cut removed data the file needs.
@Suite("Truncation sweep over the corpus", .requires(Corpus.isAvailable, Corpus.skipNote), .timeLimit(.minutes(3)))
struct TruncationSweepTests {
    /// Where the data a file needs ends, by an oracle independent of the probe's own walkers: the whole file,
    /// except for a JPEG, whose bytes after the main image's end marker (a motion photo's movie) are extra.
    static func neededEnd(_ bytes: [UInt8]) -> Int {
        guard bytes.starts(with: [0xFF, 0xD8]) else { return bytes.count }
        // Walk the segments naively to the first scan, then look for FF D9 outside stuffing.
        var i = 2
        while i + 4 <= bytes.count, bytes[i] == 0xFF {
            let marker = bytes[i + 1]
            let length = Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            i += 2 + length
            if marker == 0xDA { break }
        }
        while i + 1 < bytes.count {
            if bytes[i] == 0xFF, bytes[i + 1] == 0xD9 { return i + 2 }
            i += 1
        }
        return bytes.count
    }

    @Test("cut at 100 offsets, every corpus file")
    func sweep() throws {
        let prober = try MediaProber()
        var failures: [String] = []
        var notFlagged: [String] = []
        var probes = 0
        var slowest: (Double, String) = (0, "")
        for file in try Corpus.mediaFiles() {
            let path = Corpus.path(file)
            let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            let full = try prober.probe(path: path)
            let needed = Self.neededEnd(bytes)
            let fd = open(path, O_RDONLY)
            try #require(fd >= 0)
            defer { close(fd) }
            for k in 0..<100 {
                let cut = bytes.count * k / 100
                let start = Self.threadCPUNanoseconds()
                let result = try prober.probe(fileDescriptor: FileDescriptor(borrowing: fd), fileSize: Int64(cut), prefix: nil)
                let seconds = Double(Self.threadCPUNanoseconds() - start) / 1e9
                if seconds > slowest.0 { slowest = (seconds, "\(file) at \(cut)") }
                probes += 1
                if cut == 0 {
                    if result.rejection != .empty { failures.append("\(file) cut to 0 bytes: \(result.outcome)") }
                    continue
                }
                if result.isAccepted, cut < needed {
                    failures.append(
                        "\(file) cut at \(cut) of \(bytes.count) (needs \(needed)): accepted as \(result.outcome) — "
                            + result.message)
                }
                if full.isAccepted, cut < needed, !result.isAccepted,
                    !(result.rejection == .corrupt && result.isTruncated)
                {
                    notFlagged.append("\(file) at \(cut): \(result.rejection?.rawValue ?? "") \(result.message)")
                }
                if result.isAccepted, !full.isAccepted {
                    failures.append("\(file) cut at \(cut): accepted although the whole file is rejected")
                }
            }
        }
        print("truncation sweep: \(probes) probes, slowest \(String(format: "%.4f", slowest.0)) s of CPU (\(slowest.1))")
        // CPU time of this thread, not the wall clock: a parser that loops on a cut file spends seconds of it, while a
        // machine busy with other tests only makes the wall clock longer.
        #expect(slowest.0 < 1, "a probe of a cut file spent \(slowest.0) s of CPU: \(slowest.1)")
        #expect(
            notFlagged.isEmpty,
            "cut files not reported as truncated (uploads must wait):\n\(notFlagged.joined(separator: "\n"))"
        )
        #expect(failures.isEmpty, "\(failures.count) cut file(s) judged complete:\n\(failures.joined(separator: "\n"))")
    }

    /// The calling thread's CPU time so far.
    static func threadCPUNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
