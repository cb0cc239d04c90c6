import CLinux
import Foundation
@testable import PhotodropSystem
import TestFixtures
import Testing

/// Both ways of resolving names below a folder: `openat2` and the component walk it falls back to.
let resolutions: [Directory.Resolution] = [.automatic, .componentWalk]

/// `Directory.resolution` is process-wide: tests that set it run one after another.
@Suite("Directory: everything below an open folder, never through a link", .serialized, .timeLimit(.minutes(3)))
struct DirectoryTests {
    @Test("the kernel here has openat2 (the fallback is then forced by the tests that need it)")
    func kernelHasOpenat2() {
        #expect(Directory.kernelHasOpenat2, "Linux 5.6 or later without a seccomp filter is expected here")
    }

    @Test("files and folders are found below the root, links anywhere on the way are refused", arguments: resolutions)
    func linksAreRefused(_ resolution: Directory.Resolution) throws {
        Directory.resolution = resolution
        defer { Directory.resolution = .automatic }
        let scratch = try TemporaryFolder("system")
        try scratch.write("root/Trip/a.jpg", "inside")
        try scratch.write("outside/a.jpg", "secret")
        #expect(symlink(scratch.url("outside"), scratch.url("root/Link")) == 0)
        #expect(symlink(scratch.url("outside/a.jpg"), scratch.url("root/Trip/b.jpg")) == 0)
        let root = try Directory.open(atPath: scratch.url("root"))

        let fd = try root.openFile("Trip/a.jpg", flags: OpenFlags(rawValue: O_RDONLY))
        var bytes = [UInt8](repeating: 0, count: 16)
        let count = read(fd, &bytes, 16)
        close(fd)
        #expect(String(decoding: bytes[0..<count], as: UTF8.self) == "inside")

        #expect(throws: SystemError.self) { try root.openFile("Link/a.jpg", flags: OpenFlags(rawValue: O_RDONLY)) }
        do {
            _ = try root.openFile("Link/a.jpg", flags: OpenFlags(rawValue: O_RDONLY))
        } catch {
            #expect(error.code == Errno(rawValue: ELOOP) || error.code == Errno(rawValue: ENOTDIR), "\(error)")
        }
        #expect(throws: SystemError.self) { try root.openFile("Trip/b.jpg", flags: OpenFlags(rawValue: O_RDONLY)) }
        #expect(throws: SystemError.self) { try root.directory("Link") }
        for escape in ["../outside/a.jpg", "Trip/../../outside/a.jpg", "/etc/passwd", "Trip//a.jpg", "./Trip/a.jpg"] {
            #expect(throws: SystemError.self, "\(escape)") { try root.openFile(escape, flags: OpenFlags(rawValue: O_RDONLY)) }
        }
    }

    @Test("a folder exchanged for a link after it was opened: operations stay in the folder that was opened")
    func exchangedFolder() throws {
        let scratch = try TemporaryFolder("system")
        try scratch.write("root/A/x.jpg", "inside")
        try scratch.write("outside/x.jpg", "secret")
        #expect(symlink(scratch.url("outside"), scratch.url("root/S")) == 0)
        let root = try Directory.open(atPath: scratch.url("root"))
        let album = try root.directory("A")
        // A and the link S swap names: "A" now names the link to outside.
        let swapped = renameat2(
            AT_FDCWD, scratch.url("root/A"), AT_FDCWD, scratch.url("root/S"), RENAME_EXCHANGE)
        #expect(swapped == 0)
        #expect(throws: SystemError.self) { try root.openFile("A/x.jpg", flags: OpenFlags(rawValue: O_RDONLY)) }
        let staging = try root.directory("staging", creating: true)
        #expect(try album.rename("x.jpg", to: staging, as: "1"))
        #expect(FileManager.default.fileExists(atPath: scratch.url("outside/x.jpg")), "the outside file stays")
        #expect(try String(contentsOfFile: scratch.url("root/staging/1"), encoding: .utf8) == "inside")
    }

    @Test("making folders on the way never follows a link", arguments: resolutions)
    func creatingFolders(_ resolution: Directory.Resolution) throws {
        Directory.resolution = resolution
        defer { Directory.resolution = .automatic }
        let scratch = try TemporaryFolder("system")
        try FileManager.default.createDirectory(atPath: scratch.url("root"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.url("outside"), withIntermediateDirectories: true)
        #expect(symlink(scratch.url("outside"), scratch.url("root/Trip")) == 0)
        let root = try Directory.open(atPath: scratch.url("root"))
        #expect(throws: SystemError.self) { try root.directory("Trip/2024", creating: true) }
        #expect(!FileManager.default.fileExists(atPath: scratch.url("outside/2024")))
        let made = try root.directory("New/2024", creating: true, mode: 0o750)
        #expect(made.path == scratch.url("root/New/2024"))
        var info = stat()
        #expect(stat(scratch.url("root/New/2024"), &info) == 0 && info.st_mode & 0o777 == 0o750)
    }

    @Test("renames never replace; names that are not UTF-8 reach the file system as their bytes")
    func renamesAndNames() throws {
        let scratch = try TemporaryFolder("system")
        let root = try Directory.open(atPath: scratch.path)
        let latin1 = FileNameEncoding.string(fromBytes: Array("M".utf8) + [0xFC] + Array("nchen.jpg".utf8))
        #expect(!latin1.isValidUTF8 && latin1.text == "M\u{0}FCnchen.jpg")
        let fd = try root.openFile(latin1.text, flags: OpenFlags(rawValue: O_WRONLY | O_CREAT | O_EXCL), mode: 0o644)
        close(fd)
        let names = try FileManager.default.contentsOfDirectory(atPath: scratch.path)
        #expect(names.count == 1)
        let listed = try #require(try root.entries().next())
        #expect(listed.name == latin1.text && !listed.isValidUTF8)
        try scratch.write("taken.jpg", "x")
        #expect(try root.rename(latin1.text, to: root, as: "taken.jpg") == false, "an existing name is never replaced")
        #expect(try root.rename(latin1.text, to: root, as: "free.jpg"))
    }
}

@Suite("FileNameEncoding", .timeLimit(.minutes(3)))
struct FileNameEncodingTests {
    @Test(
        "bytes round-trip through the escaped form; valid names are their own form",
        arguments: [
            Array("plain.jpg".utf8), Array("café.jpg".utf8), [0xFF, 0xFE], Array("a".utf8) + [0xC3] + Array("b".utf8),
            [0xED, 0xA0, 0x80], [0xC0, 0xAF], Array("日本".utf8) + [0x80],
        ])
    func roundTrip(_ bytes: [UInt8]) {
        let (text, valid) = FileNameEncoding.string(fromBytes: bytes)
        #expect(FileNameEncoding.bytes(of: text) == bytes)
        #expect(valid == (String(validating: bytes, as: UTF8.self) != nil))
        if valid { #expect(text == String(decoding: bytes, as: UTF8.self)) }
    }

    @Test("people see stray bytes as \\xFC")
    func display() {
        let (text, _) = FileNameEncoding.string(fromBytes: Array("caf".utf8) + [0xE9])
        #expect(FileNameEncoding.displayText(text) == "caf\\xE9")
    }
}
