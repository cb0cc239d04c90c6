import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

/// The `save-to-album` example, run as the built program (built next to the test bundle by `swift build --build-tests`).
@Suite("examples/SaveToAlbum", CatalogGate.one)
struct SaveToAlbumExampleTests {
    static var program: URL? {
        Helper.executable.map { $0.deletingLastPathComponent().appendingPathComponent("save-to-album") }
            .flatMap { FileManager.default.isExecutableFile(atPath: $0.path) ? $0 : nil }
    }

    @Test(
        "saves files into an album created once, keeps sources, reports duplicates and failures",
        .requires(program != nil, "save-to-album is not built next to the test bundle (swift build --build-tests)"))
    func saves() throws {
        let program = try #require(Self.program)
        let folder = try TemporaryDirectory()
        let photo = try folder.write(
            Data(SyntheticJPEG.bytes(seed: 1, width: 64, height: 48, taken: "2023:06:01 09:00:00")), to: "sunset.jpg")
        // A JPEG named .mov: the example judges by content, so it is saved as the photo it is.
        let movie = try folder.write(Data(SyntheticJPEG.bytes(seed: 2)), to: "waves.mov")
        let copy = try folder.write(try Data(contentsOf: photo), to: "sunset copy.jpg")
        let missing = folder.appending("missing.jpg")
        let libraryPath = folder.appending("Library").path
        let first = try Helper.run(
            program,
            ["--library", libraryPath, "--album", "Landscapes", photo.path, movie.path, copy.path, missing.path])
        #expect(first.status == 1, "one file is missing")
        #expect(first.lines.first == "created album \"Landscapes\"")
        #expect(first.lines.filter { $0.hasPrefix("saved ") }.count == 2, "\(first)")
        #expect(first.lines.contains { $0.hasPrefix("duplicate \(copy.path)") })
        #expect(first.stderr.contains(missing.path) && first.stderr.contains("No such file or directory"), "\(first.stderr)")
        let second = try Helper.run(program, ["--library", libraryPath, "--album", "landscapes", photo.path])
        #expect(second.status == 0)
        #expect(!second.stdout.contains("created album"), "the album is found, not created again")
        for url in [photo, movie, copy] { #expect(FileManager.default.fileExists(atPath: url.path)) }

        let library = PhotoLibrary(url: URL(fileURLWithPath: libraryPath))
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library)
        #expect(albums.map(\.title) == ["Landscapes"])
        let assets = try Asset.fetchAssets(in: #require(albums.firstObject))
        // waves.mov is a JPEG by content: saved as the photo it is, with its content's type, not its name's.
        #expect(Set(assets.map(\.kind)) == ["photo"])
        #expect(Set(assets.map(\.mimeType)) == ["image/jpeg"])
        let sunset = try #require(assets.first { $0.originalFilename == "sunset.jpg" })
        #expect(sunset.creationDateSource == "exif", "the capture date the daemon would store")
        #expect(sunset.creationDate == ISO8601DateFormatter().date(from: "2023-06-01T09:00:00Z"))
        #expect(sunset.pixelWidth == 64 && sunset.pixelHeight == 48)
    }

    @Test(
        "checks content before saving: a real movie is a video, a PDF and an hev1 movie are refused with photodrop's message",
        .requires(program != nil, "save-to-album is not built next to the test bundle (swift build --build-tests)"))
    func checksContent() throws {
        try skipUnless(Self.corpusAvailable, "the corpus is absent (looked for \(Self.corpus.path))")
        let program = try #require(Self.program)
        let folder = try TemporaryDirectory()
        let libraryPath = folder.appending("Library").path
        let movie = Self.corpus.appendingPathComponent("sample.mp4")
        let pdf = try folder.write(try Data(contentsOf: Self.corpus.appendingPathComponent("PDF.pdf")), to: "photo.jpg")
        let hev1 = Self.corpus.appendingPathComponent("h265_bframes.mp4")
        let run = try Helper.run(program, ["--library", libraryPath, "--album", "Trip", movie.path, pdf.path, hev1.path])
        #expect(run.status == 1, "\(run)")
        #expect(run.lines.contains { $0.hasPrefix("saved \(movie.path)") }, "\(run)")
        #expect(run.stderr.contains("\(pdf.path): Not saved (unsupportedType): a PDF document, not a photo or video"))
        #expect(run.stderr.contains("\(hev1.path): Not saved (unsupportedVideo): HEVC video tagged 'hev1' is not playable"))
        #expect(run.stderr.contains("-tag:v hvc1"), "the message says what to do: \(run.stderr)")
        let library = PhotoLibrary(url: URL(fileURLWithPath: libraryPath))
        let assets = try Asset.fetchAssets(with: nil, library: library)
        #expect(assets.map(\.kind) == ["video"])
        let video = try #require(assets.firstObject)
        #expect(video.mimeType == "video/mp4" && video.duration > 0 && video.pixelWidth > 0, "\(video)")
    }

    static let corpus: URL = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }  // SaveToAlbumExampleTests.swift, PhotoCatalogTests, Tests
        return url.deletingLastPathComponent().appendingPathComponent("shared/corpus/dev")
    }()

    static var corpusAvailable: Bool {
        FileManager.default.fileExists(atPath: corpus.appendingPathComponent("EXPECTED.tsv").path)
    }

    @Test("usage errors exit 2, an unwritable library exits 3", .requires(program != nil, "save-to-album is not built next to the test bundle"))
    func exitCodes() throws {
        let program = try #require(Self.program)
        let folder = try TemporaryDirectory()
        let file = try folder.write(Data("x".utf8), to: "x.jpg")
        #expect(try Helper.run(program, ["--album", "Portraits", file.path]).status == 2)
        #expect(try Helper.run(program, ["--library", folder.path, "--album", "Portraits"]).status == 2)
        let notAFolder = try folder.write(Data(), to: "occupied")
        let denied = try Helper.run(program, ["--library", notAFolder.path, "--album", "Portraits", file.path])
        #expect(denied.status == 3)
        #expect(denied.stderr.contains("Not authorised"))
    }
}
