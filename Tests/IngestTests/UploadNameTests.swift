import Foundation
import Ingest
import Testing
import Uploads

@Suite("UploadName: what an uploaded file may be called", .timeLimit(.minutes(3)))
struct UploadNameTests {
    @Test(
        "refused: empty, dot names, hidden, slashes, NUL, encoded slash or NUL, control and bidirectional formatting characters, over 255 bytes",
        arguments: [
            "", ".", "..", ".hidden.jpg", "a/b.jpg", "a\u{0}b.jpg", "a%2Fb.jpg", "a%2fb.jpg", "a%00b.jpg", "a\nb.jpg",
            "tab\t.jpg", "del\u{7F}.jpg", "bad\u{FFFD}.jpg", String(repeating: "é", count: 128), "c1\u{85}.jpg",
            "invoice\u{202E}gpj.exe", "x\u{2066}y.jpg", "lrm\u{200E}.jpg", "alm\u{061C}.jpg",
        ])
    func refused(_ name: String) {
        guard case .failure(let problem) = UploadName.validated(name) else {
            Issue.record("'\(name)' was accepted")
            return
        }
        #expect(!problem.description.isEmpty)
    }

    @Test("accepted as given, or composed to NFC; 255 bytes is the limit")
    func accepted() throws {
        #expect(try UploadName.validated("IMG_0001.HEIC").get() == "IMG_0001.HEIC")
        #expect(try UploadName.validated("holiday photo (2).jpg").get() == "holiday photo (2).jpg")
        let composed = try UploadName.validated("Cafe\u{301}.jpg").get()
        #expect(Array(composed.utf8) == Array("Caf\u{E9}.jpg".utf8))
        let longest = String(repeating: "x", count: 251) + ".jpg"
        #expect(try UploadName.validated(longest).get() == longest)
        #expect(throws: UploadNameProblem.self) { try UploadName.validated(longest + "x").get() }
        #expect(try UploadName.validated("50%.jpg").get() == "50%.jpg", "a percent sign alone is a name's own")
    }
}

@Suite("AlbumTitle: what an album may be called from outside", .timeLimit(.minutes(3)))
struct AlbumTitleTests {
    @Test(
        "refused: blank, only dots and spaces, a slash, control or bidirectional formatting characters, over 255 bytes",
        arguments: [
            "", "   ", ".", "..", "...", ". .", "\u{3000}.\u{00A0}.", "2024/Paris", "tab\there", "bell\u{07}", "c1\u{85}", "report\u{202E}fdp.exe",
            "x\u{2067}y", String(repeating: "é", count: 128),
        ])
    func refused(_ title: String) {
        guard case .failure(let problem) = AlbumTitle.validated(title) else {
            Issue.record("'\(title.debugDescription)' was accepted")
            return
        }
        #expect(!problem.description.isEmpty)
    }

    @Test("accepted in NFC, without surrounding spaces; dots and emoji inside are a title's own")
    func accepted() throws {
        #expect(try AlbumTitle.validated("  Summer 2024 ").get() == "Summer 2024")
        #expect(try AlbumTitle.validated("Dup (2)").get() == "Dup (2)")
        #expect(try AlbumTitle.validated("\t... and more\t").get() == "... and more")
        #expect(try AlbumTitle.validated("v1.2 … 🌊").get() == "v1.2 … 🌊")
        #expect(Array(try AlbumTitle.validated("Cafe\u{301}").get().utf8) == Array("Caf\u{E9}".utf8))
    }
}
