import Testing

@testable import MediaProbe

/// Every generated fixture cut at every offset: never accepted, and reported as truncated (so that an interrupted
/// upload waits for its rest) once the first 8 bytes identify the format.
@Suite("Fixtures cut at every offset", .timeLimit(.minutes(3)))
struct FixtureTruncationTests {
    static let fixtures: [(String, [UInt8])] = [
        ("mp4", MovieSpec().build()), ("mov, moov last", MovieSpec(majorBrand: "qt  ", moovAtEnd: true).build()),
        ("fragmented mp4", MovieSpec(fragmented: true).build()),
        ("quicktime without ftyp", MovieSpec(majorBrand: nil).build()),
        ("heic", HEIFSpec(exif: TIFFWriter.cameraExif(), imageDataSize: 300).build()),
        ("heic grid", HEIFSpec(imageDataSize: 200, gridTileType: "hvc1").build()),
        ("jpeg", ImageFixtures.jpeg(width: 160, height: 120, exif: TIFFWriter.cameraExif(), scanBytes: 600)),
        ("progressive jpeg", ImageFixtures.jpeg(width: 160, height: 120, scanBytes: 600, progressive: true)),
        ("png", ImageFixtures.png(exif: TIFFWriter.cameraExif(), idatChunks: 2)),
        ("gif", ImageFixtures.gif(frames: 3)), ("webp", ImageFixtures.animatedWebP(width: 4, height: 4, frames: 2)),
        ("bmp", ImageFixtures.bmp()), ("tiff", ImageFixtures.tiff(make: "X")), ("dng", ImageFixtures.tiff(dng: true)),
    ]

    @Test("no cut fixture is accepted; every cut is corrupt and truncated", arguments: fixtures.map(\.0))
    func everyOffset(_ name: String) throws {
        let bytes = try #require(Self.fixtures.first { $0.0 == name }?.1)
        #expect(try Probe.memory(bytes).isAccepted, "the whole fixture is accepted")
        var problems: [String] = []
        for cut in 0..<bytes.count {
            let r = try Probe.memory(Array(bytes[..<cut]))
            if r.isAccepted {
                problems.append("cut at \(cut): accepted, \(r.message)")
            } else if cut >= 8, !(r.rejection == .corrupt && r.isTruncated) {
                problems.append("cut at \(cut): \(r.rejection?.rawValue ?? "") \(r.message)")
            }
        }
        #expect(problems.isEmpty, "\(name), \(bytes.count) bytes:\n\(problems.prefix(20).joined(separator: "\n"))")
    }
}
