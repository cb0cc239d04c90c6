import Foundation
import Testing
import TestFixtures

@testable import MediaProbe

/// What a photo says about itself in EXIF, XMP and IPTC, written by ExifTool into files Pillow, heif-enc and cjxl
/// made: read by namespace, merged field by field in the Metadata Working Group's order, and distrusted where it lies.
@Suite(
    "Embedded metadata: XMP by namespace in every container, IPTC, a photographer's fields, values that lie",
    .timeLimit(.minutes(5)),
    .requires(MediaTools.hasExifTool, "exiftool (apt-get install libimage-exiftool-perl)"),
    .requires(Pillow.isAvailable, "Pillow (pip install Pillow)"))
struct EmbeddedMetadataTests {
    let folder: TemporaryFolder

    init() async throws {
        folder = try TemporaryFolder("embedded")
        try await Pillow.make(
            """
            im = Image.new('RGB', (40, 30), (10, 200, 30))
            for name in ['base.jpg', 'base.png', 'base.webp', 'base.tif']: im.save(out(name))
            """, in: folder)
    }

    /// A copy of `base` (an extension: `jpg`, `png` …) named `name`, with ExifTool's `arguments` written into it.
    func file(_ name: String, from base: String = "jpg", _ arguments: [String]) async throws -> String {
        let path = folder.url(name)
        try FileManager.default.copyItem(atPath: folder.url("base." + base), toPath: path)
        if !arguments.isEmpty { try await MediaTools.exiftool(arguments, on: path) }
        return path
    }

    func probe(_ path: String) throws -> ProbeResult { try MediaProber().probe(path: path) }

    @Test("a Photoshop-era packet (xap: prefix) gives its zoned creation date, ahead of EXIF's modification date")
    func legacyPrefix() async throws {
        let packet = folder.url("legacy.xmp")
        try """
        <?xpacket begin='' id='W5M0MpCehiHzreSzNTczkc9d'?>
        <x:xmpmeta xmlns:x='adobe:ns:meta/'><rdf:RDF xmlns:rdf='http://www.w3.org/1999/02/22-rdf-syntax-ns#'>
         <rdf:Description rdf:about='' xmlns:xap='http://ns.adobe.com/xap/1.0/' xap:CreateDate='2004-05-14T17:47:09+02:00'/>
        </rdf:RDF></x:xmpmeta>
        <?xpacket end='w'?>
        """.write(toFile: packet, atomically: true, encoding: .utf8)
        let path = try await file("legacy.jpg", ["-xmp<=" + packet, "-exif:ModifyDate=2005:01:01 00:00:00"])
        #expect(try await MediaTools.exiftoolRead(["-ModifyDate"], from: path) == ["2005:01:01 00:00:00"])
        let m = try probe(path).metadata
        #expect(m.captureDateSource == .xmp)
        #expect(m.captureDate == ISO8601DateFormatter().date(from: "2004-05-14T15:47:09Z"))
        #expect(m.captureTimeZoneOffset == 7200 && !m.captureDateIsFloating)
    }

    @Test("a position only in XMP; a GPS time only in XMP with the position in EXIF")
    func xmpGPS() async throws {
        let position = try probe(
            try await file("xmp-position.jpg", ["-xmp:GPSLatitude=48.8566", "-xmp:GPSLongitude=-2.3522"])
        ).metadata
        #expect(position.location?.latitude == 48.8566)
        #expect(abs((position.location?.longitude ?? 0) + 2.3522) < 1e-9)

        let path = try await file(
            "xmp-gps-time.jpg",
            [
                "-exif:GPSLatitude=48.8566", "-exif:GPSLatitudeRef=N", "-exif:GPSLongitude=2.3522",
                "-exif:GPSLongitudeRef=E", "-xmp:GPSDateTime=2014:09:25 10:00:00Z",
            ])
        let m = try probe(path).metadata
        #expect(m.captureDateSource == .gps)
        #expect(m.captureDate == ISO8601DateFormatter().date(from: "2014-09-25T10:00:00Z"))
        #expect(m.location != nil)
    }

    @Test("an EXIF local time gets its zone from an XMP GPS time")
    func zoneFromXMPGPSTime() async throws {
        let path = try await file(
            "zone.jpg", ["-exif:DateTimeOriginal=2014:09:25 12:00:00", "-xmp:GPSDateTime=2014:09:25 10:00:05Z"])
        let m = try probe(path).metadata
        #expect(m.captureDateSource == .exif && m.captureTimeZoneOffset == 7200 && !m.captureDateIsFloating)
    }

