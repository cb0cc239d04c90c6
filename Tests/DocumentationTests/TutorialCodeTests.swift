import Foundation
import ImageManagerTutorials
import PhotoCatalog
import PhotoCatalogTutorials
import PhotoImageManager
import Rendering
import TestFixtures
import Testing

/// The code the DocC tutorials show (Documentation/*.docc/Resources/code), run against real libraries in temporary
/// folders with real files (ffmpeg writes the movies): what a tutorial says its code does, it does.
@Suite("the DocC tutorials' code", .timeLimit(.minutes(3)))
struct TutorialCodeTests {
    let folder: TemporaryFolder
    let library: PhotoLibrary

    init() throws {
        folder = try TemporaryFolder("tutorials")
        library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
    }

    func jpeg(_ name: String, seed: Int) throws -> URL {
        let path = folder.url(name)
        try Data(SyntheticJPEG.bytes(seed: seed, taken: "2024:05:0\(seed % 9 + 1) 10:00:00")).write(to: URL(fileURLWithPath: path))
        return URL(fileURLWithPath: path)
    }

    @Test("Saving into a custom album: the album is made once however many saves run at once; the same content twice is one asset")
    func savingIntoACustomAlbum() async throws {
        let files = try (0..<6).map { try jpeg("photo-\($0).jpg", seed: $0) }
        try await withThrowingTaskGroup(of: [AssetCreationOutcome].self) { group in
            for file in files { group.addTask { try await saveIntoCustomAlbum([file], title: "Landscapes", library: library) } }
            for try await outcomes in group { #expect(outcomes.count == 1 && !outcomes[0].isDuplicate) }
        }
        let albums = try AssetCollection.fetchAssetCollections(with: .album, subtype: .albumRegular, library: library)
        #expect(albums.count == 1 && albums.firstObject?.title == "Landscapes")
        let album = try #require(albums.firstObject)
        #expect(try Asset.fetchAssets(in: album, options: nil).count == 6)
        let again = try await saveIntoCustomAlbum([files[0]], title: "Landscapes", library: library)
        #expect(again.first?.isDuplicate == true)
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 6)
    }

