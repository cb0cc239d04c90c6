import Glibc
import Foundation
import MediaProbe
import PhotodropSystem
import Synchronization
import TestFixtures
import Testing

@testable import Ingest

@Suite("HashingFileReader and FileLook", .timeLimit(.minutes(3)))
struct HashingFileReaderTests {
    /// Deterministic, incompressible-looking bytes.
    static func bytes(count: Int, seed: UInt64 = 42) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 33)
        }
    }

    func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test(arguments: [
        ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
        ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        (
            "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"
        ),
    ])
    func knownVectors(_ text: String, _ hex: String) throws {
        let folder = try TemporaryFolder("hash-vectors")
        let path = try folder.write("f", text)
        let digest = try HashingFileReader().read(path: path)
        #expect(digest.sha256.hex == hex)
        #expect(digest.size == Int64(text.utf8.count))
    }

    @Test("a digest keeps its 32 bytes in order: bytes, hex and ordering agree with the bytes")
    func digestBytesHexAndOrder() throws {
        let samples =
            (0..<50).map { Self.bytes(count: 32, seed: UInt64($0) + 7) } + [
                [UInt8](repeating: 0, count: 32), [UInt8](repeating: 0xFF, count: 32), Array(0..<32),
            ]
        let digests = try samples.map { try #require(SHA256Digest(bytes: $0)) }
        for (bytes, digest) in zip(samples, digests) {
            #expect(digest.bytes == bytes)
            #expect(digest.hex == bytes.map { String(format: "%02x", $0) }.joined())
        }
        let byBytes = samples.indices.sorted { samples[$0].lexicographicallyPrecedes(samples[$1]) }
        #expect(digests.indices.sorted { digests[$0] < digests[$1] } == byBytes)
        #expect(SHA256Digest(bytes: [UInt8](repeating: 1, count: 31)) == nil)
        #expect(SHA256Digest(bytes: [UInt8](repeating: 1, count: 33)) == nil)
    }

    @Test("the head is handed out as the reader's own array: valid bytes, shared storage, no copy per file")
    func headArrayIsSharedNotCopied() throws {
        let folder = try TemporaryFolder("hash-head")
        let reader = try HashingFileReader(chunkSize: 65_536, headCapacity: 4096)
        var storage: UnsafeRawPointer?
        for (index, size) in [10, 4096, 9000, 3].enumerated() {
            let content = Self.bytes(count: size, seed: UInt64(index))
            let path = folder.url("f\(index)")
            try write(content, to: path)
            _ = try reader.read(path: path)
            let head = reader.head
            #expect(head.count == min(size, 4096))
            #expect(Array(head.bytes[0..<head.count]) == Array(content.prefix(4096)))
            let base = head.bytes.withUnsafeBytes { UnsafeRawPointer($0.baseAddress) }
            if let storage { #expect(base == storage, "file \(index): the head array was copied") }
            storage = base
        }
    }

    @Test(arguments: [0, 1, 4095, 4096, 65_536, 65_537, 300_000, 2_500_000])
    func everySizeAgreesWithSha256sum(_ size: Int) throws {
        let folder = try TemporaryFolder("hash-sizes")
        let content = Self.bytes(count: size, seed: UInt64(size))
        let path = folder.url("f.bin")
        try write(content, to: path)
        // Small buffers, so that head, chunks and the boundaries between them are all exercised.
        let reader = try HashingFileReader(chunkSize: 65_536, headCapacity: 4096)
        let digest = try reader.read(path: path)
        #expect(digest.sha256.hex == (try Self.sha256sum(path)))
        #expect(digest.identity.size == Int64(size))
        let head = reader.head
        #expect(Array(head.bytes[0..<head.count]) == Array(content.prefix(4096)))
    }

    @Test func theReaderIsReusableAndTheHeadFollowsTheLastFile() throws {
        let folder = try TemporaryFolder("hash-reuse")
        let reader = try HashingFileReader()
        let first = try folder.write("a", "first file")
        let second = try folder.write("b", "2nd")
        let one = try reader.read(path: first)
        let two = try reader.read(path: second)
        #expect(one.sha256 != two.sha256)
        let head = reader.head
        #expect(Array(head.bytes[0..<head.count]) == Array("2nd".utf8))
        #expect(try reader.read(path: first) == one)
    }

    @Test func identityComesFromFstat() throws {
        let folder = try TemporaryFolder("hash-identity")
        let path = try folder.write("a", "12345")
        var info = stat()
        #expect(stat(path, &info) == 0)
        let digest = try HashingFileReader().read(path: path)
        #expect(digest.identity == FileIdentity(FileStatus(info)))
    }

    @Test func aFileGrowingDuringTheReadIsRefused() throws {
        let folder = try TemporaryFolder("hash-growing")
        let path = folder.url("growing.mov")
        try write(Self.bytes(count: 16 << 20), to: path)
        let reader = try HashingFileReader(chunkSize: 65_536, headCapacity: 4096)
        // A second thread appends a byte every 50 µs, as a slow upload does, for as long as the reads run; each read
        // of 16 MiB in 64 KiB chunks takes milliseconds, so appends land between its first and its last fstat.
        let appending = Atomic<Bool>(true)
        let appended = Atomic<Int>(0)
        let writer = Thread {
            let fd = open(path, O_WRONLY | O_APPEND)
            defer { close(fd) }
            var byte: UInt8 = 7
            while appending.load(ordering: .relaxed) {
                _ = Glibc.write(fd, &byte, 1)
                appended.add(1, ordering: .relaxed)
                usleep(50)
            }
        }
        writer.start()
        defer { appending.store(false, ordering: .relaxed) }
        while appended.load(ordering: .relaxed) == 0 { usleep(100) }
        var refusals = 0
        for _ in 0..<5 {
            do {
                _ = try reader.read(path: path)
            } catch IngestFailure.changedWhileReading(let reported) {
                #expect(reported == path)
                refusals += 1
            }
        }
        #expect(refusals > 0, "a file that grew during every read was never refused")
    }

    @Test func linksAndFoldersAreNotRead() throws {
        let folder = try TemporaryFolder("hash-links")
        let target = try folder.write("real.jpg", "x")
        #expect(symlink(target, folder.url("link.jpg")) == 0)
        let reader = try HashingFileReader()
        for path in [folder.url("link.jpg"), folder.path] {
            let error = #expect(throws: IngestFailure.self) { try reader.read(path: path) }
            guard case .notRegularFile(let reported) = error else {
                Issue.record("\(path): \(String(describing: error)), not notRegularFile")
                continue
            }
            #expect(reported == path)
        }
        let missing = #expect(throws: IngestFailure.self) { try reader.read(path: folder.url("missing.jpg")) }
        guard case .io(let cause) = missing else {
            Issue.record("missing file: \(String(describing: missing)), not an I/O error")
            return
        }
        #expect(cause.code == Errno(rawValue: ENOENT))
    }

    // MARK: FileLook

    @Test func aLookSeesAnOpenWriter() throws {
        let folder = try TemporaryFolder("look")
        let path = try folder.write("a.jpg", "data")
        guard case .file(let idle) = FileLook.take(atPath: path) else {
            Issue.record("expected a file")
            return
        }
        // As the owner (or with CAP_LEASE) the lease works: no writer. Some file systems (overlayfs, NFS) have no
        // leases; then a look says "unknown" and only the quiet period protects files.
        guard idle.writers != .unknown else {
            print("FileLook: leases are not available on \(folder.path); writer detection is not tested here")
            return
        }
        #expect(idle.writers == .none)
        let writer = open(path, O_WRONLY | O_APPEND)
        #expect(writer >= 0)
        guard case .file(let busy) = FileLook.take(atPath: path) else {
            Issue.record("expected a file")
            return
        }
        #expect(busy.writers == .open)
        #expect(busy.identity == idle.identity)
        close(writer)
        guard case .file(let closed) = FileLook.take(atPath: path) else { return }
        #expect(closed.writers == .none)
    }

    @Test func aLookNeverFollowsLinks() throws {
        let folder = try TemporaryFolder("look-links")
        let target = try folder.write("real.jpg", "x")
        #expect(symlink(target, folder.url("link.jpg")) == 0)
        #expect(FileLook.take(atPath: folder.url("link.jpg")) == .notRegularFile)
        #expect(FileLook.take(atPath: folder.url("nothing.jpg")) == .missing)
        #expect(FileLook.take(atPath: folder.path) == .notRegularFile)
        #expect(mkfifo(folder.url("fifo"), 0o644) == 0)
        #expect(FileLook.take(atPath: folder.url("fifo")) == .notRegularFile)
    }

    @Test func looksAreCheap() throws {
        let folder = try TemporaryFolder("look-speed")
        let path = try folder.write("a.jpg", "data")
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for _ in 0..<10_000 { _ = FileLook.take(atPath: path) }
        }
        print("FileLook: 10,000 looks (open, fstat, lease, close) in \(elapsed)")
    }

    @Test("64 MiB hashed as OpenSSL's command line hashes it")
    func agreesWithOpenSSL() throws {
        let folder = try TemporaryFolder("hash-openssl")
        let path = folder.url("big.bin")
        let chunk = Self.bytes(count: 1 << 20)
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try #require(FileHandle(forWritingAtPath: path))
        for index in 0..<64 {
            var block = chunk
            block[0] = UInt8(truncatingIfNeeded: index)
            handle.write(Data(block))
        }
        handle.closeFile()
        let ours = try HashingFileReader().read(path: path)
        #expect(ours.sha256.hex == (try Self.opensslDigest(path)))
    }

    /// Sets the access time of `path` to 2001 and its modification time to now: the state in which `relatime` (the
    /// default) and `strictatime` mounts record the next read.
    @discardableResult
    static func ageAccessTime(_ path: String) throws -> Int {
        var times = [timespec(tv_sec: 1_000_000_000, tv_nsec: 0), timespec(tv_sec: time(nil), tv_nsec: 0)]
        guard utimensat(AT_FDCWD, path, &times, 0) == 0 else { throw SystemError.current("utimensat", path: path) }
        return 1_000_000_000
    }

    static func accessTime(_ path: String) -> Int {
        var info = stat()
        return stat(path, &info) == 0 ? info.st_atim.tv_sec : -1
    }

    @Test("reading a file leaves its access time alone (O_NOATIME)")
    func readingLeavesTheAccessTimeAlone() throws {
        let folder = try TemporaryFolder("hash-atime")
        // A control read with a plain open(2): does this file system record reads at all?
        let control = try folder.write("control.bin", String(repeating: "c", count: 10_000))
        let aged = try Self.ageAccessTime(control)
        let fd = open(control, O_RDONLY)
        var byte: UInt8 = 0
        #expect(fd >= 0 && read(fd, &byte, 1) == 1)
        close(fd)
        try skipUnless(
            Self.accessTime(control) != aged,
            "\(folder.path) is on a file system mounted noatime; reads never change access times there")
        let path = try folder.write("photo.bin", String(repeating: "p", count: 100_000))
        try Self.ageAccessTime(path)
        _ = try HashingFileReader().read(path: path)
        #expect(Self.accessTime(path) == aged, "reading and hashing stamped a new access time")
        #expect(SourceFileOpener.triesNoAccessTime, "O_NOATIME was refused for a file this process owns")
    }

    static func sha256sum(_ path: String) throws -> String {
        try output("/usr/bin/sha256sum", [path]).split(separator: " ").first.map(String.init) ?? ""
    }

    static func opensslDigest(_ path: String) throws -> String {
        // "SHA2-256(path)= hex" (OpenSSL 3) or "SHA256(path)= hex".
        try output("/usr/bin/openssl", ["dgst", "-sha256", path]).split(separator: " ").last.map {
            $0.trimmingCharacters(in: .whitespacesAndNewlines)
        } ?? ""
    }

    static func output(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