    @Test("a malformed GPSDateStamp (2014:09:259) is no date: the file's other date is used")
    func malformedGPSDate() async throws {
        let path = try await file(
            "bad-stamp.jpg",
            ["-GPSDateStamp#=2014:09:259", "-exif:GPSTimeStamp=10:00:00", "-xmp:CreateDate=2014:10:01 08:00:00+02:00"])
        #expect(try await MediaTools.exiftoolRead(["-GPSDateStamp"], from: path) == ["2014:09:259"])
        let m = try probe(path).metadata
        #expect(m.gpsDate == nil)
        #expect(m.captureDateSource == .xmp)
        #expect(m.captureDate == ISO8601DateFormatter().date(from: "2014-10-01T06:00:00Z"))
        let alone = try probe(try await file("bad-stamp-alone.jpg", ["-GPSDateStamp#=2014:09:259", "-exif:GPSTimeStamp=10:00:00"]))
        #expect(alone.metadata.captureDate == nil, "not nine days off: \(String(describing: alone.metadata.captureDate))")
        let date = try probe(try await file("bad-original.jpg", ["-DateTimeOriginal#=2014:09:25 12:00:009"]))
        #expect(date.metadata.captureDate == nil)
    }

    @Test("a photographer's fields: exposure, lens, flash, artist, copyright, direction")
    func photographersFields() async throws {
        let path = try await file(
            "camera.jpg",
            [
                "-exif:Make=Canon", "-exif:Model=Canon EOS R5", "-exif:FNumber=2.8", "-exif:ExposureTime=1/250",
                "-exif:ISO=400", "-exif:FocalLength=35", "-exif:FocalLengthIn35mmFormat=52", "-exif:Flash#=25",
                "-exif:LensMake=Canon", "-exif:LensModel=RF35mm F1.8 MACRO IS STM", "-exif:Artist=Jane Doe",
                "-exif:Copyright=(c) 2024 Jane Doe", "-exif:GPSImgDirection=123.5", "-exif:GPSImgDirectionRef=T",
            ])
        let m = try probe(path).metadata
        #expect(m.make == "Canon" && m.model == "Canon EOS R5")
        #expect(m.fNumber == 2.8 && m.exposureTime == 0.004 && m.iso == 400)
        #expect(m.focalLength == 35 && m.focalLength35mm == 52)
        #expect(m.flashFired == true)
        #expect(m.lensMake == "Canon" && m.lensModel == "RF35mm F1.8 MACRO IS STM")
        #expect(m.artist == "Jane Doe" && m.copyright == "(c) 2024 Jane Doe")
        #expect(m.imageDirection == 123.5)

        let off = try probe(try await file("no-flash.jpg", ["-exif:Flash#=16"])).metadata
        #expect(off.flashFired == false)
        // XMP's exif namespace where EXIF is silent (a structure for the flash).
        let xmpOnly = try probe(
            try await file(
                "xmp-camera.jpg",
                ["-xmp:FNumber=4", "-xmp:ISO=1600", "-xmp:FlashFired=True", "-xmp:Lens=XF23mmF2 R WR", "-xmp:Make=FUJIFILM"])
        ).metadata
        #expect(xmpOnly.fNumber == 4 && xmpOnly.iso == 1600 && xmpOnly.flashFired == true)
        #expect(xmpOnly.lensModel == "XF23mmF2 R WR" && xmpOnly.make == "FUJIFILM")
    }

    @Test("title, description, keywords, rating: XMP first, then IPTC, then EXIF; a camera's placeholder is no caption")
    func descriptivePrecedence() async throws {
        let all = try probe(
            try await file(
                "all.jpg",
                [
                    "-xmp:Title=XMP title", "-iptc:ObjectName=IPTC title", "-iptc:Caption-Abstract=IPTC caption",
                    "-exif:ImageDescription=EXIF caption", "-iptc:Keywords=iptc one", "-iptc:Keywords=iptc two",
                    "-xmp:Rating=4", "-exif:Artist=EXIF artist", "-iptc:By-line=IPTC byline", "-xmp:Creator=XMP creator",
                    "-exif:Copyright=EXIF rights", "-iptc:CopyrightNotice=IPTC rights",
                ])
        ).metadata
        #expect(all.title == "XMP title")
        #expect(all.caption == "IPTC caption")
        #expect(all.keywords == ["iptc one", "iptc two"])
        #expect(all.rating == 4)
        #expect(all.artist == "XMP creator")
        #expect(all.copyright == "IPTC rights")

        let iptc = try probe(
            try await file("iptc.jpg", ["-iptc:ObjectName=Über IPTC", "-iptc:CodedCharacterSet=UTF8", "-iptc:Keywords=ünï"])
        ).metadata
        #expect(iptc.title == "Über IPTC" && iptc.keywords == ["ünï"])

        let placeholder = try probe(try await file("olympus.jpg", ["-exif:ImageDescription=OLYMPUS DIGITAL CAMERA"])).metadata
        #expect(placeholder.caption == nil)
        let words = try probe(try await file("words.jpg", ["-exif:ImageDescription=Grandma's birthday"])).metadata
        #expect(words.caption == "Grandma's birthday")
    }

