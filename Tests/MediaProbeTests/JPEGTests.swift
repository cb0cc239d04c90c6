import Foundation
import PhotodropSystem
import Testing

@testable import MediaProbe

@Suite("JPEG walk and EXIF", .timeLimit(.minutes(3)))
struct JPEGTests {
    @Test("a complete JPEG with camera EXIF: size, date with offset and sub-seconds, orientation, GPS, identifier")
    func complete() throws {
        for littleEndian in [true, false] {
            let exif = TIFFWriter.cameraExif(littleEndian: littleEndian, contentIdentifier: "ABCD-1234")
            let r = try Probe.bytes(ImageFixtures.jpeg(width: 4032, height: 3024, exif: exif, scanBytes: 72_000), name: "x.heic")
            #expect(r.kind == .photo && r.mime == "image/jpeg" && r.fileExtension == "jpg")
            #expect(r.message == "JPEG photo 4032×3024")
            let m = r.metadata
            #expect(m.pixelWidth == 4032 && m.pixelHeight == 3024)
            #expect(m.orientation == 6)
            #expect(m.captureDateSource == .exif)
            #expect(m.captureTimeZoneOffset == 3600)
            // 2023-05-09 12:41:46.250 at +01:00 is 11:41:46.250 UTC.
            #expect(m.captureDate == Date(timeIntervalSince1970: 1_683_632_506.25))
            #expect(m.make == "Apple" && m.model == "iPhone 14 Pro")
            #expect(m.contentIdentifier == "ABCD-1234")
            let location = try #require(m.location)
            #expect(abs(location.latitude - (51 + 32.0 / 60 + 1.2 / 3600)) < 1e-9)
            #expect(abs(location.longitude + (7.0 / 60 + 31.5 / 3600)) < 1e-9)
            #expect(location.altitude == 26.75)
        }
    }

    @Test("no end marker: truncated; data after the end marker (a motion photo's movie) is fine")
    func endMarker() throws {
        let cut = try Probe.memory(ImageFixtures.jpeg(withEOI: false))
        #expect(cut.rejection == .corrupt && cut.isTruncated)
        #expect(cut.message.contains("before the end-of-image marker"))
        let motion = try Probe.memory(ImageFixtures.jpeg(trailing: MovieSpec().build()))
        #expect(motion.kind == .photo, "\(motion.message)")
        let progressive = try Probe.memory(ImageFixtures.jpeg(progressive: true, trailing: .zeros(100)))
        #expect(progressive.kind == .photo, "\(progressive.message)")
        let progressiveCut = try Probe.memory(Array(ImageFixtures.jpeg(progressive: true).dropLast(700)))
        #expect(progressiveCut.rejection == .corrupt && progressiveCut.isTruncated)
    }

    @Test("cut inside a header segment: truncated; no frame header: broken")
    func header() throws {
        let exif = TIFFWriter.cameraExif()
        let whole = ImageFixtures.jpeg(exif: exif)
        let r = try Probe.memory(Array(whole.prefix(40)))
        #expect(r.rejection == .corrupt && r.isTruncated && r.message.contains("runs past the end"), "\(r.message)")
        let noSOF = try Probe.memory(ImageFixtures.jpeg(withSOF: false))
        #expect(noSOF.rejection == .corrupt && !noSOF.isTruncated && noSOF.message.contains("frame header"))
        // Bytes where a marker should be are skipped as libjpeg skips them; when no marker follows, the file is cut.
        let garbage = try Probe.memory([0xFF, 0xD8, 0xFF, 0xE0, 0, 16] + .zeros(14) + [0x12, 0x34] + .zeros(40))
        #expect(garbage.rejection == .corrupt && garbage.isTruncated, "\(garbage.message)")
    }

    @Test("a JPEG that ends with FFD9 is judged without reading its scan")
    func fastPath() throws {
        let bytes = ImageFixtures.jpeg(scanBytes: 3 << 20)
        try Probe.withTemporaryDirectory { dir in
            let url = dir.appendingPathComponent("big.jpg")
            try Data(bytes).write(to: url)
            let fd = open(url.path, O_RDONLY)
            defer { close(fd) }
            let (result, read, _) = try MediaProber().probe(
                descriptor: FileDescriptor(borrowing: fd), size: Int64(bytes.count), prefix: nil, path: nil)
            #expect(result.kind == .photo)
            #expect(read <= 64 * 1024 + 2, "read \(read) of \(bytes.count) bytes")
            // Without the end marker at the end (a motion photo), the scan is read to find it.
            let motion = bytes + .zeros(1000)
            try Data(motion).write(to: url)
            let fd2 = open(url.path, O_RDONLY)
            defer { close(fd2) }
            let (again, readAgain, _) = try MediaProber().probe(
                descriptor: FileDescriptor(borrowing: fd2), size: Int64(motion.count), prefix: nil, path: nil)
            #expect(again.kind == .photo)
            #expect(readAgain >= Int64(bytes.count) - 64 * 1024)
        }
    }
}

