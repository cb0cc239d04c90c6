import Foundation
import TestFixtures
import PhotodropSystem
import Testing

@testable import MediaProbe

@Suite("HEIF, AVIF and CR3 photos", .timeLimit(.minutes(3)))
struct HEIFTests {
    @Test("a HEIC photo: size from ispe, EXIF date and Live Photo identifier from the Exif item")
    func heic() throws {
        let exif = TIFFWriter.cameraExif(contentIdentifier: "4A5B6C7D-1111-2222-3333-444455556666")
        let r = try Probe.bytes(HEIFSpec(exif: exif).build(), name: "photo.mov")
        #expect(r.kind == .photo)
        #expect(r.mime == "image/heic" && r.fileExtension == "heic")
        #expect(r.message == "HEIC photo 4032×3024")
        let m = r.metadata
        #expect(m.pixelWidth == 4032 && m.pixelHeight == 3024)
        #expect(m.contentIdentifier == "4A5B6C7D-1111-2222-3333-444455556666")
        #expect(m.captureDateSource == .exif && m.captureTimeZoneOffset == 3600)
        #expect(m.make == "Apple")
        // HEIF shows pixels through irot/imir only: the EXIF orientation (6) is not applied again.
        #expect(m.orientation == 1)
        #expect(m.container == "heif")
    }

    @Test(
        "irot and imir become an EXIF orientation",
        arguments: [
            (Int?.none, Int?.none, 1), (3, nil, 6), (1, nil, 8), (2, nil, 3), (nil, 0, 2), (nil, 1, 4), (3, 0, 5),
            (1, 0, 7),
        ])
    func orientation(_ rotation: Int?, _ mirror: Int?, _ expected: Int) throws {
        let r = try Probe.memory(HEIFSpec(rotation: rotation, mirrorAxis: mirror).build())
        #expect(r.metadata.orientation == expected)
    }

    @Test("AVIF and mif1 brands: MIME type and extension from the content")
    func avifAndHEIF() throws {
        let avif = try Probe.memory(HEIFSpec(brand: "avif", compatible: ["avif", "mif1"], primaryType: "av01").build())
        #expect(avif.kind == .photo && avif.mime == "image/avif" && avif.fileExtension == "avif")
        #expect(avif.message == "AVIF photo 4032×3024")
        #expect(avif.metadata.container == "avif")
        let mif1 = try Probe.memory(HEIFSpec(brand: "mif1", compatible: ["mif1", "heic"]).build())
        #expect(mif1.kind == .photo && mif1.mime == "image/heif" && mif1.fileExtension == "heic")
    }

    @Test("a grid of HEVC tiles is a HEIC photo; its tiles must have data")
    func grid() throws {
        let r = try Probe.memory(HEIFSpec(gridTileType: "hvc1").build())
        #expect(r.kind == .photo, "\(r.message)")
        #expect(r.fileExtension == "heic")
    }

    @Test("item data past the end of the file is truncated; a motion photo's extra box must be complete too")
    func truncatedItems() throws {
        let r = try Probe.memory(HEIFSpec(extraExtentLength: 500).build())
        #expect(r.rejection == .corrupt && r.isTruncated)
        #expect(r.message.contains("the data of item 1 ('hvc1')"), "\(r.message)")
        let whole = HEIFSpec(trailingBoxes: [BMFF.box("mpvd", .zeros(400))]).build()
        #expect(try Probe.memory(whole).kind == .photo)
        let cut = try Probe.memory(Array(whole.dropLast(100)))
        #expect(cut.rejection == .corrupt && cut.isTruncated && cut.message.contains("'mpvd'"))
    }

    @Test("structural faults: no primary item, no location, unsupported codec")
    func broken() throws {
        let noItem = try Probe.memory(HEIFSpec(writePrimaryItem: false).build())
        #expect(noItem.rejection == .corrupt && !noItem.isTruncated)
        #expect(noItem.message.contains("no item information"))
        let noLocation = try Probe.memory(HEIFSpec(writePrimaryLocation: false).build())
        #expect(noLocation.rejection == .corrupt && noLocation.message.contains("no data location"))
        let vvc = try Probe.memory(HEIFSpec(primaryType: "vvc1").build())
        #expect(vvc.rejection == .unsupportedType && vvc.message.contains("'vvc1'"))
        let noMeta = try Probe.memory(BMFF.ftyp("heic", ["mif1", "heic"]) + BMFF.box("mdat", .zeros(100)))
        #expect(noMeta.rejection == .corrupt && noMeta.message.contains("no item information (meta box)"))
    }