    @Test("the XMP packet is read in PNG (iTXt), WebP, TIFF, HEIC and JPEG XL as in JPEG", arguments: ["png", "webp", "tif"])
    func xmpInOtherContainers(format: String) async throws {
        let path = try await file(
            "xmp.\(format)", from: format,
            [
                "-xmp:Title=A title", "-xmp:Description=A caption", "-xmp:Subject=one", "-xmp:Subject=two",
                "-xmp:Rating=3", "-xmp:CreateDate=2019:05:04 10:11:12+02:00",
            ])
        let m = try probe(path).metadata
        #expect(m.title == "A title" && m.caption == "A caption" && m.keywords == ["one", "two"] && m.rating == 3)
        #expect(m.captureDateSource == .xmp && m.captureTimeZoneOffset == 7200)
    }

    @Test(
        "HEIC's XMP item and JPEG XL's xml box",
        .requires(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-enc")
                && FileManager.default.isExecutableFile(atPath: "/usr/bin/cjxl"),
            "heif-enc and cjxl (apt-get install libheif-examples libjxl-tools)"))
    func xmpInHEICAndJXL() async throws {
        let heic = folder.url("x.heic")
        let heif = try await ProcessRunner.run(
            URL(fileURLWithPath: "/usr/bin/heif-enc"), ["-q", "50", "-o", heic, folder.url("base.png")])
        #expect(heif.status == 0, "\(heif)")
        try await MediaTools.exiftool(["-xmp:Title=HEIC title", "-xmp:Subject=heic"], on: heic)
        let h = try probe(heic)
        #expect(h.kind == .photo && h.metadata.title == "HEIC title" && h.metadata.keywords == ["heic"])

        let jxl = folder.url("x.jxl")
        let cjxl = try await ProcessRunner.run(URL(fileURLWithPath: "/usr/bin/cjxl"), [folder.url("base.png"), jxl])
        #expect(cjxl.status == 0, "\(cjxl)")
        try await MediaTools.exiftool(["-xmp:Title=JXL title"], on: jxl)
        let j = try probe(jxl)
        #expect(j.kind == .photo && j.metadata.title == "JXL title")
    }

    @Test("Extended XMP: what did not fit in the main packet is read from the further APP1 segments")
    func extendedXMP() async throws {
        let long = String(repeating: "a long caption ", count: 5000)
        let text = folder.url("long.txt")
        try long.write(toFile: text, atomically: true, encoding: .utf8)
        let path = try await file("extended.jpg", ["-xmp:Description<=" + text, "-xmp:Title=main title"])
        let m = try probe(path).metadata
        #expect(m.title == "main title")
        #expect(m.caption == long.trimmingCharacters(in: .whitespaces))
    }

    @Test("stray bytes before a marker are skipped as libjpeg skips them, and counted")
    func strayBytes() async throws {
        let base = try [UInt8](Data(contentsOf: URL(fileURLWithPath: try await file("stray-base.jpg", ["-xmp:Title=x"]))))
        // After the first segment (APP0), a spilled "?>" and some padding, then the next marker.
        let app0End = 2 + 2 + (Int(base[4]) << 8 | Int(base[5]))
        let spilled = Array(base[0..<app0End]) + Array("?>\n  ".utf8) + Array(base[app0End...])
        let path = folder.url("stray.jpg")
        try Data(spilled).write(to: URL(fileURLWithPath: path))
        let r = try probe(path)
        #expect(r.kind == .photo, "\(r.message)")
        #expect(r.message.contains("5 stray bytes"), "\(r.message)")
        #expect(r.metadata.title == "x" && r.metadata.pixelWidth == 40)
        // libjpeg agrees: Pillow (libjpeg-turbo) decodes it.
        try await Pillow.make("Image.open(out('stray.jpg')).load()", in: folder)
    }

    @Test("a PNG whose header declares more pixels than its data can hold, or none, is corrupt")
    func lyingPNG() async throws {
        let base = try [UInt8](Data(contentsOf: URL(fileURLWithPath: folder.url("base.png"))))
        func patched(width: UInt32, height: UInt32) -> [UInt8] {
            var bytes = base
            // IHDR's data starts at 16; its CRC covers the type and the data (bytes 12..<29).
            for (i, value) in [width, height].enumerated() {
                for k in 0..<4 { bytes[16 + 4 * i + k] = UInt8(truncatingIfNeeded: value >> (24 - 8 * k)) }
            }
            let crc = CRC32.checksum(Array(bytes[12..<29]))
            for k in 0..<4 { bytes[29 + k] = UInt8(truncatingIfNeeded: crc >> (24 - 8 * k)) }
            return bytes
        }
        for (width, height) in [(UInt32(Int32.max), 30), (40, 1 << 30), (0, 30), (20_000_000, 1)] {
            let r = try Probe.memory(patched(width: width, height: UInt32(height)))
            #expect(r.rejection == .corrupt && !r.isTruncated, "\(width) × \(height): \(r.message)")
            #expect(r.message.contains("IHDR"), "\(r.message)")
        }
        let honest = try Probe.memory(patched(width: 40, height: 30))
        #expect(honest.kind == .photo && honest.metadata.pixelWidth == 40)
    }
}
