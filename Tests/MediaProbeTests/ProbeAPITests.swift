import Foundation
import PhotodropSystem
import Testing

@testable import MediaProbe

@Suite("The public API: errors, descriptors with prefixes, JSON", .timeLimit(.minutes(3)))
struct ProbeAPITests {
    @Test("I/O problems throw ProbeError naming the file; content problems never throw")
    func ioErrors() throws {
        let prober = try MediaProber()
        let missing = "/nonexistent/photodrop-\(UUID().uuidString).jpg"
        #expect {
            try prober.probe(path: missing)
        } throws: { error in
            guard let error = error as? ProbeError else { return false }
            return error.errno == Errno(rawValue: ENOENT) && error.path == missing && error.message.contains(missing)
                && error.message.contains("moved or deleted")
        }
        try Probe.withTemporaryDirectory { dir in
            #expect {
                try prober.probe(path: dir.path)
            } throws: { error in
                (error as? ProbeError)?.code == .notRegularFile
            }
            let fifo = dir.appendingPathComponent("fifo").path
            #expect(mkfifo(fifo, 0o600) == 0)
            #expect {
                try prober.probe(path: fifo)
            } throws: { error in
                (error as? ProbeError)?.code == .notRegularFile
            }
            if getuid() != 0 {
                let locked = dir.appendingPathComponent("locked.jpg")
                try Data(ImageFixtures.jpeg()).write(to: locked)
                chmod(locked.path, 0)
                #expect {
                    try prober.probe(path: locked.path)
                } throws: { error in
                    (error as? ProbeError)?.errno == Errno(rawValue: EACCES)
                }
            }
        }
        #expect(throws: ProbeError.self) {
            try prober.probe(fileDescriptor: FileDescriptor(borrowing: -1), fileSize: 100, prefix: nil)
        }
    }

    @Test("a missing magic database says which and what to install")
    func magicDatabase() {
        #expect {
            _ = try MagicCookie(databasePath: "/nonexistent/magic.mgc")
        } throws: { error in
            guard let error = error as? ProbeError else { return false }
            return error.code == .magicDatabase && error.message.contains("/nonexistent/magic.mgc")
                && error.message.contains("libmagic-mgc")
        }
    }

    @Test("probe(path:) follows a symbolic link a person named, and leaves the file's access time alone")
    func pathProbeFollowsLinksAndKeepsAccessTime() throws {
        let prober = try MediaProber()
        try Probe.withTemporaryDirectory { dir in
            let target = dir.appendingPathComponent("photo.jpg")
            try Data(ImageFixtures.jpeg(exif: TIFFWriter.cameraExif())).write(to: target)
            let link = dir.appendingPathComponent("link.jpg")
            #expect(symlink(target.path, link.path) == 0)
            var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: time(nil), tv_nsec: 0)]
            #expect(utimensat(AT_FDCWD, target.path, &times, 0) == 0)
            let direct = try prober.probe(path: target.path)
            #expect(try prober.probe(path: link.path) == direct)
            #expect(direct.isAccepted)
            var info = stat()
            #expect(stat(target.path, &info) == 0)
            // On a noatime mount this holds trivially; on relatime (the default) a plain read would have changed it.
            #expect(info.st_atim.tv_sec == 1_000_000_000, "probing stamped a new access time")
        }
    }

    @Test("probing a descriptor with the caller's prefix gives the path's result and reads only what is missing")
    func descriptorWithPrefix() throws {
        let files: [[UInt8]] = [
            ImageFixtures.jpeg(exif: TIFFWriter.cameraExif(), scanBytes: 200_000),
            MovieSpec(moovAtEnd: true).build(), HEIFSpec(exif: TIFFWriter.cameraExif()).build(), ImageFixtures.png(),
            ImageFixtures.gif(frames: 3), .ascii("just some text\n"),
        ]
        let prober = try MediaProber()
        try Probe.withTemporaryDirectory { dir in
            for (i, bytes) in files.enumerated() {
                let url = dir.appendingPathComponent("f\(i)")
                try Data(bytes).write(to: url)
                let byPath = try prober.probe(path: url.path)
                let fd = open(url.path, O_RDONLY)
                defer { close(fd) }
                for prefixLength in [0, 1, 100, 4096, 70_000, bytes.count] {
                    let length = min(prefixLength, bytes.count)
                    let (result, read, _) = try bytes.withUnsafeBytes { raw in
                        try prober.probe(
                            descriptor: FileDescriptor(borrowing: fd), size: Int64(bytes.count),
                            prefix: UnsafeRawBufferPointer(rebasing: raw[0..<length]), path: nil)
                    }
                    #expect(result == byPath, "file \(i), prefix \(length)")
                    if length == bytes.count { #expect(read == 0, "file \(i): a full prefix needs no reads") }
                    // The same bytes as a head array, longer than its valid part (as a reused buffer is).
                    let head = Array(bytes[0..<length]) + [UInt8](repeating: 0xEE, count: 300)
                    let inPlace = try prober.probe(
                        fileDescriptor: FileDescriptor(borrowing: fd), fileSize: Int64(bytes.count), head: head, headCount: length)
                    #expect(inPlace == byPath, "file \(i), head array of \(length)")
                }
                let whole = try prober.probe(
                    fileDescriptor: FileDescriptor(borrowing: -1), fileSize: Int64(bytes.count), head: bytes, headCount: bytes.count)
                #expect(whole == byPath, "file \(i): a head array with the whole file needs no descriptor")
                let noPrefix = try prober.probe(fileDescriptor: FileDescriptor(borrowing: fd), fileSize: Int64(bytes.count), prefix: nil)
                #expect(noPrefix == byPath)
                #expect(lseek(fd, 0, SEEK_CUR) == 0, "the descriptor's offset is left alone")
            }
        }
    }

    @Test("JSON: stable field names, outcome and reason codes, every metadata key present")
    func json() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys]
        let photo = try Probe.memory(ImageFixtures.jpeg(exif: TIFFWriter.cameraExif()))
        let object = try #require(
            try JSONSerialization.jsonObject(with: encoder.encode(photo)) as? [String: Any])
        #expect(object["outcome"] as? String == "photo")
        #expect(object["reason"] is NSNull)
        #expect(object["mime"] as? String == "image/jpeg")
        #expect(object["fileExtension"] as? String == "jpg")
        #expect(object["isTruncated"] as? Bool == false)
        #expect(object["captureDate"] as? String == "2023-05-09T11:41:46Z")
        #expect(object["captureDateSource"] as? String == "exif")
        #expect(object["pixelWidth"] as? Int == 640)
        #expect(object["duration"] is NSNull)
        let keys = Set(object.keys)
        #expect(
            keys == [
                "outcome", "reason", "message", "mime", "fileExtension", "isTruncated", "captureDate",
                "captureDateSource", "captureTimeZoneOffset", "captureDateIsFloating", "gpsDate", "pixelWidth", "pixelHeight", "orientation", "duration",
                "location", "contentIdentifier", "frameCount", "isAnimated", "isMotionPhoto", "container", "videoCodec", "audioCodec",
                "make", "model", "title", "caption", "keywords", "rating", "artist", "copyright", "fNumber",
                "exposureTime", "iso", "focalLength", "focalLength35mm", "flashFired", "lensMake", "lensModel",
                "imageDirection", "frameRate",
            ])
        let rejected = try Probe.memory(MovieSpec(tracks: [.video("hev1")]).build())
        let rejectedObject = try #require(
            try JSONSerialization.jsonObject(with: encoder.encode(rejected)) as? [String: Any])
        #expect(rejectedObject["outcome"] as? String == "rejected")
        #expect(rejectedObject["reason"] as? String == "unsupportedVideo")
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        #expect(try decoder.decode(ProbeResult.self, from: encoder.encode(rejected)) == rejected)
        var roundTrip = photo
        roundTrip.metadata.captureDate = Date(timeIntervalSince1970: 1_683_632_506)
        #expect(try decoder.decode(ProbeResult.self, from: encoder.encode(roundTrip)) == roundTrip)
    }

    @Test("one prober per thread: concurrent workers, each with its own prober, agree")
    func perThread() async throws {
        let bytes = ImageFixtures.jpeg(exif: TIFFWriter.cameraExif())
        let expected = try Probe.memory(bytes)
        let results = try await withThrowingTaskGroup(of: [ProbeResult].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    let prober = try MediaProber()
                    // The whole file is in the prefix: the descriptor is never read.
                    return try bytes.withUnsafeBytes { raw in
                        try (0..<50).map { _ in
                            try prober.probe(fileDescriptor: FileDescriptor(borrowing: -1), fileSize: Int64(bytes.count), prefix: raw)
                        }
                    }
                }
            }
            return try await group.reduce(into: []) { $0 += $1 }
        }
        #expect(results.count == 200)
        #expect(results.allSatisfy { $0 == expected })
    }
}
