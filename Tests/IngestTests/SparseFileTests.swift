import Foundation
import PhotoCatalog
import PhotodropSystem
import TestFixtures
import Testing

@testable import Ingest

/// Files with holes: hashed as the zeros they read as without reading the holes, and copied with their holes.
@Suite("sparse files", .timeLimit(.minutes(3)))
struct SparseFileTests {
    /// Data at the start, in the middle and at the end, holes between (extents of 1 MiB at 0, 20 MiB and 40 MiB − 10).
    func makeSparse(_ folder: TemporaryFolder, _ name: String) throws -> (path: String, dense: [UInt8]) {
        let path = folder.url(name)
        let size = 40 << 20
        var dense = [UInt8](repeating: 0, count: size)
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o644)
        #expect(fd >= 0)
        for (offset, count) in [(0, 1 << 20), (20 << 20, 300_000), (size - 10, 10)] {
            let chunk = HashingFileReaderTests.bytes(count: count, seed: UInt64(offset + 1))
            dense.replaceSubrange(offset..<(offset + count), with: chunk)
            _ = chunk.withUnsafeBytes { pwrite(fd, $0.baseAddress, count, off_t(offset)) }
        }
        close(fd)
        var info = stat()
        #expect(stat(path, &info) == 0 && Int(info.st_blocks) * 512 < size, "the file system keeps the holes")
        return (path, dense)
    }

    @Test("a sparse file hashes like its dense twin, through both hashers")
    func hashes() throws {
        let folder = try TemporaryFolder("sparse-hash")
        let (path, dense) = try makeSparse(folder, "sparse.bin")
        try Data(dense).write(to: URL(fileURLWithPath: folder.url("dense.bin")))
        let reader = try HashingFileReader()
        let sparseDigest = try reader.read(path: path)
        let denseDigest = try reader.read(path: folder.url("dense.bin"))
        #expect(sparseDigest.sha256 == denseDigest.sha256)
        #expect(sparseDigest.sha256.hex == sha256Hex(Data(dense)))
        #expect(sparseDigest.size == Int64(dense.count))
    }

    @Test("a copy keeps the bytes and the holes")
    func copies() throws {
        let folder = try TemporaryFolder("sparse-copy")
        let (path, dense) = try makeSparse(folder, "sparse.bin")
        let input = try FileSystem.open(path, .readOnly)
        let output = try FileSystem.open(folder.url("copy.bin"), [.create, .writeOnly, .exclusive], mode: 0o644)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        try FileCopy.copyContents(from: input, to: output, buffer: buffer, source: path, destination: "copy.bin")
        #expect(try Data(contentsOf: URL(fileURLWithPath: folder.url("copy.bin"))) == Data(dense))
        let info = try output.status()
        #expect(Int(info.allocatedBlocks) * 512 < dense.count / 2, "holes kept")
    }
}
