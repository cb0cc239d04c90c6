import Testing

@testable import PhotoServer

@Suite("ServerPaths: no server path in a client's message", .timeLimit(.minutes(3)))
struct ServerPathsTests {
    @Test("absolute paths of the library, inbox and rejected folder, and library-relative ones, become their place's name")
    func scrubs() {
        let paths = ServerPaths(library: "/srv/photos/Library", inbox: "/srv/photos/Inbox", rejected: "/srv/photos/Rejected")
        #expect(
            paths.scrub("cannot open '/srv/photos/Library/originals/2024/My Photo.jpg': No such file")
                == "cannot open '(the library)': No such file")
        #expect(paths.scrub("stat(\"/srv/photos/Inbox/.photodrop\") failed") == "stat(\"(the inbox)\") failed")
        #expect(paths.scrub("moved to /srv/photos/Rejected/Trip/x.jpg.") == "moved to (the rejected folder).")
        #expect(paths.scrub("the picture derivatives/ab/cd.webp is gone") == "the picture (a picture of the library) is gone")
        #expect(paths.scrub("originals/2024/a.jpg missing") == "(a file of the library) missing")
        // API paths and words that only look alike stay.
        #expect(paths.scrub("upload to /api/upload/{album id}/{file name}") == "upload to /api/upload/{album id}/{file name}")
        #expect(paths.scrub("myoriginals/x") == "myoriginals/x")
    }
}
