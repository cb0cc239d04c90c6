import Foundation
import Testing
import TestFixtures

@testable import MediaProbe

/// Videos as FFmpeg writes them and ExifTool tags them: Android's 3GPP `date` and `loci`, XMP in MP4 and MOV, titles,
/// the frame rate, metadata kept at track level, and headers that lie about the duration or the picture size.
@Suite(
    "Movie metadata: 3GPP date and location, XMP, track-level keys, frame rate; headers checked against the samples",
    .timeLimit(.minutes(5)),
    .requires(MediaTools.hasFFmpeg, "ffmpeg (apt-get install ffmpeg)"),
    .requires(MediaTools.hasExifTool, "exiftool (apt-get install libimage-exiftool-perl)"))
struct MovieMetadataTests {
    let folder: TemporaryFolder

    init() throws { folder = try TemporaryFolder("movie-metadata") }

    func probe(_ path: String) throws -> ProbeResult { try MediaProber().probe(path: path) }

    @Test("Android's udta date (recording start with its zone) and loci (location) come before the movie header's time")
    func threeGPP() async throws {
        let path = folder.url("android.mp4")
        try await MediaTools.testVideo(path, extra: ["-metadata", "creation_time=2020-11-20T14:04:36Z"])
        try await MediaTools.exiftool(
            [
                "-UserData:DateTimeOriginal=2020:11:20 15:04:02+01:00",
                "-UserData:LocationInformation=Home Role=shooting Lat=48.8566 Lon=2.3522 Alt=35 Body=earth Notes=",
            ], on: path)
        let m = try probe(path).metadata
        #expect(m.captureDateSource == .quickTime)
        #expect(m.captureDate == ISO8601DateFormatter().date(from: "2020-11-20T14:04:02Z"), "not the mvhd time, 34 s later")
        #expect(m.captureTimeZoneOffset == 3600)
        let location = try #require(m.location)
        #expect(abs(location.latitude - 48.8566) < 1e-4 && abs(location.longitude - 2.3522) < 1e-4)
        #expect(abs((location.altitude ?? 0) - 35) < 1e-3)
    }

    @Test("titles and the frame rate from FFmpeg's metadata; XMP in MP4 (uuid box) and MOV (udta/XMP_) comes first")
    func titlesAndXMP() async throws {
        let mp4 = folder.url("titled.mp4")
        try await MediaTools.testVideo(
            mp4, rate: 25,
            extra: [
                "-metadata", "title=Beach day", "-metadata", "description=At the sea", "-metadata", "artist=Jane",
                "-metadata", "copyright=(c) Jane",
            ])
        let plain = try probe(mp4).metadata
        #expect(plain.title == "Beach day" && plain.caption == "At the sea")
        #expect(plain.artist == "Jane" && plain.copyright == "(c) Jane")
        #expect(plain.frameRate == 25)
        try await MediaTools.exiftool(["-xmp:Title=XMP title", "-xmp:Subject=sea", "-xmp:Rating=5"], on: mp4)
        let tagged = try probe(mp4).metadata
        #expect(tagged.title == "XMP title" && tagged.keywords == ["sea"] && tagged.rating == 5)
        #expect(tagged.caption == "At the sea")

        let mov = folder.url("titled.mov")
        try await MediaTools.testVideo(mov, rate: 24)
        try await MediaTools.exiftool(["-xmp:Title=MOV title", "-xmp:Rating=2"], on: mov)
        let m = try probe(mov).metadata
        #expect(m.title == "MOV title" && m.rating == 2 && m.frameRate == 24)
    }

