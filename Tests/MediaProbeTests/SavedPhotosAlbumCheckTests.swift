import Foundation
import TestFixtures
import Testing

@testable import MediaProbe

@Suite("SavedPhotosAlbumCheck: UIVideoAtPathIsCompatibleWithSavedPhotosAlbum, by content", .timeLimit(.minutes(1)))
struct SavedPhotosAlbumCheckTests {
    @Test("a playable movie is compatible; an hev1 movie, a photo, a PDF and a missing file are not")
    func videoCompatibility() throws {
        try skipUnless(Corpus.isAvailable, Corpus.skipNote)
        func path(_ name: String) -> String { Corpus.directory.appendingPathComponent(name).path }
        #expect(SavedPhotosAlbumCheck.isVideoCompatible(atPath: path("sample.mp4")))
        #expect(SavedPhotosAlbumCheck.isVideoCompatible(atPath: path("bt601.mov")))
        #expect(!SavedPhotosAlbumCheck.isVideoCompatible(atPath: path("h265_bframes.mp4")))
        #expect(!SavedPhotosAlbumCheck.isVideoCompatible(atPath: path("canon-ixus.jpg")))
        #expect(!SavedPhotosAlbumCheck.isVideoCompatible(atPath: path("PDF.pdf")))
        #expect(!SavedPhotosAlbumCheck.isVideoCompatible(atPath: path("no-such-file.mp4")))
        // A stricter policy (no HEVC at all) is honoured.
        var policy = VideoPolicy.appleDefault
        policy.videoCodecs = policy.videoCodecs.filter { !$0.hasPrefix("hvc") && $0 != "dvh1" }
        #expect(SavedPhotosAlbumCheck.isVideoCompatible(atPath: path("sample.mp4"), policy: policy))
        let check = try SavedPhotosAlbumCheck.check(atPath: path("h265_bframes.mp4"))
        #expect(check.rejection == .unsupportedVideo && check.message.contains("hvc1"), "\(check.message)")
        #expect(throws: ProbeError.self) { try SavedPhotosAlbumCheck.check(atPath: path("no-such-file.mp4")) }
    }
}
