import Foundation
import TestFixtures
import Testing

@testable import MediaProbe

/// Writes bits least significant first, as JPEG XL stores them.
private struct BitWriter {
    var bytes: [UInt8] = [0xFF, 0x0A]
    var bitCount = 16

    mutating func write(_ value: Int, bits: Int) {
        for index in 0..<bits {
            if bitCount % 8 == 0 { bytes.append(0) }
            if (value >> index) & 1 == 1 { bytes[bitCount / 8] |= 1 << UInt8(bitCount % 8) }
            bitCount += 1
        }
    }
}

@Suite("JPEG XL: codestream and container", .timeLimit(.minutes(3)))
struct JPEGXLTests {
    @Test("a codestream's SizeHeader: explicit height, a 4:3 ratio, and the orientation from ImageMetadata")
    func explicitSizeAndOrientation() throws {
        var bits = BitWriter()
        bits.write(0, bits: 1)  // not small
        bits.write(0, bits: 2)  // height: 1 + u(9)
        bits.write(479, bits: 9)
        bits.write(3, bits: 3)  // ratio 4:3
        bits.write(0, bits: 1)  // ImageMetadata: not all_default
        bits.write(1, bits: 1)  // extra_fields
        bits.write(5, bits: 3)  // orientation 6
        let r = try Probe.memory(bits.bytes + .zeros(32))
        #expect(r.kind == .photo && r.mime == "image/jxl" && r.fileExtension == "jxl", "\(r.message)")
        #expect(r.metadata.pixelWidth == 640 && r.metadata.pixelHeight == 480)
        #expect(r.metadata.orientation == 6)
        #expect(r.metadata.displayedPixelSize.map { [$0.width, $0.height] } == [480, 640])
        #expect(r.message == "JPEG XL photo 640×480", "\(r.message)")
    }

    @Test("small sizes (multiples of 8), an explicit width, every height selector, default metadata")
    func smallAndLargeSizes() throws {
        var small = BitWriter()
        small.write(1, bits: 1)  // small
        small.write(7, bits: 5)  // height 64
        small.write(0, bits: 3)  // explicit width
        small.write(15, bits: 5)  // width 128
        small.write(1, bits: 1)  // all_default
        #expect(JPEGXLProbe.CodestreamHeader(small.bytes) == .init(width: 128, height: 64, orientation: 1))
        for (selector, width, value) in [(1, 13, 5000), (2, 18, 100_000), (3, 30, 1_000_000)] {
            var big = BitWriter()
            big.write(0, bits: 1)
            big.write(selector, bits: 2)
            big.write(value - 1, bits: width)
            big.write(7, bits: 3)  // 2:1
            big.write(1, bits: 1)
            #expect(JPEGXLProbe.CodestreamHeader(big.bytes) == .init(width: value * 2, height: value, orientation: 1))
        }
    }

    @Test("a codestream cut inside its size header is truncated; a container without a codestream is corrupt")
    func cutAndEmpty() throws {
        let cut = try Probe.memory([0xFF, 0x0A, 0x00])
        #expect(cut.rejection == .corrupt && cut.isTruncated, "\(cut.message)")
        let signature = JPEGXLProbe.containerSignature
        let ftyp: [UInt8] = .be32(20) + .ascii("ftypjxl ") + .be32(0) + .ascii("jxl ")
        let empty = try Probe.memory(signature + ftyp)
        #expect(empty.rejection == .corrupt && !empty.isTruncated, "\(empty.message)")
        #expect(empty.message.contains("there is no codestream"), "\(empty.message)")
        let overrun = try Probe.memory(signature + ftyp + .be32(4000) + .ascii("jxlc") + [0xFF, 0x0A])
        #expect(overrun.isTruncated, "\(overrun.message)")
    }

    @Test("real files from cjxl: a PNG becomes a codestream, a JPEG a container keeping its EXIF")
    func realFiles() throws {
        try skipUnless(Corpus.isAvailable, Corpus.skipNote)
        try skipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/cjxl"), "cjxl is not installed (libjxl-tools)")
        let folder = try TemporaryFolder("jxl")
        for (name, container) in [("media3test.png", false), ("canon-ixus.jpg", true)] {
            let source = Corpus.directory.appendingPathComponent(name).path
            let output = folder.url(name + ".jxl")
            let run = try ProcessRunner.runBlocking(URL(fileURLWithPath: "/usr/bin/cjxl"), [source, output])
            #expect(run.status == 0, "cjxl \(name): \(run.stderr)")
            let original = try Probe.bytes(Array(try Data(contentsOf: URL(fileURLWithPath: source))))
            let converted = try Probe.bytes(Array(try Data(contentsOf: URL(fileURLWithPath: output))), name: "x.jxl")
            #expect(converted.kind == .photo && converted.mime == "image/jxl", "\(name): \(converted.message)")
            #expect(converted.metadata.container == "jxl")
            #expect(converted.metadata.pixelWidth == original.metadata.pixelWidth, "\(name)")
            #expect(converted.metadata.pixelHeight == original.metadata.pixelHeight, "\(name)")
            let bytes = try Data(contentsOf: URL(fileURLWithPath: output))
            #expect(Array(bytes.prefix(12)) == (container ? signature : Array(bytes.prefix(12))), "\(name)")
            if container {
                // Damaged copies (bytes flipped in the boxes, the compressed Exif, the codestream header) never crash
                // the probe and never make a video.
                var generator = SystemRandomNumberGenerator()
                for _ in 0..<300 {
                    var damaged = Array(bytes)
                    for _ in 0..<4 { damaged[Int.random(in: 0..<min(damaged.count, 7000), using: &generator)] ^= 0xFF }
                    let probed = try Probe.memory(damaged)
                    #expect(probed.kind != .video)
                }
                #expect(converted.metadata.captureDate != nil)
                #expect(converted.metadata.captureDate == original.metadata.captureDate, "EXIF travels in the Exif box")
                #expect(converted.metadata.make == original.metadata.make && converted.metadata.make != nil)
            } else {
                #expect(bytes.prefix(2) == Data([0xFF, 0x0A]))
            }
        }
    }

    private var signature: [UInt8] { JPEGXLProbe.containerSignature }
}
