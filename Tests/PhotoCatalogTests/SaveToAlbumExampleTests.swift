import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

/// The `save-to-album` example, run as the built program (built next to the test bundle by `swift build --build-tests`).
@Suite("examples/SaveToAlbum", .timeLimit(.minutes(3)))
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
        let photo = try folder.write(TestFiles.distinctBytes(size: 500), to: "sunset.jpg")
        let movie = try folder.write(TestFiles.distinctBytes(size: 700), to: "waves.mov")
        let copy = try folder.write(try Data(contentsOf: photo), to: "sunset copy.jpg")
        let missing = folder.appending("missing.jpg")
        let libraryPath = folder.appending("Library").path
        let first = try Helper.run(
            program,
            ["--library", libraryPath, "--album", "Landscapes", photo.path, movie.path, copy.path, missing.path])
        #expect(first.status == 1, "one file is missing")
        #expect(first.lines.first == "created album \"Landscapes\"")
        #expect(first.lines.filter { $0.hasPrefix("saved ") }.count == 2)
        #expect(first.lines.contains { $0.hasPrefix("duplicate \(copy.path)") })
        #expect(first.stderr.contains(missing.path) && first.stderr.contains("does not exist"))
        let second = try Helper.run(program, ["--library", libraryPath, "--album", "landscapes", photo.path])
        #expect(second.status == 0)
        #expect(!second.stdout.contains("created album"), "the album is found, not created again")
        for url in [photo, movie, copy] { #expect(FileManager.default.fileExists(atPath: url.path)) }

        let library = PhotoLibrary(url: URL(fileURLWithPath: libraryPath))
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .any, library: library)
        #expect(albums.map(\.title) == ["Landscapes"])
        let assets = try Asset.fetchAssets(in: #require(albums.firstObject))
        #expect(Set(assets.map(\.kind)) == ["photo", "video"])
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