@Suite("EXIF: malformed metadata is dropped field by field, never a rejection", .timeLimit(.minutes(3)))
struct ExifTests {
    func probe(exif: [UInt8]) throws -> ProbeResult {
        let r = try Probe.memory(ImageFixtures.jpeg(exif: exif))
        #expect(r.kind == .photo, "malformed EXIF must not reject: \(r.message)")
        return r
    }

    @Test("a directory that points at itself, huge counts, offsets outside the block")
    func structuralNonsense() throws {
        // IFD0 at 8 with one entry whose ExifIFD pointer is 8 again (a loop), next IFD = 8 (another loop).
        let loop: [UInt8] =
            .ascii("II") + .le16(42) + .le32(8) + .le16(1) + .le16(0x8769) + .le16(4) + .le32(1)
            + .le32(8) + .le32(8)
        #expect(try probe(exif: loop).metadata.captureDate == nil)
        let hugeCount: [UInt8] = .ascii("MM") + .be16(42) + .be32(8) + .be16(0xFFFF) + .zeros(40)
        _ = try probe(exif: hugeCount)
        var w = TIFFWriter()
        w.ifd0 = [
            .init(tag: 0x010F, value: .raw(type: 2, count: 1_000_000, bytes: .le32(0x7FFF_FFF0))),
            .init(tag: 0x0112, value: .raw(type: 3, count: 1, bytes: .le16(9))),
        ]
        w.exif = [.init(tag: 0x9003, value: .raw(type: 2, count: 20, bytes: .le32(0xFFFF_FF00)))]
        let r = try probe(exif: w.build())
        #expect(r.metadata.make == nil && r.metadata.orientation == nil && r.metadata.captureDate == nil)
        _ = try probe(exif: .ascii("XX") + .zeros(20))
        _ = try probe(exif: .ascii("II"))
        _ = try probe(exif: [])
    }

    @Test("bad values: zero denominators, impossible dates and offsets, GPS out of range, wrong types")
    func badValues() throws {
        var w = TIFFWriter(littleEndian: false)
        w.ifd0 = [.init(tag: 0x0112, value: .ascii("six")), .init(tag: 0x010F, value: .short([1]))]
        w.exif = [
            .init(tag: 0x9003, value: .ascii("0000:00:00 00:00:00")),
            .init(tag: 0x9004, value: .ascii("2020:13:45 25:61:61")),
            .init(tag: 0x9011, value: .ascii("+99:99")),
        ]
        w.gps = [
            .init(tag: 1, value: .ascii("N")), .init(tag: 2, value: .rational([(91, 1), (0, 1), (0, 1)])),
            .init(tag: 3, value: .ascii("E")), .init(tag: 4, value: .rational([(10, 0), (0, 1), (0, 1)])),
        ]
        let r = try probe(exif: w.build())
        #expect(r.metadata.captureDate == nil)
        #expect(r.metadata.location == nil)
        #expect(r.metadata.orientation == nil && r.metadata.make == nil)
    }

    @Test("a date without an offset is read as UTC wall-clock time unless GPS time gives the zone")
    func offsets() throws {
        let noOffset = try probe(exif: TIFFWriter.cameraExif(offset: nil, subSec: nil, gps: false))
        #expect(noOffset.metadata.captureTimeZoneOffset == nil)
        #expect(noOffset.metadata.captureDate == Date(timeIntervalSince1970: 1_683_636_106))
        var w = TIFFWriter()
        w.exif = [.init(tag: 0x9003, value: .ascii("2023:05:09 14:41:46"))]
        w.gps = [
            .init(tag: 7, value: .rational([(12, 1), (41, 1), (40, 1)])),
            .init(tag: 0x1D, value: .ascii("2023:05:09")),
        ]
        let derived = try probe(exif: w.build())
        #expect(derived.metadata.captureTimeZoneOffset == 7200)
        #expect(derived.metadata.captureDate == Date(timeIntervalSince1970: 1_683_636_106))
        // DateTimeDigitized, then IFD0 DateTime, stand in for a missing DateTimeOriginal.
        var fallback = TIFFWriter()
        fallback.ifd0 = [.init(tag: 0x0132, value: .ascii("2001:02:03 04:05:06"))]
        #expect(try probe(exif: fallback.build()).metadata.captureDate == Date(timeIntervalSince1970: 981_173_106))
    }

