import Foundation
import Testing

@testable import MediaProbe

@Suite("XMP sidecars: darktable and Lightroom styles, UTF-16, and hostile documents", .timeLimit(.minutes(3)))
struct XMPSidecarTests {
    /// darktable's style: everything as attributes of rdf:Description, keywords in a Bag.
    static let darktable = """
        <?xml version="1.0" encoding="UTF-8"?>
        <x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="XMP Core 4.4.0-Exiv2">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about=""
            xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:xmp="http://ns.adobe.com/xap/1.0/"
            xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:darktable="http://darktable.sf.net/"
            exif:DateTimeOriginal="2023-06-01T09:00:00.25"
            exif:GPSLatitude="48,51.5088N" exif:GPSLongitude="2,17.645E" exif:GPSAltitude="355/10"
            exif:GPSAltitudeRef="0" xmp:Rating="4" darktable:xmp_version="5">
           <dc:subject><rdf:Bag><rdf:li>Paris</rdf:li><rdf:li>night</rdf:li><rdf:li>Paris</rdf:li></rdf:Bag></dc:subject>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """

    /// Lightroom's style: other prefixes, properties as elements, language alternatives, a zone on the date.
    static let lightroom = """
        <x:xmpmeta xmlns:x="adobe:ns:meta/">
         <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
          <rdf:Description rdf:about="" xmlns:ps="http://ns.adobe.com/photoshop/1.0/"
              xmlns:e="http://ns.adobe.com/exif/1.0/" xmlns:d="http://purl.org/dc/elements/1.1/"
              xmlns:x2="http://ns.adobe.com/xap/1.0/">
           <ps:DateCreated>2023-06-01T09:00:00+09:00</ps:DateCreated>
           <e:GPSDateTime>2023-06-01T00:00:05Z</e:GPSDateTime>
           <x2:Rating>5</x2:Rating>
           <d:title><rdf:Alt><rdf:li xml:lang="fr">Tour</rdf:li><rdf:li xml:lang="x-default">Tower</rdf:li></rdf:Alt></d:title>
           <d:description><rdf:Alt><rdf:li xml:lang="x-default">From the river &amp; the bridge</rdf:li></rdf:Alt></d:description>
          </rdf:Description>
         </rdf:RDF>
        </x:xmpmeta>
        """

    @Test("darktable: attributes, a floating date with its fraction, degrees and minutes, a Bag of keywords")
    func darktableStyle() throws {
        let m = try XMPMetadata.parse(Array(Self.darktable.utf8))
        #expect(m.captureDate == Date(timeIntervalSince1970: 1_685_610_000.25))  // 09:00:00.25 read as UTC
        #expect(m.captureDateIsFloating && m.captureTimeZoneOffset == nil)
        let location = try #require(m.location)
        #expect(abs(location.latitude - 48.85848) < 1e-5 && abs(location.longitude - 2.294083) < 1e-5)
        #expect(location.altitude == 35.5)
        #expect(m.rating == 4)
        #expect(m.keywords == ["Paris", "night"], "in order, without duplicates")
        #expect(m.title == nil && m.caption == nil && m.gpsDate == nil)
    }

    @Test("Lightroom: elements under other prefixes, x-default first, entities in text, UTF-16 with a BOM")
    func lightroomStyle() throws {
        for bytes in [Array(Self.lightroom.utf8), [0xFF, 0xFE] + Self.utf16LE(Self.lightroom)] {
            let m = try XMPMetadata.parse(bytes)
            #expect(m.captureDate == Date(timeIntervalSince1970: 1_685_577_600))
            #expect(m.captureTimeZoneOffset == 32_400)
            #expect(m.gpsDate == Date(timeIntervalSince1970: 1_685_577_605))
            #expect(m.rating == 5 && m.title == "Tower" && m.caption == "From the river & the bridge")
        }
    }

    static func utf16LE(_ text: String) -> [UInt8] {
        text.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
    }

    @Test("hostile or broken documents are refused with a reason, quickly, and read nothing else")
    func hostile() throws {
        let xxe = """
            <?xml version="1.0"?><!DOCTYPE x [<!ENTITY secret SYSTEM "file:///etc/passwd">]>
            <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description
            xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>&secret;</dc:title></rdf:Description></rdf:RDF>
            """
        #expect(throws: XMPMetadata.ParseFailure.self) { try XMPMetadata.parse(Array(xxe.utf8)) }
        var laughs = "<?xml version=\"1.0\"?><!DOCTYPE l [<!ENTITY l0 \"ha\">"
        for level in 1...12 { laughs += "<!ENTITY l\(level) \"" + String(repeating: "&l\(level - 1);", count: 10) + "\">" }
        laughs += "]><rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">&l12;</rdf:RDF>"
        // Refused at the DTD, before any expansion (expanded, it would be 10^12 bytes: the time limit would catch it).
        #expect { try XMPMetadata.parse(Array(laughs.utf8)) } throws: { "\($0)".contains("DTD") || "\($0)".contains("well-formed") }
        #expect { try XMPMetadata.parse(Array("<rdf:RDF".utf8)) } throws: { "\($0)".contains("not well-formed") }
        #expect { try XMPMetadata.parse(Array("<html><body/></html>".utf8)) } throws: { "\($0)".contains("rdf:RDF") }
        #expect(throws: XMPMetadata.ParseFailure.self) { try XMPMetadata.parse([]) }
        #expect(throws: XMPMetadata.ParseFailure.self) { try XMPMetadata.parse([0xFF, 0xD8, 0xFF, 0xE0]) }
    }

    @Test("GPS coordinates and ratings in every written form")
    func values() {
        #expect(XMPMetadata.coordinate("51,30.5N") == 51 + 30.5 / 60)
        #expect(XMPMetadata.coordinate("0,30,36W") == -(30.0 / 60 + 36.0 / 3600))
        #expect(XMPMetadata.coordinate("-33.8688") == -33.8688)
        #expect(XMPMetadata.coordinate("north") == nil && XMPMetadata.coordinate("1,2,3,4N") == nil)
        #expect(XMPMetadata.rational("1234/10") == 123.4 && XMPMetadata.rational("1/0") == nil)
        let rated = { (value: String) in
            try? XMPMetadata.parse(Array("""
                <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description
                xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="\(value)"/></rdf:RDF>
                """.utf8)).rating
        }
        #expect(rated("5") == 5 && rated("-1") == -1 && rated("3.0") == 3 && rated("9") == nil && rated("x") == nil)
    }
}
