import Foundation
import Testing

@testable import MediaProbe

@Suite("PNG, GIF, WebP, BMP", .timeLimit(.minutes(3)))
struct ImageFormatTests {
    @Test("PNG: chunk walk to IEND, APNG frames, eXIf metadata")
    func png() throws {
        let r = try Probe.bytes(ImageFixtures.png(), name: "a.gif")
        #expect(
            r.kind == .photo && r.mime == "image/png" && r.fileExtension == "png" && r.message == "PNG photo 304×84")
        let apng = try Probe.memory(ImageFixtures.png(frames: 12))
        #expect(apng.metadata.isAnimated && apng.metadata.frameCount == 12 && apng.message.hasPrefix("animated PNG"))
        let exif = try Probe.memory(ImageFixtures.png(exif: TIFFWriter.cameraExif()))
        #expect(exif.metadata.orientation == 6 && exif.metadata.captureDateSource == .exif)
    }

    @Test("PNG: no IEND or a chunk past the end is truncated; a wrong first chunk or no IDAT is broken")
    func pngFaults() throws {
        let noEnd = try Probe.memory(ImageFixtures.png(withIEND: false))
        #expect(noEnd.rejection == .corrupt && noEnd.isTruncated && noEnd.message.contains("before the IEND chunk"))
        let cut = try Probe.memory(Array(ImageFixtures.png().dropLast(200)))
        #expect(cut.rejection == .corrupt && cut.isTruncated && cut.message.contains("'IDAT'"))
        let noIHDR = try Probe.memory(ImageFixtures.pngSignature + ImageFixtures.chunk("IEND", []))
        #expect(noIHDR.rejection == .corrupt && !noIHDR.isTruncated && noIHDR.message.contains("not IHDR"))
        let noData = try Probe.memory(ImageFixtures.png(idatChunks: 0))
        #expect(noData.rejection == .corrupt && noData.message.contains("no image data"))
    }

    @Test("GIF: still and animated (frames, duration); its own kind")
    func gif() throws {
        let still = try Probe.bytes(ImageFixtures.gif(), name: "still.jpg")
        #expect(still.kind == .gif && still.mime == "image/gif" && still.fileExtension == "gif")
        #expect(still.message == "GIF 8×8" && !still.metadata.isAnimated && still.metadata.frameCount == 1)
        let animated = try Probe.memory(ImageFixtures.gif(width: 128, height: 128, frames: 30, delay: 4))
        #expect(animated.kind == .gif && animated.metadata.isAnimated && animated.metadata.frameCount == 30)
        #expect(animated.metadata.duration == 1.2 && animated.message == "animated GIF 128×128, 30 frames")
    }

    @Test("GIF: no trailer is truncated; a stray byte where a block should start is broken")
    func gifFaults() throws {
        let noTrailer = try Probe.memory(ImageFixtures.gif(frames: 2, withTrailer: false))
        #expect(noTrailer.rejection == .corrupt && noTrailer.isTruncated && noTrailer.message.contains("trailer"))
        let stray = try Probe.memory(ImageFixtures.gif(withTrailer: false) + [0x99, 0x3B])
        #expect(stray.rejection == .corrupt && !stray.isTruncated && stray.message.contains("0x99"))
        let empty = try Probe.memory(ImageFixtures.gif(frames: 0))
        #expect(empty.rejection == .corrupt && empty.message.contains("no image"))
    }

    @Test("WebP: lossless still, animated with frames and EXIF, RIFF size past the end")
    func webp() throws {
        let still = try Probe.bytes(ImageFixtures.webp(chunks: [ImageFixtures.vp8l(width: 192, height: 192)]))
        #expect(still.kind == .photo && still.mime == "image/webp" && still.message == "WebP photo 192×192")
        let animated = try Probe.memory(
            ImageFixtures.animatedWebP(width: 64, height: 48, frames: 3, exif: TIFFWriter.cameraExif()))
        #expect(animated.kind == .photo && animated.metadata.isAnimated && animated.metadata.frameCount == 3)
        #expect(animated.metadata.pixelWidth == 64 && animated.metadata.pixelHeight == 48)
        #expect(animated.metadata.duration == 0.3 && animated.metadata.make == "Apple")
        let cut = try Probe.memory(
            ImageFixtures.webp(chunks: [ImageFixtures.vp8l(width: 8, height: 8)], declaredExtra: 50))
        #expect(cut.rejection == .corrupt && cut.isTruncated && cut.message.contains("RIFF header declares"))
        let noImage = try Probe.memory(ImageFixtures.webp(chunks: [ImageFixtures.riffChunk("ICCP", .zeros(10))]))
        #expect(noImage.rejection == .corrupt && !noImage.isTruncated)
    }

    @Test("BMP: complete, and pixel data cut short")
    func bmp() throws {
        let r = try Probe.bytes(ImageFixtures.bmp())
        #expect(r.kind == .photo && r.mime == "image/bmp" && r.message == "BMP photo 8×8")
        let cut = try Probe.memory(ImageFixtures.bmp(cutPixels: 10))
        #expect(cut.rejection == .corrupt && cut.isTruncated && cut.message.contains("pixel data"))
    }
}