    @Test("with no camera date at all, the GPS time stamp (UTC) is the capture date, source gps, zone unknown")
    func gpsOnlyDate() throws {
        var w = TIFFWriter()
        w.gps = [
            .init(tag: 7, value: .rational([(10, 1), (41, 1), (46, 1)])),
            .init(tag: 0x1D, value: .ascii("2023:05:09")),
        ]
        let gpsOnly = try probe(exif: w.build())
        #expect(gpsOnly.metadata.captureDate == Date(timeIntervalSince1970: 1_683_628_906))  // 2023-05-09 10:41:46Z
        #expect(gpsOnly.metadata.captureDateSource == .gps)
        #expect(gpsOnly.metadata.captureTimeZoneOffset == nil)
        // EXIF's modification date (IFD0 DateTime) ranks below the GPS time; its CreateDate above it. An impossible
        // GPS time gives no date.
        w.ifd0 = [.init(tag: 0x0132, value: .ascii("2001:02:03 04:05:06"))]
        #expect(try probe(exif: w.build()).metadata.captureDateSource == .gps)
        w.ifd0 = []
        w.exif = [.init(tag: 0x9004, value: .ascii("2023:05:09 12:41:40"))]
        let digitized = try probe(exif: w.build()).metadata
        #expect(digitized.captureDateSource == .exifCreateDate)
        // Its local time is 2 h ahead of the GPS time, within the two minutes a fix may lag: zone +02:00.
        #expect(digitized.captureTimeZoneOffset == 7200 && !digitized.captureDateIsFloating)
        #expect(digitized.captureDate == Date(timeIntervalSince1970: 1_683_628_900))
        var bad = TIFFWriter()
        bad.gps = [
            .init(tag: 7, value: .rational([(25, 1), (0, 1), (0, 1)])), .init(tag: 0x1D, value: .ascii("2023:05:09")),
        ]
        #expect(try probe(exif: bad.build()).metadata.captureDate == nil)
    }

    /// A JPEG with `segments` right after SOI, and EXIF when given.
    private func jpeg(_ segments: [[UInt8]], exif: [UInt8]? = nil) throws -> ProbeResult {
        let base = ImageFixtures.jpeg(exif: exif)
        return try Probe.memory(Array(base[0..<2]) + segments.flatMap { $0 } + Array(base[2...]))
    }

    /// An APP1 XMP segment whose packet holds `body` inside `rdf:RDF`, with the usual namespaces declared.
    private func xmp(_ body: String) -> [UInt8] {
        ImageFixtures.segment(0xE1, .ascii("http://ns.adobe.com/xap/1.0/") + [0] + .ascii(ImageFixtures.xmpPacket(body)))
    }

    private func iptc(date: String, time: String?) -> [UInt8] {
        func dataset(_ number: UInt8, _ value: String) -> [UInt8] { [0x1C, 2, number] + .be16(value.utf8.count) + .ascii(value) }
        let records = dataset(55, date) + (time.map { dataset(60, $0) } ?? [])
        let block: [UInt8] = .ascii("8BIM") + .be16(0x0404) + [0, 0] + .be32(records.count) + records
            + (records.count % 2 == 1 ? [0] : [])
        return ImageFixtures.segment(0xED, .ascii("Photoshop 3.0") + [0] + block)
    }

