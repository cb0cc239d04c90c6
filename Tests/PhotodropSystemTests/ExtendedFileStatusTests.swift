import Foundation
@testable import PhotodropSystem
import TestFixtures
import Testing

@Suite("ExtendedFileStatus: statx", .timeLimit(.minutes(1)))
struct ExtendedFileStatusTests {
    @Test("statx agrees with stat on type, size, owner, links, inode and device, by path and by descriptor")
    func agreesWithStat() throws {
        let scratch = try TemporaryFolder("system")
        try scratch.write("a.jpg", String(repeating: "x", count: 12_345))
        #expect(link(scratch.url("a.jpg"), scratch.url("b.jpg")) == 0)
        let plain = try FileSystem.status(atPath: scratch.url("a.jpg"))
        let byPath = try ExtendedFileStatus.of(scratch.url("a.jpg"))
        let descriptor = try FileSystem.open(scratch.url("a.jpg"), .readOnly)
        let byDescriptor = try ExtendedFileStatus.of(descriptor)
        #expect(byPath == byDescriptor)
        #expect(byPath.isRegularFile && byPath.size == 12_345 && plain.size == 12_345)
        #expect(byPath.mode == plain.mode && byPath.linkCount == 2)
        #expect(byPath.owner == plain.owner && byPath.group == plain.group)
        #expect(byPath.node == plain.node, "device and inode, with the device number built as stat builds it")
        #expect(byPath.modification.seconds == plain.modification.seconds)
        #expect(byPath.modification.nanoseconds == plain.modification.nanoseconds)
        if let birth = byPath.birth {
            #expect(birth <= byPath.modification, "born no later than last written")
        }
    }

    @Test("a link is described itself unless followed; a missing file throws ENOENT naming the path")
    func linksAndErrors() throws {
        let scratch = try TemporaryFolder("system")
        try scratch.write("target.jpg", "data")
        #expect(symlink(scratch.url("target.jpg"), scratch.url("link.jpg")) == 0)
        let link = try ExtendedFileStatus.of(scratch.url("link.jpg"))
        #expect(link.mode & UInt32(S_IFMT) == UInt32(S_IFLNK))
        let followed = try ExtendedFileStatus.of(scratch.url("link.jpg"), followLinks: true)
        #expect(followed.isRegularFile && followed.size == 4)
        let error = #expect(throws: SystemError.self) { try ExtendedFileStatus.of(scratch.url("missing.jpg")) }
        #expect(error?.code == Errno(rawValue: ENOENT) && error?.description.contains("missing.jpg") == true, "\(String(describing: error))")
    }
}
