import Foundation
import PhotodropSystem
import Testing

@testable import MediaProbe

/// Probing reads headers, not whole files.
@Suite("A 4 GB sparse movie is probed in milliseconds, reading a few KB", .timeLimit(.minutes(3)))
struct LargeFileTests {
    static let samples = 1000
    static let sampleSize = 4_000_000  // 1000 × 4 MB = 4 GB of (sparse) sample data

    /// ftyp, moov (co64 offsets), then an mdat with a 64-bit size whose 4 GB are a hole; or mdat first, moov last.
    static func write(to url: URL, moovFirst: Bool) throws -> Int64 {
        var video = TrackSpec.video()
        video.wideOffsets = true
        video.duration = samples * 20
        let sizes = [Int](repeating: sampleSize, count: samples)
        let ftyp = BMFF.ftyp("isom", ["isom", "mp41"])
        func moov(dataStart: Int) -> [UInt8] {
            let offsets = (0..<samples).map { dataStart + $0 * sampleSize }
            let mvhd = BMFF.full(
                "mvhd",
                .be32(0) + .be32(0) + .be32(600) + .be32(samples * 20) + .be32(0x10000) + .be16(0x100)
                    + .zeros(10) + BMFF.matrix(BMFF.identity) + .zeros(24) + .be32(2))
            return BMFF.box("moov", [mvhd, video.trak(id: 1, offsets: offsets, sizes: sizes)])
        }
        let payload = UInt64(samples * sampleSize)
        let mdatHeader: [UInt8] = .be32(1) + .fourCC("mdat") + .be64(16 + payload)
        let fd = open(url.path, O_CREAT | O_TRUNC | O_WRONLY, 0o644)
        guard fd >= 0 else { throw ProbeError.io("create", errno: Errno(rawValue: errno), path: url.path) }
        defer { close(fd) }
        func write(_ bytes: [UInt8], at offset: Int64) {
            _ = bytes.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, off_t(offset)) }
        }
        let probeSize = moov(dataStart: 0).count
        if moovFirst {
            let start = ftyp.count + probeSize + 16
            write(ftyp + moov(dataStart: start) + mdatHeader, at: 0)
            let total = Int64(start) + Int64(payload)
            ftruncate(fd, off_t(total))
            return total
        }
        let start = ftyp.count + 16
        write(ftyp + mdatHeader, at: 0)
        let moovAt = Int64(start) + Int64(payload)
        write(moov(dataStart: start), at: moovAt)
        return moovAt + Int64(probeSize)
    }

    @Test("moov in front, and moov at the end", arguments: [true, false])
    func sparse(moovFirst: Bool) throws {
        try Probe.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("huge.mp4")
            let size = try Self.write(to: url, moovFirst: moovFirst)
            #expect(size > 4_000_000_000)
            let fd = open(url.path, O_RDONLY)
            try #require(fd >= 0)
            defer { close(fd) }
            let prober = try MediaProber()
            let start = DispatchTime.now().uptimeNanoseconds
            let (result, bytesRead, calls) = try prober.probe(descriptor: FileDescriptor(borrowing: fd), size: size, prefix: nil, path: url.path)
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
            print(
                "4 GB sparse movie (moov \(moovFirst ? "first" : "last")): \(result.message); read \(bytesRead) "
                    + "bytes in \(calls) reads, \(String(format: "%.2f", milliseconds)) ms"
            )
            #expect(result.kind == .video, "\(result.message)")
            #expect(result.metadata.frameCount == Self.samples)
            #expect(bytesRead < 4 << 20, "read \(bytesRead) bytes of a \(size)-byte file")
            // Cut one byte short: the last sample is missing.
            let cut = try prober.probe(fileDescriptor: FileDescriptor(borrowing: fd), fileSize: size - 1, prefix: nil)
            #expect(cut.rejection == .corrupt && cut.isTruncated)
        }
    }
}
