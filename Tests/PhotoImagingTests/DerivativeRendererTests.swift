import Foundation
import Glibc
@testable import PhotoImaging
import TestFixtures
import Testing

/// Photos made by Pillow (another decoder and encoder than libvips), rendered by ``DerivativeRenderer``, and the
/// results read back by Pillow again: the pictures are checked (size, aspect, orientation, colour), not only that
/// bytes came out.
@Suite("Derivatives: thumbnails and previews with libvips", .requires(Pillow.isAvailable, "python3 with Pillow (pip install Pillow)"), .timeLimit(.minutes(3)))
struct DerivativeRendererTests {
    let folder: TemporaryFolder
    let renderer = DerivativeRenderer()

    init() throws { folder = try TemporaryFolder("imaging") }

    @Test("a camera-size landscape JPEG: a 1,440 preview (JPEG) and a 512 thumbnail (WebP), same aspect, same colours")
    func landscape() throws {
        try Pillow.run(
            """
            img = Image.new('RGB', (3000, 2000), (200, 60, 40))
            img.paste((40, 90, 200), (1500, 0, 3000, 2000))
            img.save(out('landscape.jpg'), quality=92)
            """, in: folder)
        let made = try render("landscape.jpg")
        #expect(made.preview.format == .jpeg && made.preview.bytes.starts(with: [0xFF, 0xD8]))
        #expect(made.thumbnail.format == .webp && Array(made.thumbnail.bytes[8..<12]) == Array("WEBP".utf8))
        #expect((made.preview.pixelWidth, made.preview.pixelHeight) == (1440, 960))
        #expect(made.thumbnail.pixelWidth == 512 && abs(made.thumbnail.pixelHeight - 341) <= 1)
        for (name, image) in [("p.jpg", made.preview), ("t.webp", made.thumbnail)] {
            let seen = try Pillow.read(image, as: name, in: folder)
            #expect(seen.size == (image.pixelWidth, image.pixelHeight), "\(name): Pillow reads \(seen.size)")
            // Left quarter and right quarter keep their colours within a few levels.
            #expect(near(seen.mean(0.0, 0.0, 0.25, 1.0), (200, 60, 40)), "\(name) left: \(seen.mean(0.0, 0.0, 0.25, 1.0))")
            #expect(near(seen.mean(0.75, 0.0, 0.25, 1.0), (40, 90, 200)), "\(name) right: \(seen.mean(0.75, 0.0, 0.25, 1.0))")
        }
    }

    @Test("EXIF orientation 6: a photo stored sideways comes out portrait, its stored left side on top")
    func orientation() throws {
        try Pillow.run(
            """
            img = Image.new('RGB', (2000, 1000), (220, 30, 30))
            img.paste((30, 30, 220), (1000, 0, 2000, 1000))
            exif = Image.Exif()
            exif[0x0112] = 6
            img.save(out('sideways.jpg'), quality=92, exif=exif.tobytes())
            """, in: folder)
        let made = try render("sideways.jpg")
        #expect((made.preview.pixelWidth, made.preview.pixelHeight) == (720, 1440))
        #expect((made.thumbnail.pixelWidth, made.thumbnail.pixelHeight) == (256, 512))
        let seen = try Pillow.read(made.preview, as: "p.jpg", in: folder)
        // Orientation 6 turns the stored image 90° clockwise for display: its left half (red) goes to the top.
        #expect(near(seen.mean(0.0, 0.0, 1.0, 0.4), (220, 30, 30)), "top: \(seen.mean(0.0, 0.0, 1.0, 0.4))")
        #expect(near(seen.mean(0.0, 0.6, 1.0, 0.4), (30, 30, 220)), "bottom: \(seen.mean(0.0, 0.6, 1.0, 0.4))")
        let thumbnail = try Pillow.read(made.thumbnail, as: "t.webp", in: folder)
        #expect(near(thumbnail.mean(0.0, 0.0, 1.0, 0.4), (220, 30, 30)), "thumbnail top: \(thumbnail.mean(0.0, 0.0, 1.0, 0.4))")
    }