    @Test("an image sequence without still items (msf1 with only a moov) is an animated photo")
    func sequenceOnly() throws {
        var frames = TrackSpec.video("hvc1")
        frames.handler = "pict"
        let r = try Probe.memory(MovieSpec(majorBrand: "msf1", compatible: ["msf1", "iso8"], tracks: [frames]).build())
        #expect(r.kind == .photo && r.metadata.isAnimated && r.metadata.frameCount == 3, "\(r.message)")
        #expect(r.mime == "image/heif-sequence" && r.fileExtension == "heic")
        let cut = try Probe.memory(Array(MovieSpec(majorBrand: "msf1", tracks: [frames]).build().dropLast(5)))
        #expect(cut.rejection == .corrupt && cut.isTruncated)
    }

    @Test("a CR3 (crx brand) is a RAW photo, never a video, though its image tracks are 'vide'")
    func canonRAW() throws {
        var track = TrackSpec.video("CRAW")
        track.width = 6000
        track.height = 4000
        let exif = TIFFWriter(ifd0: [
            .init(tag: 0x010F, value: .ascii("Canon")), .init(tag: 0x0112, value: .short([8])),
        ])
        let cmt1 = BMFF.box("CMT1", exif.build())
        var dateIFD = TIFFWriter()
        dateIFD.ifd0 = [.init(tag: 0x9003, value: .ascii("2021:01:02 03:04:05"))]
        let cmt2 = BMFF.box("CMT2", dateIFD.build())
        let canon = BMFF.box("uuid", CanonRAWProbe.canonUUID + cmt1 + cmt2)
        var bytes = MovieSpec(majorBrand: "crx ", compatible: ["crx ", "isom"], tracks: [track]).build()
        // Put Canon's uuid box into moov (after mvhd); moov grows, so shift the chunk offsets with it.
        bytes = insertIntoMoov(bytes, canon)
        let r = try Probe.memory(bytes)
        #expect(r.kind == .photo, "\(r.message)")
        #expect(r.mime == "image/x-canon-cr3" && r.fileExtension == "cr3")
        #expect(r.message == "camera RAW photo (Canon CR3) 6000×4000")
        #expect(r.metadata.make == "Canon" && r.metadata.orientation == 8)
        #expect(r.metadata.captureDate == Date(timeIntervalSince1970: 1_609_556_645))
        let cut = try Probe.memory(Array(bytes.dropLast(10)))
        #expect(cut.rejection == .corrupt && cut.isTruncated)
    }

    /// Inserts `box` as the first child of `moov`, fixing moov's size and the stco offsets that follow it.
    func insertIntoMoov(_ bytes: [UInt8], _ box: [UInt8]) -> [UInt8] {
        var out = bytes
        let moov = 24  // after the 24-byte ftyp of the fixture
        let size = Int(out[moov]) << 24 | Int(out[moov + 1]) << 16 | Int(out[moov + 2]) << 8 | Int(out[moov + 3])
        out.replaceSubrange(moov..<moov + 4, with: [UInt8].be32(size + box.count))
        out.insert(contentsOf: box, at: moov + 8)
        // Every stco entry moves by box.count.
        var i = 0
        while i + 4 <= out.count {
            if Array(out[i..<i + 4]) == [UInt8].fourCC("stco") {
                let count = Int(out[i + 8]) << 24 | Int(out[i + 9]) << 16 | Int(out[i + 10]) << 8 | Int(out[i + 11])
                for k in 0..<count {
                    let p = i + 12 + 4 * k
                    let v = Int(out[p]) << 24 | Int(out[p + 1]) << 16 | Int(out[p + 2]) << 8 | Int(out[p + 3])
                    out.replaceSubrange(p..<p + 4, with: [UInt8].be32(v + box.count))
                }
            }
            i += 1
        }
        return out
    }

    @Test(
        "the colour description (colr nclx) of the primary image: PQ and HLG are HDR; a file without a colr box has none",
        .requires(HDRPhoto.isAvailable, "heif-enc (apt-get install libheif-examples)"))
    func colourDescription() throws {
        let folder = try TemporaryFolder("heif-colour")
        for transfer in [16, 18] {
            let made = try HDRPhoto.make("t\(transfer)", width: 64, height: 32, transfer: transfer, in: folder)
            let fd = open(made.heic, O_RDONLY | O_CLOEXEC)
            defer { close(fd) }
            let colour = HEIFColourReader.colour(in: FileDescriptor(borrowing: fd))
            #expect(colour == ColourDescription(primaries: 9, transfer: transfer, matrix: 9, fullRange: true))
            #expect(colour?.isHighDynamicRange == true)
            // The file as heif-enc wrote it has no colr box.
            let plain = open(folder.url("t\(transfer)-plain.heic"), O_RDONLY | O_CLOEXEC)
            defer { close(plain) }
            #expect(HEIFColourReader.colour(in: FileDescriptor(borrowing: plain)) == nil)
        }
        let jpeg = folder.url("not.heic")
        try Data([0xFF, 0xD8, 0xFF, 0xD9]).write(to: URL(fileURLWithPath: jpeg))
        let fd = open(jpeg, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        #expect(HEIFColourReader.colour(in: FileDescriptor(borrowing: fd)) == nil)
    }
}
