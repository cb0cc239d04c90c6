import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

/// Files larger than 4 GB (sparse, so that the tests neither write nor keep gigabytes), and the data-loss issue's
/// case 11: large files must not starve small ones, and an unchanged incomplete upload is hashed once.
@Suite("large files: over 4 GB, head-of-line blocking, incomplete uploads", .serialized,
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"), ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct LargeFileTests {
    static func be32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
    static func be64(_ value: Int) -> [UInt8] { (0..<8).map { UInt8(truncatingIfNeeded: value >> (56 - 8 * $0)) } }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { be32(8 + payload.count) + Array(type.utf8) + payload }
    static func full(_ type: String, _ payload: [UInt8]) -> [UInt8] { box(type, [0, 0, 0, 0] + payload) }

    /// An H.264 MP4 whose `mdat` holds two samples of `sampleSize` bytes each (zeros): the header bytes, then the rest
    /// of the file as a hole. `seed` makes the header (and so the content) distinct.
    static func sparseMovie(at url: URL, sampleSize: Int, seed: Int) throws -> (header: [UInt8], size: Int) {
        let identity: [UInt8] = [0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x4000_0000].flatMap { be32($0) }
        func moov(dataStart: Int) -> [UInt8] {
            let mvhd = full(
                "mvhd", be32(seed) + be32(seed) + be32(600) + be32(1200) + be32(0x10000) + [1, 0] + Array(repeating: 0, count: 10)
                    + identity + Array(repeating: 0, count: 24) + be32(2))
            let tkhd = box(
                "tkhd", [0, 0, 0, 7] + be32(0) + be32(0) + be32(1) + be32(0) + be32(1200) + Array(repeating: 0, count: 16)
                    + identity + be32(1920 << 16) + be32(1080 << 16))
            let mdhd = full("mdhd", be32(0) + be32(0) + be32(600) + be32(1200) + [0x55, 0xC4, 0, 0])
            let hdlr = full("hdlr", be32(0) + Array("vide".utf8) + Array(repeating: 0, count: 12) + [0])
            let avcC = box("avcC", [1, 0x64, 0, 0x28, 0xFF, 0xE0])
            let entry = box(
                "avc1", Array(repeating: 0, count: 6) + [0, 1] + Array(repeating: 0, count: 16) + [0x07, 0x80, 0x04, 0x38]
                    + be32(0x48_0000) + be32(0x48_0000) + be32(0) + [0, 1] + Array(repeating: 0, count: 32) + [0, 0x18, 0xFF, 0xFF]
                    + avcC)
            let stsd = full("stsd", be32(1) + entry)
            let stts = full("stts", be32(1) + be32(2) + be32(600))
            let stsc = full("stsc", be32(1) + be32(1) + be32(1) + be32(1))
            let stsz = full("stsz", be32(0) + be32(2) + be32(sampleSize) + be32(sampleSize))
            let co64 = full("co64", be32(2) + be64(dataStart) + be64(dataStart + sampleSize))
            let stbl = box("stbl", stsd + stts + stsc + stsz + co64)
            let minf = box("minf", full("vmhd", Array(repeating: 0, count: 8)) + stbl)
            return box("moov", mvhd + box("trak", tkhd + box("mdia", mdhd + hdlr + minf)))
        }
        let ftyp = box("ftyp", Array("isom".utf8) + be32(0) + Array("isomavc1".utf8))
        let probe = moov(dataStart: 0)
        let dataStart = ftyp.count + probe.count + 16
        let header = ftyp + moov(dataStart: dataStart) + be32(1) + Array("mdat".utf8) + be64(16 + 2 * sampleSize)
        let size = header.count + 2 * sampleSize
        try Data(header).write(to: url)
        #expect(truncate(url.path, off_t(size)) == 0)
        return (header, size)
    }

    @Test("a movie over 4 GB: probed, hashed, copied (holes kept) and moved; verify --deep agrees")
    func overFourGigabytes() async throws {
        let sandbox = try Sandbox("over4gb")
        // Just over 4 GiB: every size and offset needs 64 bits.
        let sampleSize = 2_147_500_000
        let first = sandbox.root.appendingPathComponent("big-1.mp4")
        let (_, size) = try Self.sparseMovie(at: first, sampleSize: sampleSize, seed: 1)
        #expect(size > 4 << 30)
        let probe = try await sandbox.run(["probe", "--json", first.path])
        #expect(try probe.jsonLines().first?["outcome"] as? String == "video", "\(probe)")

        // import (copy): hashed and copied; the copy keeps the holes.
        let copied = try await sandbox.run(["import", first.path, "--json"], timeout: 300)
        #expect(copied.status == 0, "\(copied)")
        let asset = try #require((try copied.jsonObject()["items"] as? [[String: Any]])?.first?["id"] as? String)
        let shown = try await sandbox.run(["show", asset, "--json"]).jsonObject()
        #expect(shown["bytes"] as? Int == size)
        let stored = try #require(shown["path"] as? String)
        var info = stat()
        #expect(stat(stored, &info) == 0 && Int(info.st_size) == size)
        #expect(Int(info.st_blocks) * 512 < 64 << 20, "the copy is sparse too: \(info.st_blocks) blocks")
        #expect(FileManager.default.fileExists(atPath: first.path), "a copying import keeps the source")

        // import --move: renamed into place.
        let second = sandbox.root.appendingPathComponent("big-2.mp4")
        _ = try Self.sparseMovie(at: second, sampleSize: sampleSize, seed: 2)
        var before = stat()
        #expect(stat(second.path, &before) == 0)
        let moved = try await sandbox.run(["import", second.path, "--move", "--json"], timeout: 300)
        #expect(moved.status == 0, "\(moved)")
        let movedID = try #require((try moved.jsonObject()["items"] as? [[String: Any]])?.first?["id"] as? String)
        let movedPath = try #require(try await sandbox.run(["show", movedID, "--json"]).jsonObject()["path"] as? String)
        var after = stat()
        #expect(stat(movedPath, &after) == 0 && after.st_ino == before.st_ino, "renamed, not copied")
        #expect(!FileManager.default.fileExists(atPath: second.path))

        // verify --deep re-hashes both stored files with the catalog's own hasher, independently of the pipeline's.
        let verify = try await sandbox.run(["verify", "--deep"], timeout: 300)
        #expect(verify.status == 0, "\(verify)")
    }

    @Test(
        "a small file dropped while two 5 GB files are being hashed is stored within 3 s of settling",
        ProcessBudget.alone)
    func smallFilesAreNotStarved() async throws {
        let (sandbox, daemon) = try await watchingSandbox("head-of-line", settings: ["settleMilliseconds": 200, "workers": 2])
        let album = try sandbox.inboxAlbum("Big")
        let staging = try sandbox.staging("big")
        for index in 0..<2 {
            _ = try Self.sparseMovie(
                at: staging.appendingPathComponent("big-\(index).mp4"), sampleSize: 2_600_000_000, seed: 10 + index)
        }
        try sandbox.move(
            (0..<2).map { staging.appendingPathComponent("big-\($0).mp4") }, into: album)
        // Both are claimed and being read.
        #expect(await eventually(timeout: 20) { sandbox.stagedFiles.count == 2 }, "\(daemon.log)")
        await pause(500_000)
        let dropped = Date()
        try Data(TinyJPEG.bytes(90)).write(to: try sandbox.inboxAlbum("Small").appendingPathComponent("small.jpg"))
        var smallStored: Date?
        await eventually(timeout: 60) {
            if daemon.outcomes.contains(where: { $0["path"] as? String == "Small/small.jpg" }) { smallStored = Date() }
            return smallStored != nil
        }
        let latency = smallStored.map { $0.timeIntervalSince(dropped) } ?? .infinity
        let bigDone = daemon.outcomes.filter { ($0["path"] as? String)?.hasPrefix("Big/") == true }.count
        #expect(latency < 3.2, "stored \(latency) s after the drop (settle 0.2 s)")
        #expect(bigDone < 2, "the large files were still being hashed when the small one was stored")
        #expect(await eventually(timeout: 120) { daemon.outcomes.count == 3 }, "\(daemon.log.suffix(2000))")
        #expect(try await daemon.stop() == 0)
        #expect(try LibraryCheck(sandbox).assetCount == 3)
    }

    @Test("an incomplete upload is hashed once: at the end of its grace period, unchanged, it is rejected unread")
    func incompleteUploadHashedOnce() async throws {
        let (sandbox, daemon) = try await watchingSandbox("incomplete-once", settings: ["settleMilliseconds": 100, "incompleteGraceSeconds": 2])
        // A JPEG cut before its end marker, its scan data continued by a hole: 300 MB that probe as truncated.
        let staging = try sandbox.staging("cut")
        let cut = staging.appendingPathComponent("upload.jpg")
        try Data(TinyJPEG.bytes(91).dropLast(2)).write(to: cut)
        #expect(truncate(cut.path, off_t(300 << 20)) == 0)
        try sandbox.move([cut], into: try sandbox.inboxAlbum("Uploads"))
        let rejected = await daemon.waitForOutcomes(1, timeout: 60)
        #expect(rejected.first?["outcome"] as? String == "rejected" && rejected.first?["reason"] as? String == "corrupt")
        #expect(daemon.log.contains("incomplete; left in the inbox"), "judged incomplete first")
        #expect(daemon.log.contains("rejected without reading it again"), "\(daemon.log.suffix(2000))")
        #expect(try await daemon.stop() == 0)
    }
}