    @Test("©xyz kept in the track's own udta is read like the movie's")
    func trackLevelLocation() async throws {
        let path = folder.url("track.mp4")
        try await MediaTools.testVideo(path, extra: ["-metadata", "location=+48.8566+002.3522/"])
        let movieLevel = try probe(path).metadata.location
        #expect(movieLevel != nil)
        // Move moov/udta into the video trak (the moov is at the end, so no chunk offset changes).
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes = try BoxSurgery.moveUserDataIntoFirstTrack(bytes)
        let moved = folder.url("track-level.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: moved))
        let r = try probe(moved)
        #expect(r.kind == .video, "\(r.message)")
        #expect(r.metadata.location == movieLevel)
    }

    @Test("a movie header claiming 10 hours for a 2-second clip, and track headers claiming 16384 × 16384 for 320 × 240")
    func lyingHeaders() async throws {
        let path = folder.url("honest.mp4")
        try await MediaTools.testVideo(path, seconds: 2)
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        func find(_ type: String) throws -> Int {
            let pattern = Array(type.utf8)
            return try #require((0..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == pattern })
        }
        func put32(_ value: UInt32, at index: Int) {
            for k in 0..<4 { bytes[index + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
        }
        // mvhd (version 0): flags, two times, timescale, duration.
        let mvhd = try find("mvhd")
        let timescale = UInt32(bytes[mvhd + 16]) << 24 | UInt32(bytes[mvhd + 17]) << 16 | UInt32(bytes[mvhd + 18]) << 8
            | UInt32(bytes[mvhd + 19])
        put32(timescale * 36_000, at: mvhd + 20)
        // tkhd (version 0): its width and height (16.16) after 76 bytes; the avc1 entry's width and height at 24.
        let tkhd = try find("tkhd")
        put32(16384 << 16, at: tkhd + 4 + 76)
        put32(16384 << 16, at: tkhd + 4 + 80)
        let avc1 = try find("avc1")
        bytes[avc1 + 4 + 24] = 0x40
        bytes[avc1 + 4 + 25] = 0
        bytes[avc1 + 4 + 26] = 0x40
        bytes[avc1 + 4 + 27] = 0
        let lying = folder.url("lying.mp4")
        try Data(bytes).write(to: URL(fileURLWithPath: lying))
        #expect(try await MediaTools.exiftoolRead(["-ImageSize", "-Duration#"], from: lying) == ["16384x16384", "36000"])
        let r = try probe(lying)
        #expect(r.kind == .video, "\(r.message)")
        #expect(r.metadata.duration == 2, "\(String(describing: r.metadata.duration))")
        #expect(r.metadata.pixelWidth == 320 && r.metadata.pixelHeight == 240)
        #expect(r.message.contains("2.0 s") && r.message.contains("320×240"), "\(r.message)")
    }

    @Test("cropped and HEVC streams: the parameter sets' size", arguments: [("libx264", 322, 242), ("libx265", 330, 190)])
    func parameterSetSizes(encoder: String, width: Int, height: Int) async throws {
        let path = folder.url("\(encoder).mp4")
        do {
            try await MediaTools.ffmpeg(
                ["-f", "lavfi", "-i", "testsrc=size=\(width)x\(height):rate=10", "-t", "1", "-c:v", encoder, "-pix_fmt",
                 "yuv420p", "-tag:v", encoder == "libx265" ? "hvc1" : "avc1", path])
        } catch {
            // Debian's ffmpeg has both encoders; a build without one cannot make this stream.
            Issue.record("ffmpeg could not encode with \(encoder): \(error)")
            return
        }
        let m = try probe(path).metadata
        #expect(m.pixelWidth == width && m.pixelHeight == height)
    }
}

/// Rearranges the boxes of an MP4 whose `moov` comes after its `mdat`, for tests that need a layout FFmpeg does not
/// write.
enum BoxSurgery {
    struct Failure: Error {}

    static func size(_ bytes: [UInt8], _ at: Int) -> Int {
        Int(bytes[at]) << 24 | Int(bytes[at + 1]) << 16 | Int(bytes[at + 2]) << 8 | Int(bytes[at + 3])
    }

    static func setSize(_ bytes: inout [UInt8], _ at: Int, _ value: Int) {
        for k in 0..<4 { bytes[at + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
    }

    /// The child boxes of the box at `start` (offset, type) whose payload begins `skip` bytes after its header.
    static func children(_ bytes: [UInt8], of start: Int) -> [(offset: Int, type: String)] {
        var result: [(Int, String)] = []
        var i = start + 8
        let end = start + size(bytes, start)
        while i + 8 <= end {
            result.append((i, String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self)))
            i += max(8, size(bytes, i))
        }
        return result
    }

    /// Takes `moov/udta` out of `moov` and appends it to the first `trak`.
    static func moveUserDataIntoFirstTrack(_ bytes: [UInt8]) throws -> [UInt8] {
        var top = 0
        var moov: Int?
        while top + 8 <= bytes.count {
            if String(decoding: bytes[(top + 4)..<(top + 8)], as: UTF8.self) == "moov" { moov = top }
            top += size(bytes, top)
        }
        guard let moov else { throw Failure() }
        let kids = children(bytes, of: moov)
        guard let udta = kids.first(where: { $0.type == "udta" })?.offset,
            let trak = kids.first(where: { $0.type == "trak" })?.offset, trak < udta
        else { throw Failure() }
        let udtaBytes = Array(bytes[udta..<(udta + size(bytes, udta))])
        var out = bytes
        out.removeSubrange(udta..<(udta + udtaBytes.count))
        let trakEnd = trak + size(out, trak)
        out.insert(contentsOf: udtaBytes, at: trakEnd)
        setSize(&out, trak, size(out, trak) + udtaBytes.count)
        return out
    }
}