    @Test("a small PNG with transparency is never enlarged; the JPEG preview puts it on white, the WebP keeps alpha")
    func small() throws {
        try Pillow.run(
            """
            img = Image.new('RGBA', (300, 200), (0, 0, 0, 0))
            img.paste((10, 160, 90, 255), (0, 0, 150, 200))
            img.save(out('small.png'))
            """, in: folder)
        let made = try render("small.png")
        #expect((made.preview.pixelWidth, made.preview.pixelHeight) == (300, 200))
        #expect((made.thumbnail.pixelWidth, made.thumbnail.pixelHeight) == (300, 200))
        let preview = try Pillow.read(made.preview, as: "p.jpg", in: folder)
        #expect(near(preview.mean(0.0, 0.0, 0.45, 1.0), (10, 160, 90)), "opaque half: \(preview.mean(0.0, 0.0, 0.45, 1.0))")
        #expect(near(preview.mean(0.55, 0.0, 0.45, 1.0), (255, 255, 255)), "transparent half: \(preview.mean(0.55, 0.0, 0.45, 1.0))")
        let thumbnail = try renderer.decode(made.thumbnail.bytes)
        #expect(thumbnail.rgba[3] == 255 && thumbnail.rgba[(thumbnail.pixelWidth - 1) * 4 + 3] == 0)
    }

    @Test("one image of any size: fit or fill, in JPEG or WebP")
    func anySize() throws {
        try Pillow.run("Image.new('RGB', (1200, 800), (90, 90, 90)).save(out('grey.jpg'))", in: folder)
        let fd = try open("grey.jpg")
        defer { _ = Glibc.close(fd) }
        let fitted = try renderer.image(ofFileAt: fd, format: .jpeg, width: 300, height: 300)
        #expect((fitted.pixelWidth, fitted.pixelHeight) == (300, 200) && fitted.format == .jpeg)
        let filled = try renderer.image(ofFileAt: fd, format: .jpeg, width: 300, height: 300, fill: true, format: .webp)
        #expect((filled.pixelWidth, filled.pixelHeight) == (300, 300) && filled.format == .webp)
        let decoded = try renderer.decode(filled.bytes)
        #expect(near(decoded.meanColour(), (90, 90, 90)), "\(decoded.meanColour())")
    }

    @Test("hostile and broken files get an error that says why, and nothing is decoded from a pixel bomb")
    func hostile() throws {
        // A PNG whose header claims 50,000 × 50,000 pixels (10 GB decoded): refused from the header.
        try write("bomb.png", Self.png(width: 50_000, height: 50_000))
        #expect(failure(rendering: "bomb.png") == .tooManyPixels(width: 50_000, height: 50_000, limit: renderer.maximumPixels))
        try write("noise.jpg", (0..<5_000).map { UInt8(truncatingIfNeeded: $0 &* 7919) })
        let noise = failure(rendering: "noise.jpg")
        guard case .unsupported? = noise else {
            Issue.record("noise: \(String(describing: noise))")
            return
        }
        try Pillow.run("Image.new('RGB', (2000, 1500), (10, 200, 30)).save(out('whole.jpg'), quality=95)", in: folder)
        let whole = try Data(contentsOf: URL(fileURLWithPath: folder.url("whole.jpg")))
        try write("truncated.jpg", Array(whole.prefix(whole.count / 3)))
        let truncated = failure(rendering: "truncated.jpg")
        guard case .decodeFailed(let detail)? = truncated else {
            Issue.record("a truncated JPEG must fail, not come out half grey: \(String(describing: truncated))")
            return
        }
        #expect(detail.contains("Premature end"), "\(detail)")
        // Only the loader of the format content detection found reads the file: a PNG is not decoded as a JPEG.
        try Pillow.run("Image.new('RGB', (64, 48), (1, 2, 3)).save(out('real.png'))", in: folder)
        try FileManager.default.copyItem(atPath: folder.url("real.png"), toPath: folder.url("png-named.jpg"))
        guard case .unsupported? = failure(rendering: "png-named.jpg") else {
            Issue.record("a PNG handed to the JPEG loader must be refused")
            return
        }
        // The renderer still works after all of that.
        #expect(try render("whole.jpg").preview.pixelWidth == 1440)
    }

    // MARK: - Helpers

    private func open(_ name: String) throws -> Int32 {
        let fd = Foundation.open(folder.url(name), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw CocoaError(.fileReadNoSuchFile) }
        return fd
    }

    @discardableResult
    private func render(_ name: String) throws -> DerivativeRenderer.Derivatives {
        let fd = try open(name)
        defer { _ = Glibc.close(fd) }
        let format: SourceFormat = name.hasSuffix(".png") ? .png : .jpeg
        return try renderer.derivatives(ofFileAt: fd, format: format)
    }

