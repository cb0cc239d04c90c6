import Foundation
import TestFixtures
import PhotodropSystem
import Testing

@testable import MediaProbe

/// The largest JPEG a RAW file embeds: what photodrop shows of a RAW.
@Suite("Embedded RAW previews", .timeLimit(.minutes(2)))
struct EmbeddedPreviewTests {
    /// A JPEG's first bytes up to and including a baseline frame header of `width` × `height`, then filler.
    private func jpeg(width: Int, height: Int, filler: Int = 300) -> Data {
        Data([0xFF, 0xD8, 0xFF, 0xE0, 0x00, 0x04, 0x00, 0x00, 0xFF, 0xC0, 0x00, 0x11, 0x08])
            + Data([UInt8(height >> 8), UInt8(height & 0xFF), UInt8(width >> 8), UInt8(width & 0xFF)])
            + Data(repeating: 0x11, count: filler) + Data([0xFF, 0xD9])
    }

    private func locate(_ data: Data) throws -> EmbeddedPreviewLocator.Preview? {
        let folder = try TemporaryFolder("preview")
        let path = folder.url("raw")
        try data.write(to: URL(fileURLWithPath: path))
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(descriptor) }
        return EmbeddedPreviewLocator.largestJPEG(in: FileDescriptor(borrowing: descriptor))
    }

    @Test("TIFF-based RAW: the largest baseline JPEG of IFD0, sub-IFDs and JPEGInterchangeFormat; never lossless data")
    func tiffBased() throws {
        let large = jpeg(width: 1600, height: 1200)
        let small = jpeg(width: 160, height: 120)
        let raw = SyntheticRAW.tiff(preview: large, thumbnail: small, width: 1600, height: 1200, orientation: 6)
        let found = try #require(try locate(raw))
        #expect((found.width, found.height) == (1600, 1200))
        #expect(raw[Int(found.offset)..<Int(found.offset + found.length)] == large)
        // Only a thumbnail left: it is the largest there is.
        let onlyThumbnail = SyntheticRAW.tiff(
            preview: Data([0xFF, 0xD8, 0xFF, 0xD9]), thumbnail: small, width: 1600, height: 1200, orientation: 1)
        #expect(try locate(onlyThumbnail).map { ($0.width, $0.height) } ?? (0, 0) == (160, 120))
    }

    @Test("RAF's header and CR3's PRVW box; files with a pointer past their end, or without a JPEG, have none")
    func rafAndCR3() throws {
        let preview = jpeg(width: 1920, height: 1280)
        var raf = Data("FUJIFILMCCD-RAW 0201FF383501".utf8)
        raf += Data(repeating: 0, count: 84 - raf.count)
        let be32 = { (value: Int) in Data([UInt8(value >> 24 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]) }
        raf += be32(108) + be32(preview.count) + Data(repeating: 0, count: 16)
        raf += preview
        #expect(try locate(raf).map { ($0.offset, $0.width) } ?? (0, 0) == (108, 1920))
        var pastEnd = raf
        pastEnd.replaceSubrange(88..<92, with: be32(preview.count + 10))
        #expect(try locate(pastEnd) == nil)

        let uuid: [UInt8] = [0xEA, 0xF4, 0x2B, 0x5E, 0x1C, 0x98, 0x4B, 0x88, 0xB9, 0xFB, 0xB7, 0xDC, 0x40, 0x6E, 0x4D, 0x16]
        let prvw = be32(8 + 16 + preview.count) + Data("PRVW".utf8) + Data(repeating: 0, count: 16) + preview
        let box = be32(8 + 16 + 8 + prvw.count) + Data("uuid".utf8) + Data(uuid) + Data(repeating: 0, count: 8) + prvw
        let cr3 = be32(24) + Data("ftypcrx ".utf8) + Data(repeating: 0, count: 12) + box
        let found = try #require(try locate(cr3))
        #expect((found.width, found.height) == (1920, 1280))
        #expect(cr3[Int(found.offset)..<Int(found.offset) + preview.count] == preview)
        #expect(try locate(Data("II*\0".utf8) + Data(repeating: 0, count: 100)) == nil)
    }

    @Test("the corpus: RAF's embedded JPEG is found; the stripped DNG, CR2 and CR3 samples hold none")
    func corpus() throws {
        try skipUnless(Corpus.isAvailable, Corpus.skipNote)
        func located(_ name: String) -> EmbeddedPreviewLocator.Preview? {
            let descriptor = open(Corpus.path(name), O_RDONLY | O_CLOEXEC)
            defer { close(descriptor) }
            return EmbeddedPreviewLocator.largestJPEG(in: FileDescriptor(borrowing: descriptor))
        }
        #expect(located("FujiFilm.raf").map { ($0.width, $0.height) } ?? (0, 0) == (8, 8))
        // ExifTool's samples: their previews were cut down to a few bytes ("Dummy preview image").
        #expect(located("DNG.dng") == nil && located("CanonRaw.cr2") == nil && located("CanonRaw.cr3") == nil)
    }
}
