import Testing

@_spi(Fuzzing) @testable import MediaProbe

/// Deterministic mutations of every fixture through the fuzz entry points and the full probe: no crash, no hang,
/// and a mutated file is never "accepted" with impossible metadata. (The libFuzzer targets do this at scale; this
/// keeps a cheap version in every test run.)
@Suite("Malformed input never crashes", .timeLimit(.minutes(3)))
struct MalformedInputTests {
    static let fixtures: [[UInt8]] = [
        MovieSpec().build(), MovieSpec(majorBrand: "qt  ", moovAtEnd: true).build(),
        MovieSpec(fragmented: true).build(),
        MovieSpec(keys: [("com.apple.quicktime.location.ISO6709", "+1.0+2.0/")]).build(),
        HEIFSpec(exif: TIFFWriter.cameraExif(contentIdentifier: "ID")).build(), HEIFSpec(gridTileType: "hvc1").build(),
        ImageFixtures.jpeg(exif: TIFFWriter.cameraExif(contentIdentifier: "ID"), scanBytes: 300),
        ImageFixtures.png(exif: TIFFWriter.cameraExif()), ImageFixtures.gif(frames: 2),
        ImageFixtures.animatedWebP(width: 4, height: 4, frames: 2, exif: TIFFWriter.cameraExif()), ImageFixtures.bmp(),
        ImageFixtures.tiff(make: "X", exif: [.init(tag: 0x9003, value: .ascii("2020:01:01 00:00:00"))]),
        TIFFWriter.cameraExif(littleEndian: false, contentIdentifier: "LONGER-IDENTIFIER"),
    ]

    /// A small deterministic generator (xorshift).
    struct Random {
        var state: UInt64
        mutating func next() -> UInt64 {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return state
        }
        mutating func below(_ n: Int) -> Int { Int(next() % UInt64(max(n, 1))) }
    }

    static func mutate(_ bytes: [UInt8], _ random: inout Random) -> [UInt8] {
        var out = bytes
        for _ in 0...random.below(4) {
            guard !out.isEmpty else { break }
            let i = random.below(out.count)
            switch random.below(5) {
            case 0: out[i] ^= UInt8(1 << random.below(8))
            case 1: out[i] = [0x00, 0xFF, 0x7F, 0x80, 0x01][random.below(5)]
            case 2: out.removeSubrange(i..<min(out.count, i + 1 + random.below(16)))
            case 3:
                let n = min(4, out.count - i)
                out.replaceSubrange(i..<i + n, with: [UInt8](repeating: 0xFF, count: n))
            default:
                let filler = [UInt8](repeating: UInt8(random.below(256)), count: 1 + random.below(8))
                out.insert(contentsOf: filler, at: i)
            }
        }
        return out
    }

    @Test("300 mutations of each fixture through every entry point")
    func mutations() throws {
        var random = Random(state: 0x9E37_79B9_7F4A_7C15)
        for fixture in Self.fixtures {
            for _ in 0..<300 {
                let bytes = Self.mutate(fixture, &random)
                bytes.withUnsafeBytes { raw in
                    FuzzEntryPoints.boxes(raw)
                    FuzzEntryPoints.exif(raw)
                    FuzzEntryPoints.images(raw)
                }
                let r = try Probe.memory(bytes)
                if r.isAccepted {
                    #expect((r.metadata.orientation ?? 1) >= 1 && (r.metadata.orientation ?? 1) <= 8)
                    #expect((r.metadata.pixelWidth ?? 1) > 0 && (r.metadata.pixelHeight ?? 1) > 0)
                    if let l = r.metadata.location { #expect(abs(l.latitude) <= 90 && abs(l.longitude) <= 180) }
                }
                #expect(!r.message.isEmpty)
            }
        }
    }
}