    /// The error rendering `name` gives; nil when it renders.
    private func failure(rendering name: String) -> ImagingError? {
        do {
            try render(name)
            return nil
        } catch let error as ImagingError {
            return error
        } catch {
            return .unavailable("\(error)")
        }
    }

    private func write(_ name: String, _ bytes: [UInt8]) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: folder.url(name)))
    }

    private func near(_ seen: (Double, Double, Double), _ expected: (Double, Double, Double), levels: Double = 6) -> Bool {
        abs(seen.0 - expected.0) <= levels && abs(seen.1 - expected.1) <= levels && abs(seen.2 - expected.2) <= levels
    }

    /// A PNG signature and an IHDR chunk claiming `width` × `height` (8-bit RGB), then an empty IDAT and IEND.
    static func png(width: Int, height: Int) -> [UInt8] {
        func be32(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: value >> $0) } }
        func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
            let body = Array(type.utf8) + data
            return be32(data.count) + body + be32(Int(crc32(body)))
        }
        let header = be32(width) + be32(height) + [8, 2, 0, 0, 0]
        return [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + chunk("IHDR", header)
            + chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + chunk("IEND", [])
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }
}

@Suite("Derivatives: JPEG shrink-on-load never goes below the box", .timeLimit(.minutes(3)))
struct JPEGShrinkTests {
    @Test(
        "the DCT scaling is the largest that still covers the box",
        arguments: [
            // (width, height, orientation, box, fill, shrink)
            (6000, 4000, 1, 1440, false, 4), (6000, 4000, 1, 512, false, 8), (3000, 2000, 1, 1440, false, 2),
            (1600, 1200, 1, 1440, false, 1), (300, 200, 1, 1440, false, 1), (6000, 4000, 1, 1440, true, 2),
        ])
    func shrink(width: Int, height: Int, orientation: Int, side: Int, fill: Bool, expected: Int) {
        #expect(
            DerivativeRenderer.jpegShrink(
                width: width, height: height, orientation: orientation, box: (side, side), fill: fill) == expected)
    }

    @Test("an image turned a quarter (orientation 6) is measured against the box turned with it")
    func turned() {
        // 4000 × 1000 stored, shown 1000 × 4000; the box 2000 wide, 500 high: shown, 1000/2000 and 4000/500.
        #expect(DerivativeRenderer.jpegShrink(width: 4000, height: 1000, orientation: 6, box: (2000, 500), fill: false) == 8)
        #expect(DerivativeRenderer.jpegShrink(width: 4000, height: 1000, orientation: 1, box: (2000, 500), fill: false) == 2)
    }
}

extension Pillow {
    /// Writes `image` to the folder and has Pillow read it.
    static func read(_ image: EncodedImage, as name: String, in folder: TemporaryFolder) throws -> Seen {
        try read(Data(image.bytes), as: name, in: folder)
    }
}

@Suite(
    "Derivatives: a video that declares no picture size says so", .timeLimit(.minutes(2)),
    .requires(MediaTools.hasFFmpeg, "ffmpeg (apt-get install ffmpeg)"))
struct VideoWithoutSizeTests {
    @Test("a raw-video QuickTime whose sample entry says 0 × 0: 'declares no picture size', not 'more than the limit'")
    func zeroSize() async throws {
        let folder = try TemporaryFolder("no-size")
        let path = folder.url("raw.mov")
        try await MediaTools.ffmpeg(
            ["-f", "lavfi", "-i", "testsrc=size=32x24:rate=5", "-t", "1", "-c:v", "rawvideo", "-pix_fmt", "rgb24", path])
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        func index(of text: String, after start: Int = 0) throws -> Int {
            let pattern = Array(text.utf8)
            return try #require((start..<(bytes.count - 4)).first { Array(bytes[$0..<($0 + 4)]) == pattern })
        }
        // The visual sample entry's width and height (24 bytes into its payload), and the track header's (16.16).
        let entry = try index(of: "raw ", after: try index(of: "stsd"))
        for k in 0..<4 { bytes[entry + 4 + 24 + k] = 0 }
        let header = try index(of: "tkhd")
        for k in 0..<8 { bytes[header + 4 + 76 + k] = 0 }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        defer { close(fd) }
        #expect {
            _ = try DerivativeRenderer().pictures(
                ofVideoAt: fd, outputs: [.init(width: 64, height: 64, format: .jpeg, quality: 80)])
        } throws: { error in
            let text = "\(error)"
            return text.contains("declares no picture size") && !text.contains("more than the")
        }
    }
}
