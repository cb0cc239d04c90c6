import Foundation
import Testing

@testable import MediaProbe

@Suite("Capture dates: the precedence list, file-name dates, zones from the GPS time", .timeLimit(.minutes(3)))
struct CaptureDatePrecedenceTests {
    /// 2023-01-01T12:00:00 read as UTC.
    static let noon: Int64 = 1_672_574_400

    @Test(
        "dates in file names, as floating local times",
        arguments: [
            ("IMG_20230101_120000.jpg", noon), ("VID_20230101_120000.mp4", noon),
            ("PXL_20230101_120000123.jpg", noon), ("PXL_20230101_120000123.MP.jpg", noon),
            ("20230101_120000.jpg", noon), ("Screenshot_20230101-120000.png", noon),
            ("Screenshot 2023-01-01 at 12.00.00.png", noon), ("WhatsApp Image 2023-01-01 at 12.00.00.jpeg", noon),
            ("WhatsApp Video 2023-01-01 at 12.00.00 (2).mp4", noon), ("2023-01-01 12-00-00.jpg", noon),
            ("IMG-20230101-WA0001.jpg", noon - 43_200), ("2023-01-01 Paris.jpg", noon - 43_200),
            ("IMG_20240229_000000.jpg", 1_709_164_800),
        ])
    func fileNames(name: String, expected: Int64) {
        #expect(FileNameDate.localSeconds(in: name) == expected, "\(name)")
    }

    @Test(
        "names that are not dates",
        arguments: [
            "IMG_0001.JPG", "DSC01234.ARW", "IMG_20231301_120000.jpg", "IMG_20230230_120000.jpg",
            "photo_120230101_120000.jpg", "18991231.jpg", "IMG_2023011.jpg", "", "12345678.jpg",
        ])
    func notDates(name: String) {
        #expect(FileNameDate.localSeconds(in: name) == nil, "\(name)")
    }

    @Test("a time that does not parse leaves the date alone; a wrong time is no time")
    func partialTimes() {
        #expect(FileNameDate.localSeconds(in: "IMG_20230101_250000.jpg") == Self.noon - 43_200)
        #expect(FileNameDate.localSeconds(in: "IMG_20230101_1200001.jpg") == Self.noon - 43_200, "7 digits")
    }

    @Test("every source has its place; a better one replaces a worse, never the other way round")
    func precedence() {
        let order = MediaMetadata.CaptureDateSource.allCases.map(\.rawValue)
        #expect(
            order == [
                "sidecarXMP", "exif", "quickTime", "xmp", "exifCreateDate", "iptc", "takeout", "movieHeader", "gps",
                "fileName", "exifModifyDate", "fileModificationDate",
            ])
        var m = MediaMetadata()
        m.offerCaptureDate(seconds: 100, offset: nil, isLocalTime: true, source: .iptc)
        m.offerCaptureDate(seconds: 200, offset: 3600, isLocalTime: true, source: .movieHeader)
        #expect(m.captureDateSource == .iptc && m.captureDate == Date(timeIntervalSince1970: 100))
        #expect(m.captureDateIsFloating && m.captureTimeZoneOffset == nil)
        m.offerCaptureDate(seconds: 300, offset: 7200, isLocalTime: true, source: .exif)
        #expect(m.captureDateSource == .exif && m.captureTimeZoneOffset == 7200 && !m.captureDateIsFloating)
        // A file name is taken only over EXIF's modification date and nothing.
        m.adoptFileNameDate("IMG_20230101_120000.jpg")
        #expect(m.captureDateSource == .exif)
        var modified = MediaMetadata()
        modified.offerCaptureDate(seconds: 5, offset: nil, isLocalTime: true, source: .exifModifyDate)
        modified.adoptFileNameDate("IMG_20230101_120000.jpg")
        #expect(modified.captureDateSource == .fileName && modified.captureDate == Date(timeIntervalSince1970: 1_672_574_400))
        #expect(modified.captureDateIsFloating)
    }

    @Test("a floating local time takes its zone from the file's GPS time, in either order, only near a quarter hour")
    func zoneFromGPS() {
        // Kathmandu, +05:45: local 12:00, GPS 06:15:30Z.
        var m = MediaMetadata()
        m.offerCaptureDate(seconds: Double(Self.noon), offset: nil, isLocalTime: true, source: .iptc)
        m.recordGPSDate(seconds: Double(Self.noon - 20_700 + 30))
        #expect(m.captureDateSource == .iptc && m.captureTimeZoneOffset == 20_700 && !m.captureDateIsFloating)
        #expect(m.captureDate == Date(timeIntervalSince1970: Double(Self.noon - 20_700)))
        var gpsFirst = MediaMetadata()
        gpsFirst.recordGPSDate(seconds: Double(Self.noon + 5 * 3600))
        gpsFirst.offerCaptureDate(seconds: Double(Self.noon), offset: nil, isLocalTime: true, source: .xmp)
        #expect(gpsFirst.captureTimeZoneOffset == -18_000 && gpsFirst.captureDateSource == .xmp)
        // A stale fix (7 minutes off a quarter hour) or more than 14 hours apart gives no zone.
        var stale = MediaMetadata()
        stale.recordGPSDate(seconds: Double(Self.noon - 3600 - 420))
        stale.offerCaptureDate(seconds: Double(Self.noon), offset: nil, isLocalTime: true, source: .exif)
        #expect(stale.captureDateIsFloating && stale.captureTimeZoneOffset == nil)
        var far = MediaMetadata()
        far.recordGPSDate(seconds: Double(Self.noon - 15 * 3600))
        far.offerCaptureDate(seconds: Double(Self.noon), offset: nil, isLocalTime: true, source: .exif)
        #expect(far.captureDateIsFloating)
        // An instant (GPS) is never floating, and a recorded offset is never replaced.
        #expect(!MediaMetadata(captureDate: Date(), captureDateSource: .gps).captureDateIsFloating)
        var recorded = MediaMetadata()
        recorded.offerCaptureDate(seconds: Double(Self.noon), offset: 3600, isLocalTime: true, source: .exif)
        recorded.recordGPSDate(seconds: Double(Self.noon - 7200))
        #expect(recorded.captureTimeZoneOffset == 3600)
        // The GPS time outranks a file name's date (the list's order), so a name never needs its zone.
        var named = MediaMetadata()
        named.adoptFileNameDate("IMG_20230101_120000.jpg")
        named.recordGPSDate(seconds: Double(Self.noon))
        #expect(named.captureDateSource == .gps && !named.captureDateIsFloating)
    }

    @Test("XMP exif:GPSDateTime is the GPS time of a JPEG without EXIF GPS")
    func xmpGPS() throws {
        let packet = ImageFixtures.xmpPacket(
            "<rdf:Description exif:GPSDateTime=\"2023-01-01T06:15:00Z\" exif:DateTimeOriginal=\"2023-01-01T12:00:00\"/>")
        let jpeg = ImageFixtures.jpeg(exif: nil)
        let segment = ImageFixtures.segment(0xE1, .ascii("http://ns.adobe.com/xap/1.0/") + [0] + .ascii(packet))
        let m = try Probe.memory(Array(jpeg[0..<2]) + segment + Array(jpeg[2...])).metadata
        #expect(m.gpsDate == Date(timeIntervalSince1970: Double(Self.noon - 20_700)))
        #expect(m.captureDateSource == .xmp && m.captureTimeZoneOffset == 20_700)
    }
}
