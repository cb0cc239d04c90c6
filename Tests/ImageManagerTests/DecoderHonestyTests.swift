import Foundation
import PhotodropSystem
import Rendering
import TestFixtures
import Testing

/// The render helper on files that lie or are damaged: a header that claims far more than its data holds fails
/// instead of coming out as a grey field, a cut file fails, and what the decoders said about one file is never
/// reported with the next.
@Suite(
    "Render helper: lying and damaged files fail cleanly, each with its own words", .timeLimit(.minutes(3)),
    .requires(Pillow.isAvailable, "python3 with Pillow (pip install Pillow)"))
struct DecoderHonestyTests {
    let folder: TemporaryFolder

    init() async throws {
        folder = try TemporaryFolder("decoder-honesty")
        try await Pillow.make(
            """
            import struct, zlib, random
            random.seed(7)
            small = Image.new('RGB', (64, 64), (200, 30, 30))
            small.save(out('small.jpg'), quality=90)
            data = bytearray(open(out('small.jpg'), 'rb').read())
            sof = data.find(b'\\xff\\xc0')
            struct.pack_into('>HH', data, sof + 5, 15000, 15000)
            open(out('liar.jpg'), 'wb').write(data)
            noisy = Image.effect_noise((600, 400), 60).convert('RGB')
            noisy.save(out('noisy.jpg'), quality=90)
            whole = open(out('noisy.jpg'), 'rb').read()
            open(out('cut.jpg'), 'wb').write(whole[: len(whole) // 2])
            # Cut in half and closed with an end-of-image marker: libjpeg warns ("Corrupt JPEG data: premature end
            # of data segment") and fills the rest with grey.
            open(out('half.jpg'), 'wb').write(whole[: len(whole) // 2] + b'\\xff\\xd9')
            # Stray bytes after the first segment (an XMP packet's end spilled): libjpeg warns ("Corrupt JPEG data:
            # 5 extraneous bytes before marker") and the picture is whole.
            app0 = 4 + (whole[4] << 8 | whole[5])
            open(out('warns.jpg'), 'wb').write(whole[:app0] + b'?>\\n  ' + whole[app0:])
            # A PNG whose compressed data is garbage (its CRC mended, so only the decoder can tell).
            small.save(out('good.png'))
            png = bytearray(open(out('good.png'), 'rb').read())
            i = png.find(b'IDAT')
            n = struct.unpack('>I', png[i - 4:i])[0]
            for k in range(i + 6, i + 4 + n - 4): png[k] ^= 0x5a
            struct.pack_into('>I', png, i + 4 + n, zlib.crc32(bytes(png[i:i + 4 + n])) & 0xffffffff)
            open(out('bad.png'), 'wb').write(png)
            """, in: folder)
    }

    private func render(_ helper: RenderHelper, _ name: String, mime: String) throws(RenderError) -> [RenderedPicture] {
        let fd = open(folder.url(name), O_RDONLY | O_CLOEXEC)
        defer { if fd >= 0 { close(fd) } }
        let request = RenderRequest(
            outputs: [.init(width: 512, height: 512, mimeType: "image/jpeg", quality: 85)], mimeType: mime)
        return try helper.render(request, descriptor: FileDescriptor(borrowing: fd), timeout: .seconds(60)).pictures
    }

    private func failure(_ helper: RenderHelper, _ name: String, mime: String) -> String? {
        do {
            let pictures = try render(helper, name, mime: mime)
            Issue.record("\(name) rendered (\(pictures.map { "\($0.width)×\($0.height)" })), but it should fail")
            return nil
        } catch {
            guard case .undecodable(let message) = error else {
                Issue.record("\(name): \(error)")
                return nil
            }
            return message
        }
    }

    @Test("a 64 × 64 JPEG whose header says 15000 × 15000, and a cut JPEG, fail instead of coming out grey")
    func lyingAndCut() throws {
        let helper = RenderHelper()
        defer { helper.stop() }
        let liar = try #require(failure(helper, "liar.jpg", mime: "image/jpeg"))
        #expect(liar.contains("15000 × 15000") && liar.contains("damaged"), "\(liar)")
        let cut = try #require(failure(helper, "cut.jpg", mime: "image/jpeg"))
        #expect(cut.contains("truncated") || cut.contains("damaged"), "\(cut)")
        let half = try #require(failure(helper, "half.jpg", mime: "image/jpeg"))
        #expect(half.contains("premature end"), "\(half)")
        // The honest small one still renders.
        let pictures = try render(helper, "small.jpg", mime: "image/jpeg")
        #expect(pictures.first.map { ($0.width, $0.height) } ?? (0, 0) == (64, 64))
    }

    @Test("a decoder's warning about one file is not part of the next file's failure")
    func noCarriedOverErrors() throws {
        let helper = RenderHelper()
        defer { helper.stop() }
        // Decoded whole despite libjpeg's complaint, which libvips keeps in its error buffer.
        let whole = try render(helper, "warns.jpg", mime: "image/jpeg")
        #expect(whole.first.map { ($0.width, $0.height) } ?? (0, 0) == (512, 341))
        let png = try #require(failure(helper, "bad.png", mime: "image/png"))
        #expect(!png.contains("Jpeg") && !png.contains("JPEG"), "\(png)")
        #expect(png.lowercased().contains("png"), "\(png)")
        // And the other way round: the PNG's failure is not carried into a JPEG's.
        let liar = try #require(failure(helper, "liar.jpg", mime: "image/jpeg"))
        #expect(!liar.lowercased().contains("png"), "\(liar)")
    }
}
