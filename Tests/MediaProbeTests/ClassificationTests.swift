import Foundation
import Testing

@testable import MediaProbe

@Suite("Classification by content: libmagic fallback, streams, empty and tiny files", .timeLimit(.minutes(3)))
struct ClassificationTests {
    @Test("zero bytes is empty (and counts as an upload that may resume)")
    func empty() throws {
        let r = try Probe.bytes([])
        #expect(r.rejection == .empty && r.isTruncated && r.kind == nil)
        #expect(r.message.contains("empty"))
    }

    @Test("text, PDF and ZIP are unsupportedType, named by libmagic")
    func documents() throws {
        let text = try Probe.bytes(
            .ascii("# README\n\nThis is not a photo, even if it is called photo.jpg.\n"), name: "photo.jpg")
        #expect(text.rejection == .unsupportedType && text.mime == "text/plain" && text.message.contains("text file"))
        let pdf = try Probe.bytes(.ascii("%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n%%EOF\n"))
        #expect(pdf.rejection == .unsupportedType && pdf.mime == "application/pdf")
        let zip = try Probe.bytes(
            [0x50, 0x4B, 0x03, 0x04, 20, 0, 0, 0, 0, 0] + .zeros(20) + .ascii("a.txt") + .zeros(40))
        #expect(zip.rejection == .unsupportedType && zip.message.contains("archive"), "\(zip.mime) \(zip.message)")
        let noise = try Probe.bytes((0..<600).map { UInt8(truncatingIfNeeded: $0 * 7919 + 13) })
        #expect(noise.rejection == .unsupportedType)
    }

    @Test("MPEG transport streams (188- and 192-byte packets) are unsupportedVideo with a remux hint")
    func transportStreams() throws {
        var ts: [UInt8] = []
        for _ in 0..<6 { ts += [0x47, 0x40, 0x00, 0x10] + .zeros(184) }
        let r = try Probe.bytes(ts)
        #expect(r.rejection == .unsupportedVideo && r.mime == "video/MP2T" && r.message.contains("-c copy"))
        var m2ts: [UInt8] = []
        for _ in 0..<6 { m2ts += .zeros(4) + [0x47, 0x40, 0x00, 0x10] + .zeros(184) }
        #expect(try Probe.memory(m2ts).rejection == .unsupportedVideo)
    }

    @Test("Matroska is unsupportedVideo (libmagic names it); MP3 behind ID3 is audio")
    func containers() throws {
        let ebml: [UInt8] =
            [
                0x1A, 0x45, 0xDF, 0xA3, 0x9F, 0x42, 0x86, 0x81, 0x01, 0x42, 0xF7, 0x81, 0x01, 0x42, 0xF2,
                0x81, 0x04, 0x42, 0xF3, 0x81, 0x08, 0x42, 0x82, 0x88,
            ] + .ascii("matroska") + [
                0x42, 0x87, 0x81, 0x04,
                0x42, 0x85, 0x81, 0x02,
            ] + .zeros(64)
        let mkv = try Probe.bytes(ebml)
        #expect(
            mkv.rejection == .unsupportedVideo && mkv.mime == "video/x-matroska" && mkv.message.contains("Matroska"))
        let id3 = try Probe.bytes(
            .ascii("ID3") + [4, 0, 0, 0, 0, 0, 10] + .zeros(10) + [0xFF, 0xFB, 0x90, 0x64] + .zeros(400))
        #expect(id3.rejection == .unsupportedType && id3.mime == "audio/mpeg")
    }

    @Test("a few bytes of a known signature are the start of an upload: truncated")
    func signaturePrefixes() throws {
        for bytes: [UInt8] in [
            [0xFF], [0xFF, 0xD8], [0x89, 0x50, 0x4E], .ascii("GIF8"), .ascii("RIFF"),
            .be32(24) + .ascii("ft"),
        ] {
            let r = try Probe.bytes(bytes)
            #expect(r.rejection == .corrupt && r.isTruncated, "\(bytes): \(r.message)")
        }
        #expect(try Probe.bytes(.ascii("Hi")).rejection == .unsupportedType)
    }

    @Test("libmagic answers map to reasons")
    func mimeMapping() {
        #expect(ContentClassifier.classify(mime: "video/webm").rejection == .unsupportedVideo)
        #expect(ContentClassifier.classify(mime: "video/x-flv").metadata.container == "flv")
        #expect(ContentClassifier.classify(mime: "audio/ogg").rejection == .unsupportedType)
        #expect(ContentClassifier.classify(mime: "image/x-icon").message.contains("convert it to JPEG"))
        let claimed = ContentClassifier.classify(mime: "image/jpeg")
        #expect(claimed.rejection == .corrupt && claimed.message.contains("not a readable JPEG"))
        #expect(ContentClassifier.classify(mime: "video/x-sgi-movie").rejection == .unsupportedVideo)
    }
}