    @Test("without EXIF dates: an XMP packet's date (attribute or element, with or without seconds), then IPTC")
    func xmpAndIPTCDates() throws {
        let attribute = try jpeg([xmp("<rdf:Description photoshop:DateCreated=\"2023-06-01T09:00:00+09:00\"/>")])
        #expect(attribute.metadata.captureDateSource == .xmp)
        #expect(attribute.metadata.captureDate == Date(timeIntervalSince1970: 1_685_577_600))  // 00:00Z
        #expect(attribute.metadata.captureTimeZoneOffset == 32_400)
        let element = try jpeg([
            xmp("<rdf:Description><exif:DateTimeOriginal>2023-06-01T09:00-05:00</exif:DateTimeOriginal></rdf:Description>")
        ])
        #expect(element.metadata.captureDate == Date(timeIntervalSince1970: 1_685_628_000))  // 14:00Z
        #expect(element.metadata.captureTimeZoneOffset == -18_000)
        let dateOnly = try jpeg([xmp("<rdf:Description xmp:CreateDate='2023-06-01'/>")])
        #expect(dateOnly.metadata.captureDate == Date(timeIntervalSince1970: 1_685_577_600))
        #expect(dateOnly.metadata.captureTimeZoneOffset == nil)

        let news = try jpeg([iptc(date: "20230601", time: "090000+0200")])
        #expect(news.metadata.captureDateSource == .iptc)
        #expect(news.metadata.captureDate == Date(timeIntervalSince1970: 1_685_602_800))  // 07:00Z
        #expect(news.metadata.captureTimeZoneOffset == 7200)
        #expect(try jpeg([iptc(date: "20230601", time: nil)]).metadata.captureDate == Date(timeIntervalSince1970: 1_685_577_600))
        #expect(try jpeg([iptc(date: "2023-06", time: nil)]).metadata.captureDate == nil)

        // Precedence: EXIF's camera date, then XMP, then IPTC, then the GPS time.
        var gps = TIFFWriter()
        gps.gps = [.init(tag: 7, value: .rational([(1, 1), (2, 1), (3, 1)])), .init(tag: 0x1D, value: .ascii("2020:01:01"))]
        let both = [
            xmp("<rdf:Description photoshop:DateCreated=\"2021-01-01T00:00:00Z\"/>"), iptc(date: "20220101", time: nil),
        ]
        #expect(try jpeg(both, exif: gps.build()).metadata.captureDateSource == .xmp)
        #expect(try jpeg([both[1]], exif: gps.build()).metadata.captureDateSource == .iptc)
        #expect(try jpeg([], exif: gps.build()).metadata.captureDateSource == .gps)
        let camera = try jpeg(both, exif: TIFFWriter.cameraExif())
        #expect(camera.metadata.captureDateSource == .exif)
        // Garbage in XMP or IPTC is no date, never a rejection.
        let garbage = try jpeg([xmp("<x photoshop:DateCreated=\"yesterday\"/>"), iptc(date: "2023xx01", time: "99")])
        #expect(garbage.kind == .photo && garbage.metadata.captureDate == nil)
    }

    @Test("a maker note that is not Apple's, or is cut, yields no identifier")
    func makerNotes() {
        #expect(AppleMakerNote.contentIdentifier(TIFFWriter.appleMakerNote(contentIdentifier: "X-1")[...]) == "X-1")
        #expect(
            AppleMakerNote.contentIdentifier(
                Array(TIFFWriter.appleMakerNote(contentIdentifier: "LONG-IDENTIFIER").prefix(34))[...]) == nil)
        #expect(AppleMakerNote.contentIdentifier(([UInt8].ascii("Nikon") + .zeros(40))[...]) == nil)
        #expect(AppleMakerNote.contentIdentifier([][...]) == nil)
    }

    @Test("date and location text parsing")
    func parsing() throws {
        #expect(DateParsing.exifLocalSeconds("2023:05:09 12:41:46") == 1_683_636_106)
        #expect(DateParsing.exifLocalSeconds("2023-05-09T12:41:46") == 1_683_636_106)
        #expect(DateParsing.exifLocalSeconds("    :  :     :  :  ") == nil)
        #expect(DateParsing.offsetSeconds("-05:30") == -19800)
        #expect(DateParsing.offsetSeconds("+0100") == 3600)
        #expect(DateParsing.offsetSeconds("Z") == 0)
        #expect(DateParsing.offsetSeconds("+1:00") == nil)
        #expect(DateParsing.subSecondFraction("05") == 0.05)
        let iso = DateParsing.iso8601("2023-05-09T12:41:46.5-07:00")
        #expect(iso?.seconds == 1_683_661_306.5 && iso?.offset == -25200)
        let floating = try #require(DateParsing.iso8601("2023-05-09T12:41:46"))
        #expect(floating.offset == nil)
        #expect(DateParsing.iso8601("yesterday") == nil)
        #expect(QuickTimeMetadata.parseISO6709("+37.3318-122.0312/") == .init(latitude: 37.3318, longitude: -122.0312))
        #expect(QuickTimeMetadata.parseISO6709("+4807.038+01131.000/")?.latitude ?? 0 > 48.117)
        #expect(QuickTimeMetadata.parseISO6709("+99.0+10.0/") == nil)
        #expect(QuickTimeMetadata.parseISO6709("garbage") == nil)
    }
}
