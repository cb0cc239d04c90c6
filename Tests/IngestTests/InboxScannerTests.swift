import Foundation
import HeapStatistics
import PhotodropSystem
import TestFixtures
import Testing

@testable import Ingest
import PhotodropConfiguration

@Suite("InboxScanner", .timeLimit(.minutes(3)))
struct InboxScannerTests {
    func scan(_ scanner: InboxScanner) -> (files: [CandidateFile], problems: [ScanProblem]) {
        var files: [CandidateFile] = []
        var problems: [ScanProblem] = []
        for item in scanner {
            switch item {
            case .file(let file): files.append(file)
            case .problem(let problem): problems.append(problem)
            }
        }
        return (files.sorted { $0.relativePath < $1.relativePath }, problems)
    }

    @Test func firstLevelFoldersAreAlbumsDeeperFilesBelongToThem() throws {
        let inbox = try TemporaryFolder("scan-albums")
        try inbox.write("loose.jpg")
        try inbox.write("Trip/IMG_1.jpg")
        try inbox.write("Trip/Day 2/IMG_2.jpg")
        try inbox.write("Trip/Day 2/raw/IMG_3.dng")
        try inbox.write("Family/IMG_4.heic")
        try inbox.mkdir("Empty")
        let (files, problems) = scan(InboxScanner(root: inbox.path))
        #expect(problems.isEmpty)
        #expect(
            files.map(\.relativePath) == [
                "Family/IMG_4.heic", "Trip/Day 2/IMG_2.jpg", "Trip/Day 2/raw/IMG_3.dng", "Trip/IMG_1.jpg", "loose.jpg",
            ])
        #expect(files.map(\.album) == ["Family", "Trip", "Trip", "Trip", nil])
        #expect(files.allSatisfy { $0.path == inbox.path + "/" + $0.relativePath })
    }

    @Test func nfdAndNfcFolderNamesAreTheSameAlbum() throws {
        let inbox = try TemporaryFolder("scan-nfc")
        let nfc = "Caf\u{E9} S\u{E3}o Paulo"
        let nfd = "Cafe\u{301} Sa\u{303}o Paulo"
        #expect(Array(nfc.utf8) != Array(nfd.utf8))
        try inbox.write("\(nfd)/a.jpg")
        try inbox.write("\(nfc)/b.jpg")
        let (files, _) = scan(InboxScanner(root: inbox.path))
        #expect(files.count == 2)
        for file in files {
            #expect(Array(file.album!.utf8) == Array(nfc.utf8), "album bytes must be NFC")
        }
        // The path keeps the bytes on disk, so the file can be opened.
        #expect(files.allSatisfy { access($0.path, R_OK) == 0 })
        #expect(AlbumRule.firstLevelFolder.album(forRelativePath: "\(nfd)/x/y.jpg").map { Array($0.utf8) } == Array(nfc.utf8))
    }

    @Test("album keys by mode: first level, leaf, path; NFC, bytes for separators, none for files in the root")
    func albumModes() throws {
        let inbox = try TemporaryFolder("scan-modes")
        try inbox.write("2023/Paris/a.jpg")
        try inbox.write("2023/b.jpg")
        try inbox.write("top.jpg")
        try inbox.write("2023/\u{301}Nice/c.jpg")
        func keys(_ mode: AlbumMode) -> [String: String?] {
            Dictionary(uniqueKeysWithValues: scan(InboxScanner(root: inbox.path, albums: .folders(mode))).0.map {
                ($0.relativePath, $0.album)
            })
        }
        #expect(keys(.firstLevel) == ["2023/Paris/a.jpg": "2023", "2023/b.jpg": "2023", "top.jpg": nil, "2023/\u{301}Nice/c.jpg": "2023"])
        #expect(keys(.leaf) == ["2023/Paris/a.jpg": "Paris", "2023/b.jpg": "2023", "top.jpg": nil, "2023/\u{301}Nice/c.jpg": "\u{301}Nice"])
        #expect(keys(.path) == ["2023/Paris/a.jpg": "2023/Paris", "2023/b.jpg": "2023", "top.jpg": nil, "2023/\u{301}Nice/c.jpg": "2023/\u{301}Nice"])
        let nfd = "Cafe\u{301}"
        #expect(AlbumRule.folders(.path).album(forRelativePath: "\(nfd)/\(nfd)/x.jpg") == "Caf\u{E9}/Caf\u{E9}")
        #expect(AlbumRule.title(forAlbum: "2023/\u{301}Nice") == "\u{301}Nice")
        #expect(AlbumRule.folders(forAlbum: "a/b/c") == ["a", "a/b"] && AlbumRule.folders(forAlbum: "a").isEmpty)
        #expect(AlbumRule.fixed("X").album(forRelativePath: "a/b.jpg") == "X")
    }

    /// Path separators are bytes: a name that starts with a combining mark forms one Character with the "/" before
    /// it, which a Character-level search for "/" would not find.
    @Test func namesThatStartWithACombiningMarkSplitAtTheSlash() throws {
        let inbox = try TemporaryFolder("scan-combining")
        try inbox.mkdir("Trip")
        // Not TemporaryFolder.write: Foundation's own deletingLastPathComponent finds no "/" in this path either.
        let fd = open(inbox.url("Trip/\u{301}accent.jpg"), O_WRONLY | O_CREAT | O_EXCL, 0o644)
        #expect(fd >= 0)
        close(fd)
        let (files, problems) = scan(InboxScanner(root: inbox.path))
        #expect(problems.isEmpty)
        #expect(files.map(\.album) == ["Trip"])
        #expect(Path.lastComponent(of: "Trip/\u{301}accent.jpg") == "\u{301}accent.jpg")
        #expect(Path.lastComponent(of: "plain.jpg") == "plain.jpg")
        #expect(Path.lastComponent(of: "/a/b/") == "")
    }

    @Test func hiddenAndTemporaryNamesAreSkipped() throws {
        let inbox = try TemporaryFolder("scan-skip")
        try inbox.write("Trip/IMG_1.jpg")
        try inbox.write("Trip/.IMG_2.jpg.a1B2c3")
        try inbox.write("Trip/IMG_3.jpg.part")
        try inbox.write("Trip/IMG_4.jpg.crdownload")
        try inbox.write("Trip/IMG_5.tmp")
        try inbox.write("Trip/IMG_6.jpg~")
        try inbox.write(".Trash/IMG_7.jpg")
        try inbox.write("Trip/.thumbnails/IMG_8.jpg")
        try inbox.write("Trip/@eaDir/IMG_9.jpg")
        try inbox.write("Trip/IMG_10.xmp")
        let (files, problems) = scan(
            InboxScanner(root: inbox.path, ignore: IgnoreRules(patterns: ["@eaDir", "*.xmp"])))
        #expect(files.map(\.relativePath) == ["Trip/IMG_1.jpg"])
        #expect(problems.isEmpty)
    }

    @Test func linksAndSpecialFilesAreReportedNotFollowedAndBadNamesAreTakenLosslessly() throws {
        let inbox = try TemporaryFolder("scan-links")
        let outside = try TemporaryFolder("scan-links-target")
        let secret = try outside.write("secret.jpg")
        try inbox.mkdir("Trip")
        #expect(symlink(secret, inbox.url("Trip/link.jpg")) == 0)
        #expect(symlink(outside.path, inbox.url("LinkedFolder")) == 0)
        #expect(mkfifo(inbox.url("Trip/fifo"), 0o644) == 0)
        // A name with an invalid UTF-8 byte (Latin-1 'é'), made with the raw bytes.
        var raw = Array(inbox.url("Trip/caf").utf8CString.dropLast().map { UInt8(bitPattern: $0) })
        raw += [0xE9] + Array(".jpg".utf8) + [0]
        let fd = raw.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_CREAT | O_WRONLY, 0o644) }
        }
        #expect(fd >= 0)
        close(fd)
        let (files, problems) = scan(InboxScanner(root: inbox.path))
        // The Latin-1 name is taken: its stray byte is held as an escape that system calls turn back into 0xE9.
        #expect(files.map(\.relativePath) == ["Trip/caf\u{0}E9.jpg"])
        let location = try #require(files.first?.location)
        _ = try location.open(flags: .readOnly)
        #expect(FileNameEncoding.bytes(of: location.name) == Array("caf".utf8) + [0xE9] + Array(".jpg".utf8))
        let kinds = problems.map(\.kind)
        #expect(kinds.filter { $0 == .symbolicLink }.count == 2)
        #expect(kinds.contains(.notRegularFile))
        #expect(problems.allSatisfy { !$0.description.isEmpty })
    }

    @Test func aFileAsRootIsTheWholeScan() throws {
        let folder = try TemporaryFolder("scan-file")
        let file = try folder.write("photo.jpg")
        let (files, _) = scan(InboxScanner(root: file))
        #expect(files == [CandidateFile(path: file, relativePath: "photo.jpg", album: nil)])
        let (fixed, _) = scan(InboxScanner(root: file, albums: .fixed("Holiday")))
        #expect(fixed.first?.album == "Holiday")
    }

    @Test func aFixedAlbumOverridesTheFolderRule() throws {
        let folder = try TemporaryFolder("scan-fixed")
        try folder.write("A/one.jpg")
        try folder.write("two.jpg")
        let (files, _) = scan(InboxScanner(root: folder.path, albums: .fixed("Everything")))
        #expect(files.map(\.album) == ["Everything", "Everything"])
        let (none, _) = scan(InboxScanner(root: folder.path, albums: .fixed(nil)))
        #expect(none.map(\.album) == [nil, nil])
    }

    @Test func aMissingRootIsAProblemNotACrash() {
        let (files, problems) = scan(InboxScanner(root: "/nonexistent/photodrop-inbox"))
        #expect(files.isEmpty)
        guard case .unreadableFolder(let error)? = problems.first?.kind else {
            Issue.record("expected an unreadable-folder problem, got \(problems)")
            return
        }
        #expect(error.code == Errno(rawValue: ENOENT))
    }

    @Test func startingAtASubfolderKeepsTheAlbumOfTheRoot() throws {
        let inbox = try TemporaryFolder("scan-sub")
        try inbox.write("Trip/2024/a.jpg")
        try inbox.write("Trip/b.jpg")
        try inbox.write("Other/c.jpg")
        let (files, _) = scan(InboxScanner(root: inbox.path, startingAt: "Trip/2024"))
        #expect(
            files == [CandidateFile(path: inbox.url("Trip/2024/a.jpg"), relativePath: "Trip/2024/a.jpg", album: "Trip")]
        )
    }

    @Test func tenThousandFilesStreamAsFileManagerFindsThem() throws {
        let inbox = try TemporaryFolder("scan-10k")
        for album in 0..<10 {
            try inbox.mkdir("Album \(album)")
            for index in 0..<1000 {
                let path = inbox.url("Album \(album)/IMG_\(index).jpg")
                let fd = open(path, O_CREAT | O_WRONLY, 0o644)
                close(fd)
            }
        }
        let clock = ContinuousClock()
        var ours = 0
        let oursTime = clock.measure {
            for item in InboxScanner(root: inbox.path) {
                if case .file = item { ours += 1 }
            }
        }
        var theirs = 0
        let theirsTime = clock.measure {
            let enumerator = FileManager.default.enumerator(
                at: URL(fileURLWithPath: inbox.path), includingPropertiesForKeys: [.isRegularFileKey],
                options: [.skipsHiddenFiles])!
            for case let url as URL in enumerator {
                if (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true { theirs += 1 }
            }
        }
        #expect(ours == 10_000 && theirs == 10_000)
        let rate = Double(ours) / (Double(oursTime.components.attoseconds) / 1e18 + Double(oursTime.components.seconds))
        print("InboxScanner: 10,000 files in \(oursTime) (\(Int(rate)) files/s); FileManager.enumerator: \(theirsTime)")
    }

    @Test func aHundredThousandFilesInBoundedMemory() throws {
        let inbox = try TemporaryFolder("scan-100k")
        for album in 0..<100 {
            try inbox.mkdir("Album \(album)")
            for index in 0..<1000 {
                let fd = open(inbox.url("Album \(album)/IMG_\(index).jpg"), O_CREAT | O_WRONLY, 0o644)
                close(fd)
            }
        }
        // The heap in use (glibc's mallinfo2), not the resident set: other suites run in this process at the same
        // time and allocate and free as they go; their frees show in the heap, not in VmRSS. They can only add to a
        // measurement, never take from it: the smallest growth of three scans is judged.
        func heapKilobytes() -> Int { photodrop_test_heap_in_use() / 1024 }
        var growths: [Int] = []
        for _ in 0..<3 {
            let before = heapKilobytes()
            var peak = before
            var count = 0
            let elapsed = ContinuousClock().measure {
                for item in InboxScanner(root: inbox.path) {
                    if case .file = item { count += 1 }
                    if count % 5000 == 0 { peak = max(peak, heapKilobytes()) }
                }
            }
            #expect(count == 100_000)
            growths.append(peak - before)
            print("InboxScanner: 100,000 files in \(elapsed); the heap grew by at most \(peak - before) KB")
            if peak - before < 8_000 { break }
        }
        #expect(growths.min()! < 8_000, "heap growth per scan: \(growths) KB")
    }
}
