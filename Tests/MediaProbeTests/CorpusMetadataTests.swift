import Foundation
import TestFixtures
import Testing

@testable import MediaProbe

/// Metadata read from real files of the corpus.
@Suite("Corpus metadata", .requires(Corpus.isAvailable, Corpus.skipNote), .timeLimit(.minutes(3)))
struct CorpusMetadataTests {
    let prober: MediaProber

    init() throws { prober = try MediaProber() }

    func metadata(_ file: String) throws -> MediaMetadata { try prober.probe(path: Corpus.path(file)).metadata }

    @Test("JPEG EXIF: GPS, date, camera, orientation")
    func jpeg() throws {
        let nikon = try metadata("DSCN0010.jpg")
        let location = try #require(nikon.location)
        #expect(abs(location.latitude - 43.467448) < 1e-5 && abs(location.longitude - 11.885127) < 1e-5)
        #expect(nikon.make == "NIKON" && nikon.captureDateSource == .exif)
        #expect(nikon.captureDate == ISO8601DateFormatter().date(from: "2008-10-22T16:28:39Z"))
        #expect(nikon.captureTimeZoneOffset == nil)
        #expect(try metadata("portrait_6.jpg").orientation == 6)
        let pixel = try metadata("pixel-motion-photo-shortened.jpg")
        #expect(pixel.make == "Google" && pixel.pixelWidth == 4032 && pixel.orientation == 6)
    }

    @Test("iPhone HEIC: Live Photo identifier from the Apple MakerNote, time zone, GPS")
    func heic() throws {
        let m = try metadata("IMG_5195.HEIC")
        #expect(m.contentIdentifier == "570F1469-09C7-4E50-9875-05F21D5BD166")
        #expect(m.captureTimeZoneOffset == -18000 && m.captureDateSource == .exif)
        let date = try #require(m.captureDate)
        let second = try #require(ISO8601DateFormatter().date(from: "2021-04-11T20:47:53Z"))
        #expect(date >= second && date < second + 1, "SubSecTimeOriginal adds a fraction")
        #expect(m.make == "Apple" && m.location != nil)
    }

    @Test("iPhone MOV: QuickTime creation date with offset, location, make and model, rotation")
    func mov() throws {
        let m = try metadata("dolbyVision-hdr.MOV")
        #expect(m.captureDateSource == .quickTime && m.captureTimeZoneOffset == 3600)
        #expect(m.captureDate == ISO8601DateFormatter().date(from: "2023-05-09T11:41:46Z"))
        #expect(m.location?.latitude == 51.5334 && m.location?.longitude == -0.1255)
        #expect(m.make == "Apple" && m.model == "iPhone 14 Pro" && m.videoCodec == "hvc1" && m.audioCodec == "mp4a")
        #expect(m.pixelWidth == 1280 && m.pixelHeight == 720 && m.frameCount == 5)
    }

    @Test("animation, fragments and RAW sizes")
    func others() throws {
        let gif = try metadata("circle.gif")
        #expect(gif.isAnimated && gif.frameCount == 30 && gif.duration == 2.1)
        let fragmented = try metadata("sample_fragmented.mp4")
        #expect(fragmented.frameCount == 30 && abs((fragmented.duration ?? 0) - 1.068) < 0.01)
        let cr3 = try metadata("CanonRaw.cr3")
        #expect(cr3.pixelWidth == 6000 && cr3.pixelHeight == 4000 && cr3.model == "Canon EOS M50")
        let cr2 = try metadata("CanonRaw.cr2")
        #expect(cr2.make == "Canon" && cr2.pixelWidth == 3456)
    }

    @Test(
        "each real file's date: its source, its zone or floating, and the local time the camera showed",
        arguments: [
            // EXIF DateTimeOriginal without OffsetTime: a floating local time.
            ("DSCN0010.jpg", "exif", nil, "2008-10-22T16:28:39"),
            ("canon-ixus.jpg", "exif", nil, "2001-06-09T15:17:32"),
            ("FujiFilm.raf", "exif", nil, "2007-05-22T13:58:30"),
            // EXIF with OffsetTimeOriginal.
            ("IMG_5195.HEIC", "exif", -18_000, "2021-04-11T15:47:53"),
            ("CanonRaw.cr3", "exif", 0, "2018-02-21T12:08:56"),
            // QuickTime's creationdate with its zone.
            ("dolbyVision-hdr.MOV", "quickTime", 3600, "2023-05-09T12:41:46"),
            // Only IFD0 DateTime (the modification date).
            ("DudleyLeavittUtah.tiff", "exifModifyDate", nil, "2009-09-26T01:11:52"),
        ] as [(String, String, Int?, String)])
    func captureDates(file: String, source: String, offset: Int?, local: String) throws {
        let m = try metadata(file)
        #expect(m.captureDateSource?.rawValue == source)
        #expect(m.captureTimeZoneOffset == offset)
        #expect(m.captureDateIsFloating == (offset == nil))
        let shown = try #require(m.captureDate).addingTimeInterval(Double(offset ?? 0))
        #expect(ISO8601DateFormatter().string(from: shown) == local + "Z")
    }

    @Test("movies without QuickTime metadata: the movie header's UTC instant, zone unknown, not floating")
    func movieHeaderDates() throws {
        let m = try metadata("sample.mp4")
        #expect(m.captureDateSource == .movieHeader && m.captureTimeZoneOffset == nil && !m.captureDateIsFloating)
        #expect(m.captureDate == ISO8601DateFormatter().date(from: "2016-05-31T17:01:35Z"))
    }

    @Test("motion photos stay photos and say so: Google's MP4 after the JPEG (and its gain map), Samsung's mpvd box")
    func motionPhotos() throws {
        #expect(try metadata("pixel-motion-photo-shortened.jpg").isMotionPhoto)
        #expect(try metadata("sample_MP.heic").isMotionPhoto)
        for still in ["canon-ixus.jpg", "IMG_5195.HEIC", "portrait_6.jpg"] { #expect(try !metadata(still).isMotionPhoto) }
        #expect(try prober.probe(path: Corpus.path("pixel-motion-photo-shortened.jpg")).kind == .photo)
    }
}