@Suite("TIFF and camera RAW", .timeLimit(.minutes(3)))
struct TIFFTests {
    @Test("a TIFF: size, strips inside the file, metadata from its own directories")
    func tiff() throws {
        for littleEndian in [true, false] {
            let r = try Probe.bytes(ImageFixtures.tiff(littleEndian: littleEndian, make: "Scanner Co"))
            #expect(r.kind == .photo && r.mime == "image/tiff" && r.fileExtension == "tiff")
            #expect(r.message == "TIFF photo 16×8" && r.metadata.make == "Scanner Co")
        }
    }

    @Test("a strip past the end is truncated")
    func truncatedStrip() throws {
        let r = try Probe.memory(ImageFixtures.tiff(stripExtra: 10))
        #expect(r.rejection == .corrupt && r.isTruncated && r.message.contains("strip 1 of 1"), "\(r.message)")
        let directoryGone = try Probe.memory(Array(ImageFixtures.tiff().prefix(20)))
        #expect(directoryGone.rejection == .corrupt && directoryGone.isTruncated)
    }

    @Test("RAW flavours by content: DNG, CR2, ORF, RW2, NEF, ARW")
    func raw() throws {
        let dng = try Probe.memory(ImageFixtures.tiff(dng: true))
        #expect(dng.fileExtension == "dng" && dng.mime == "image/x-adobe-dng" && dng.message.contains("(DNG)"))
        let cr2 = try Probe.memory(ImageFixtures.tiff(headerExtra: [0x43, 0x52, 2, 0] + .le32(0)))
        #expect(cr2.kind == .photo && cr2.fileExtension == "cr2" && cr2.mime == "image/x-canon-cr2")
        let orf = try Probe.memory(ImageFixtures.tiff(magic: 0x4F52))
        #expect(orf.kind == .photo && orf.fileExtension == "orf")
        let rw2 = try Probe.memory(ImageFixtures.tiff(magic: 0x55))
        #expect(rw2.kind == .photo && rw2.fileExtension == "rw2")
        let nef = try Probe.memory(ImageFixtures.tiff(make: "NIKON CORPORATION", photometric: 32803))
        #expect(nef.fileExtension == "nef" && nef.message.contains("Nikon NEF"))
        let arw = try Probe.memory(ImageFixtures.tiff(make: "SONY", compression: 32767))
        #expect(arw.fileExtension == "arw")
        let nikonScan = try Probe.memory(ImageFixtures.tiff(make: "Nikon"))
        #expect(nikonScan.fileExtension == "tiff", "a Nikon TIFF without raw data is a TIFF")
    }

    @Test("strip tables that claim billions of entries are judged at once, never walked or allocated")
    func hugeStripTables() throws {
        for count in [0x7FFF_FFFF, 0xFFFF_FFFF, 1 << 21] {
            var w = TIFFWriter()
            w.trailer = .zeros(64)
            w.ifd0 = [
                .init(tag: 0x0100, value: .long([16])), .init(tag: 0x0101, value: .long([8])),
                .init(tag: 0x0111, value: .raw(type: 4, count: count, bytes: .le32(8))),
                .init(tag: 0x0117, value: .raw(type: 4, count: count, bytes: .le32(8))),
            ]
            // Walking or allocating the table would take minutes and gigabytes: the suite's time limit catches it.
            let r = try Probe.memory(w.build())
            #expect(r.rejection == .corrupt, "a table that runs past the end of the file: \(r.message)")
        }
    }

    @Test("BigTIFF is refused with a conversion hint")
    func bigTIFF() throws {
        let r = try Probe.memory(.ascii("II") + .le16(43) + .le16(8) + .le16(0) + .zeros(64))
        #expect(r.rejection == .unsupportedType && r.message.contains("BigTIFF"))
    }
}
