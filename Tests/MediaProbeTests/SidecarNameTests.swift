import Foundation
import Testing

@testable import MediaProbe

@Suite("Sidecar names: XMP and Google Takeout's real patterns; Takeout JSON", .timeLimit(.minutes(3)))
struct SidecarNameTests {
    static let longName = "Screenshot_20230101-120000_Some_Long_Application_Name.jpg"
    static let folder = [
        "IMG_0001.jpg", "IMG_0001(1).jpg", "IMG_0001.CR2", "IMG_0001-edited.jpg", longName,
        "PXL_20230101_120000123.jpg", "notes.json", "IMG_0001.CR2.xmp",
    ]

    /// `name` cut the way Takeout cuts: the whole name, `.json` included, at most 51 characters.
    static func takeoutCut(_ stemAndMarker: String) -> String { String(stemAndMarker.prefix(51 - 5)) + ".json" }

    @Test(
        "each sidecar finds its media file",
        arguments: [
            ("IMG_0001.CR2.xmp", "IMG_0001.CR2"), ("IMG_0001.xmp", "IMG_0001.jpg"), ("img_0001.cr2.XMP", "IMG_0001.CR2"),
            ("IMG_0001.jpg.json", "IMG_0001.jpg"), ("img_0001.JPG.json", "IMG_0001.jpg"),
            ("IMG_0001.jpg.supplemental-metadata.json", "IMG_0001.jpg"),
            ("IMG_0001.jpg(1).json", "IMG_0001(1).jpg"),
            ("IMG_0001.jpg.supplemental-metadata(1).json", "IMG_0001(1).jpg"),
            ("IMG_0001.jpg.supplemental-me.json", "IMG_0001.jpg"), ("IMG_0001.jpg.suppl.json", "IMG_0001.jpg"),
            ("IMG_0001.jpg.s.json", "IMG_0001.jpg"),
            ("PXL_20230101_120000123.jpg.supplemental-metada.json", "PXL_20230101_120000123.jpg"),
            (takeoutCut(longName + ".json"), longName),
            (takeoutCut(longName + ".supplemental-metadata"), longName),
            ("IMG_0001.json", "IMG_0001.jpg"),
        ])
    func matches(sidecar: String, media: String) {
        #expect(SidecarName.media(forSidecar: sidecar, among: Self.folder) == media, "\(sidecar)")
    }

    @Test("what is not a sidecar of anything here")
    func misses() {
        #expect(SidecarName.media(forSidecar: "IMG_0002.jpg.json", among: Self.folder) == nil)
        #expect(SidecarName.media(forSidecar: "metadata.json", among: Self.folder) == nil)
        #expect(SidecarName.kind(of: "metadata.json") == .takeoutAlbum)
        #expect(SidecarName.kind(of: "Metadata(1).json") == .takeoutAlbum)
        #expect(SidecarName.kind(of: "IMG_0001.jpg") == nil && SidecarName.kind(of: ".xmp") == nil)
        #expect(SidecarName.media(forSidecar: "IMG_0001.jpg", among: Self.folder) == nil)
        #expect(SidecarName.media(forSidecar: "other.xmp", among: Self.folder) == nil)
        // A sidecar never belongs to another sidecar.
        #expect(SidecarName.media(forSidecar: "notes.json.json", among: Self.folder) == nil)
    }

    @Test("Takeout JSON: taken time (a string), position (0,0 is none), favourite, description; the album's file")
    func takeout() throws {
        let photo = """
            {"title": "IMG_0001.jpg", "description": "Sunset", "photoTakenTime": {"timestamp": "1685577600",
             "formatted": "1 Jun 2023, 00:00:00 UTC"}, "geoData": {"latitude": 0.0, "longitude": 0.0, "altitude": 0.0},
             "geoDataExif": {"latitude": 48.8584, "longitude": 2.2945, "altitude": 35.0}, "favorited": true}
            """
        let m = try TakeoutMetadata.parse(Array(photo.utf8))
        #expect(m.photoTakenTime == Date(timeIntervalSince1970: 1_685_577_600))
        #expect(m.location == MediaMetadata.Location(latitude: 48.8584, longitude: 2.2945, altitude: 35))
        #expect(m.isFavorite == true && m.description == "Sunset" && m.title == "IMG_0001.jpg")
        let album = try TakeoutMetadata.parse(Array(#"{"title": "Paris 2023", "description": "The trip"}"#.utf8))
        #expect(album.title == "Paris 2023" && album.description == "The trip" && album.photoTakenTime == nil)
        #expect(throws: TakeoutMetadata.ParseFailure.self) { try TakeoutMetadata.parse(Array("[1, 2]".utf8)) }
        #expect(throws: TakeoutMetadata.ParseFailure.self) { try TakeoutMetadata.parse(Array("{".utf8)) }
        let empty = try TakeoutMetadata.parse(Array(#"{"photoTakenTime": {"timestamp": "0"}, "favorited": "yes"}"#.utf8))
        #expect(empty == TakeoutMetadata())
    }
}
