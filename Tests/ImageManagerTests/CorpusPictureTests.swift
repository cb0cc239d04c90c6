import Foundation
import PhotoCatalog
import PhotoImageManager
import Rendering
import TestFixtures
import Testing

/// Thumbnails and previews of real files from the shared corpus (`../shared/corpus/dev`), checked against another
/// decoder: libheif's own `heif-convert` for an iPhone HEIC, Pillow for JPEGs, the aspect of each.
@Suite(
    "Pictures of corpus files", .timeLimit(.minutes(3)),
    .requires(Pillow.isAvailable, "python3 with Pillow (pip install Pillow)"))
struct CorpusPictureTests {
    static let corpus: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // the file, ImageManagerTests, Tests: the package root
        return url.deletingLastPathComponent().appendingPathComponent("shared/corpus/dev")
    }()

    @Test("an iPhone HEIC, an EXIF-6 JPEG, an MP4, an HDR movie and a RAF get pictures of the right shape and colour")
    func corpusFiles() async throws {
        try skipUnless(FileManager.default.fileExists(atPath: Self.corpus.appendingPathComponent("EXPECTED.tsv").path),
                     "the corpus is absent (looked for \(Self.corpus.path))")
        try skipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/heif-convert"),
                   "heif-convert (apt-get install libheif-examples)")
        let folder = try TemporaryFolder("corpus-pictures")
        let library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
        let files: [(String, AssetResourceType)] = [
            ("IMG_5195.HEIC", .photo), ("portrait_6.jpg", .photo), ("sample.mp4", .video),
            ("dolbyVision-hdr.MOV", .video), ("FujiFilm.raf", .photo),
        ]
        var ids: [String: String] = [:]
        for (name, type) in files {
            let copy = folder.url(name)
            try FileManager.default.copyItem(atPath: Self.corpus.appendingPathComponent(name).path, toPath: copy)
            let identifier = Locked<String?>(nil)
            try await library.performChanges {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(with: type, fileURL: URL(fileURLWithPath: copy), options: nil)
                identifier.value = request.placeholderForCreatedAsset?.localIdentifier
            }
            let id: String = try #require(identifier.value)
            ids[name] = id
        }
        let pool = RenderPool(size: 2)
        defer { pool.stop() }
        let maker = DerivativeMaker(library: library, pool: pool)
        let outcomes = try maker.makeAndWait(files.map { try #require(try library.derivativeSource(ofAsset: ids[$0.0]!)) })
        #expect(outcomes.allSatisfy { $0 == .made }, "\(outcomes)")
        func preview(_ name: String) throws -> Derivative.File {
            try #require(try library.derivatives(ofAsset: ids[name]!).first { $0.kind == .preview }?.file)
        }

        // HEIC against libheif's own decoder: the same shape (its rotation applied) and the same colours.
        let reference = try ProcessRunner.runBlocking(
            URL(fileURLWithPath: "/usr/bin/heif-convert"),
            [Self.corpus.appendingPathComponent("IMG_5195.HEIC").path, folder.url("reference.png")])
        #expect(reference.status == 0, "\(reference)")
        let theirs = try Pillow.read(try Data(contentsOf: URL(fileURLWithPath: folder.url("reference.png"))), as: "r.png", in: folder)
        let heic = try preview("IMG_5195.HEIC")
        let ours = try Pillow.read(try Data(contentsOf: heic.fileURL), as: "heic.jpg", in: folder)
        #expect(max(heic.pixelWidth, heic.pixelHeight) == 1440)
        let aspect = (Double(heic.pixelWidth) / Double(heic.pixelHeight), Double(theirs.size.0) / Double(theirs.size.1))
        #expect(abs(aspect.0 - aspect.1) < 0.01, "aspect \(aspect)")
        for row in 0..<4 {
            for column in 0..<4 {
                let (x, y) = (Double(column) / 4, Double(row) / 4)
                let a = ours.mean(x, y, 0.25, 0.25), b = theirs.mean(x, y, 0.25, 0.25)
                #expect(abs(a.0 - b.0) <= 8 && abs(a.1 - b.1) <= 8 && abs(a.2 - b.2) <= 8, "cell \(row),\(column): \(a) vs \(b)")
            }
        }

        let portrait = try preview("portrait_6.jpg")
        #expect(portrait.pixelHeight > portrait.pixelWidth, "EXIF 6: portrait")
        let movie = try preview("sample.mp4")
        let frame = try Pillow.read(try Data(contentsOf: movie.fileURL), as: "mp4.jpg", in: folder)
        let mean = frame.mean(0, 0, 1, 1)
        #expect(0.299 * mean.0 + 0.587 * mean.1 + 0.114 * mean.2 > 16, "not a black frame: \(mean)")
        let hdr = try preview("dolbyVision-hdr.MOV")
        #expect(hdr.pixelHeight > hdr.pixelWidth, "a portrait iPhone movie, turned upright")
        // An iPhone HLG movie: its poster is tone-mapped like ffmpeg's own zscale + tonemap (Hable) of the same frame,
        // and so differs from the frame shown as decoded.
        try skipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg (apt-get install ffmpeg)")
        do {
            let movie = Self.corpus.appendingPathComponent("dolbyVision-hdr.MOV").path
            let probe = try ProcessRunner.runBlocking(
                URL(fileURLWithPath: "/usr/bin/ffprobe"),
                ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", movie])
            let duration = Double(probe.lines.first ?? "") ?? 0
            let at = String(format: "%.3f", duration >= 10 ? 1 : duration * 0.1)
            let chain =
                "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
                + "zscale=t=bt709:m=bt709:r=tv,format=yuv420p"
            for (name, filter) in [("mapped.png", ["-vf", chain]), ("raw.png", [])] {
                let made = try ProcessRunner.runBlocking(
                    URL(fileURLWithPath: "/usr/bin/ffmpeg"),
                    ["-v", "error", "-y", "-ss", at, "-i", movie] + filter + ["-frames:v", "1", folder.url(name)])
                #expect(made.status == 0, "\(made)")
            }
            let ours = try Pillow.read(try Data(contentsOf: hdr.fileURL), as: "hdr.jpg", in: folder)
            let mapped = try Pillow.read(try Data(contentsOf: URL(fileURLWithPath: folder.url("mapped.png"))), as: "m.png", in: folder)
            let raw = try Pillow.read(try Data(contentsOf: URL(fileURLWithPath: folder.url("raw.png"))), as: "w.png", in: folder)
            func distance(_ a: Pillow.Seen, _ b: Pillow.Seen) -> Double {
                zip(a.cells, b.cells).map { abs($0.0 - $1.0) + abs($0.1 - $1.1) + abs($0.2 - $1.2) }.reduce(0, +)
                    / Double(a.cells.count * 3)
            }
            #expect(distance(ours, mapped) < 4, "like ffmpeg's tone mapping: \(distance(ours, mapped)) levels")
            #expect(distance(ours, raw) > distance(ours, mapped) + 2, "not the frame as decoded: \(distance(ours, raw))")

            // Its playable H.264 version is SDR BT.709, tone-mapped the same way: a frame of it against ffmpeg's
            // mapping of the original's frame at the same time (ffmpeg turns both upright).
            let played = try ImageManager(library: library, pool: pool).playableVideo(of: ids["dolbyVision-hdr.MOV"]!)
            let streams = try ProcessRunner.runBlocking(
                URL(fileURLWithPath: "/usr/bin/ffprobe"),
                ["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=codec_name,color_transfer,pix_fmt",
                 "-of", "csv=p=0", played.fileURL.path])
            #expect(streams.lines.first?.hasPrefix("h264,yuv420p,bt709") == true, "\(streams)")
            for (input, name, filter) in [(movie, "original.png", ["-vf", chain]), (played.fileURL.path, "played.png", [])] {
                let made = try ProcessRunner.runBlocking(
                    URL(fileURLWithPath: "/usr/bin/ffmpeg"),
                    ["-v", "error", "-y", "-ss", at, "-i", input] + filter + ["-frames:v", "1", folder.url(name)])
                #expect(made.status == 0, "\(made)")
            }
            let original = try Pillow.read(
                try Data(contentsOf: URL(fileURLWithPath: folder.url("original.png"))), as: "o.png", in: folder)
            let frame = try Pillow.read(
                try Data(contentsOf: URL(fileURLWithPath: folder.url("played.png"))), as: "p.png", in: folder)
            #expect(distance(frame, original) < 6, "like ffmpeg's tone mapping: \(distance(frame, original)) levels")
            #expect(distance(frame, raw) > distance(frame, original) + 2, "not as decoded: \(distance(frame, raw))")
        }
        let raf = try preview("FujiFilm.raf")
        #expect(raf.pixelWidth > 0, "its embedded JPEG")
    }
}