    @Test("Photos, GIFs and videos: chosen by content; a video Apple devices cannot play is refused with its reason")
    func savingByKind() async throws {
        try skipUnless(MediaTools.hasFFmpeg, "ffmpeg (apt-get install ffmpeg)")
        let photo = try await saveByKind(try jpeg("named-like-a-movie.mov", seed: 1), library: library)
        let movie = folder.url("clip.mp4")
        try await MediaTools.testVideo(movie, width: 160, height: 120, seconds: 1)
        let video = try await saveByKind(URL(fileURLWithPath: movie), library: library)
        let hev1 = folder.url("hev1.mp4")
        try await MediaTools.ffmpeg(
            ["-f", "lavfi", "-i", "testsrc=size=160x120:rate=25", "-t", "1", "-c:v", "libx265", "-tag:v", "hev1",
             "-pix_fmt", "yuv420p", hev1])
        await #expect {
            _ = try await saveByKind(URL(fileURLWithPath: hev1), library: library)
        } throws: { error in
            (error as? NotSaved)?.reason == "unsupportedVideo"
        }
        let text = try folder.write("notes.jpg", "not a photo at all")
        await #expect(throws: NotSaved.self) { _ = try await saveByKind(URL(fileURLWithPath: text), library: library) }
        let assets = try Asset.fetchAssets(withLocalIdentifiers: [photo.localIdentifier, video.localIdentifier], library: library)
        #expect(Set(assets.map(\.kind)) == ["photo", "video"])
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 2)
    }

    @Test("Browse and observe: a favourite appears in the watched list; remove leaves the library, delete goes to Recently Deleted; the history says so")
    func browsingAndObserving() async throws {
        let outcomes = try await saveIntoCustomAlbum(
            [try jpeg("a.jpg", seed: 1), try jpeg("b.jpg", seed: 2)], title: "Trip", library: library)
        let start = try library.currentChangeToken
        let watcher = try FavoritesWatcher(library: library)
        #expect(watcher.current.isEmpty)
        let assets = Array(try Asset.fetchAssets(withLocalIdentifiers: outcomes.map(\.localIdentifier), library: library))
        try await markFavorite(assets[0], library: library)
        let seen = await eventually(timeout: 10) { watcher.current.map(\.localIdentifier) == [assets[0].localIdentifier] }
        #expect(seen, "the observer saw the favourite")

        let album = try #require(
            try AssetCollection.fetchAssetCollections(with: .album, subtype: .albumRegular, library: library).firstObject)
        try await remove(assets[1], from: album, library: library)
        #expect(try Asset.fetchAssets(in: album, options: nil).count == 1)
        #expect(try Asset.fetchAssets(withLocalIdentifiers: [assets[1].localIdentifier], library: library).count == 1)
        try await delete(assets[0], library: library)
        #expect(try library.recentlyDeletedAssets().map(\.localIdentifier) == [assets[0].localIdentifier])
        #expect(try Asset.fetchAssets(in: album, options: nil).count == 0)

        let history = try changes(since: start, library: library)
        #expect(history.inserted.isEmpty, "nothing was inserted after the token")
        #expect(history.next != start)
        let all = try changes(since: PersistentChangeToken(string: "\(start.stringValue.prefix { $0 != ":" }):0")!, library: library)
        #expect(all.inserted.isSuperset(of: Set(outcomes.map(\.localIdentifier))))
        withExtendedLifetime(watcher) {}
    }

    @Test("Live Photos: a photo and its movie become one asset with the photoLive subtype (`livePhoto` in JSON)")
    func livePhotos() async throws {
        try skipUnless(MediaTools.hasFFmpeg, "ffmpeg (apt-get install ffmpeg)")
        let movie = folder.url("IMG_0001.MOV")
        try await MediaTools.testVideo(movie, width: 160, height: 120, seconds: 1)
        let asset = try #require(
            try await saveLivePhoto(photo: try jpeg("IMG_0001.JPG", seed: 3), movie: URL(fileURLWithPath: movie), library: library))
        #expect(asset.mediaSubtypes.contains(.photoLive), "\(asset.mediaSubtypes.names)")
        #expect(Set(asset.resources.map(\.type)) == [.photo, .pairedVideo])
    }

    @Test("The image manager: a square grid picture and an exact viewer picture; the caching manager keeps the grid's")
    func imageManager() async throws {
        try skipUnless(MediaTools.hasFFmpeg, "ffmpeg (apt-get install ffmpeg)")
        // A real picture the decoders read, written by ffmpeg.
        let path = folder.url("wide.jpg")
        try await MediaTools.ffmpeg(["-f", "lavfi", "-i", "testsrc=size=1600x900", "-frames:v", "1", path])
        let outcomes = try await saveIntoCustomAlbum([URL(fileURLWithPath: path)], title: "Wide", library: library)
        let pool = RenderPool(size: 1)
        let pictures = try gridAndViewerPictures(of: outcomes[0].localIdentifier, library: library, pool: pool)
        #expect(pictures.grid.pixelWidth == 300 && pictures.grid.pixelHeight == 300)
        #expect(pictures.viewer.pixelWidth == 1200 && pictures.viewer.pixelHeight == 675)
        #expect(pictures.viewer.mimeType == "image/webp")
        let assets = Array(try Asset.fetchAssets(withLocalIdentifiers: [outcomes[0].localIdentifier], library: library))
        let manager = prepareGrid(assets, library: library, pool: pool)
        let cached = await eventually(timeout: 30) { manager.cachedCount.pictures > 0 }
        #expect(cached, "the grid picture was prepared ahead")
    }
}
