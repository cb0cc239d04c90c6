import Foundation
import TestFixtures
import Testing

@testable import PhotoCatalog

@Suite("Creating assets", CatalogGate.one)
struct AssetCreationTests {
    @Test("a placeholder resolves to the committed asset, with every property stored", arguments: CatalogBackend.all)
    func placeholderResolves(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let source = try folder.write(TestFiles.distinctBytes(size: 3000), to: "IMG_0001.JPG")
        let date = Date(timeIntervalSince1970: 1_600_000_000.123)
        let identifier = Locked<String?>(nil)
        let report = try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: source, options: nil)
            request.creationDate = date
            request.creationDateSource = "exif"
            request.location = Location(latitude: 47.5, longitude: 8.25, altitude: 410)
            request.isFavorite = true
            request.pixelWidth = 4032
            request.pixelHeight = 3024
            identifier.value = request.placeholderForCreatedAsset?.localIdentifier
        }
        let id = try #require(identifier.value)
        #expect(report.createdAssetCount == 1)
        #expect(report.assetCreations.first?.localIdentifier == id)
        #expect(report.changeToken != nil)
        let asset = try #require(Asset.fetchAssets(withLocalIdentifiers: [id], library: library).firstObject)
        #expect(asset.localIdentifier == id)
        #expect(asset.kind == "photo")
        #expect(asset.mediaType == .image)
        #expect(asset.playbackStyle == .image)
        #expect(asset.mimeType == "image/jpeg")
        #expect(asset.creationDate == date)
        #expect(asset.creationDateSource == "exif")
        #expect(asset.location == Location(latitude: 47.5, longitude: 8.25, altitude: 410))
        #expect(asset.isFavorite && !asset.isHidden && !asset.isDeleted)
        #expect(asset.pixelWidth == 4032 && asset.pixelHeight == 3024)
        #expect(asset.originalFilename == "IMG_0001.JPG")
        #expect(asset.byteCount == 3000)
        #expect(asset.sha256 == sha256Hex(try Data(contentsOf: source)))
        let stored = try #require(library.originalURL(for: asset))
        #expect(stored.path.hasPrefix(library.originalsURL.path + "/"))
        #expect(stored.lastPathComponent.hasSuffix(".jpg"))
        #expect(stored.deletingLastPathComponent().lastPathComponent.count == 2)
        #expect(try Data(contentsOf: stored) == Data(contentsOf: source))
        #expect(FileManager.default.fileExists(atPath: source.path), "copying keeps the source (PhotoKit's default)")
    }

    @Test("kinds: a .photo with image/gif is a GIF, a .video is a video; the default date is the file's mtime", arguments: CatalogBackend.all)
    func kinds(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let gif = try folder.write(TestFiles.gif, to: "anim.gif")
        let movie = try folder.write(TestFiles.distinctBytes(size: 500), to: "clip.MOV")
        let mtime = Date(timeIntervalSince1970: 1_500_000_000)
        try FileManager.default.setAttributes([.modificationDate: mtime], ofItemAtPath: movie.path)
        try await library.performChanges {
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: gif)
            let video = try AssetChangeRequest.creationRequestForAssetFromVideo(atFileURL: movie)
            video.duration = 12.5
        }
        let all = try Asset.fetchAssets(with: nil, library: library)
        #expect(all.count == 2)
        let gifAsset = try #require(all.first { $0.mimeType == "image/gif" })
        #expect(gifAsset.kind == "gif" && gifAsset.playbackStyle == .imageAnimated && gifAsset.mediaType == .image)
        #expect(try Data(contentsOf: #require(gifAsset.originalURL)) == TestFiles.gif, "GIF bytes stay untouched")
        let videoAsset = try #require(all.first { $0.mediaType == .video })
        #expect(videoAsset.kind == "video" && videoAsset.playbackStyle == .video)
        #expect(videoAsset.mimeType == "video/quicktime" && videoAsset.duration == 12.5)
        #expect(videoAsset.creationDate == mtime && videoAsset.creationDateSource == "fileModificationDate")
        #expect(videoAsset.originalURL?.pathExtension == "mov")
        #expect(try Asset.fetchAssets(with: .video, library: library).count == 1)
    }

    @Test("photodrop options: a given SHA-256 is trusted, MIME type and extension are used as given", arguments: CatalogBackend.all)
    func trustedOptions(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let source = try folder.write(TestFiles.distinctBytes(size: 100), to: "upload.bin")
        let claimed = String(repeating: "ab", count: 32)
        try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(
                with: .photo, fileURL: source,
                options: AssetResourceCreationOptions(
                    originalFilename: "Holiday.heic", mimeType: "image/heic", contentSHA256: claimed,
                    fileExtension: "heic"))
        }
        let asset = try #require(Asset.fetchAssets(with: nil, library: library).firstObject)
        #expect(asset.sha256 == claimed, "the library trusts contentSHA256 and does not re-hash")
        #expect(asset.mimeType == "image/heic")
        #expect(asset.primaryResource?.uniformTypeIdentifier == "public.heic")
        #expect(asset.originalFilename == "Holiday.heic")
        #expect(asset.originalURL?.pathExtension == "heic")
    }

    @Test("photodrop options: a given file status is trusted like the hash; its size and mtime are what is recorded", arguments: CatalogBackend.all)
    func trustedFileStatus(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let source = try folder.write(TestFiles.distinctBytes(size: 100), to: "upload.jpg")
        var info = stat()
        #expect(stat(source.path, &info) == 0)
        // What the caller saw while hashing: a different mtime than the file has now, so the test can tell whose
        // status the library recorded.
        let seen = Date(timeIntervalSince1970: 1_041_379_200.25)
        let status = ResourceFileStatus(
            byteCount: 100, device: UInt64(info.st_dev), inode: UInt64(info.st_ino), modificationDate: seen)
        try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(
                with: .photo, fileURL: source,
                options: AssetResourceCreationOptions(
                    shouldMoveFile: true, contentSHA256: String(repeating: "cd", count: 32), fileStatus: status))
        }
        let asset = try #require(Asset.fetchAssets(with: nil, library: library).firstObject)
        #expect(asset.creationDate == seen, "the default creation date is the mtime the caller saw")
        #expect(asset.byteCount == 100)
        let stored = try #require(asset.originalURL)
        var storedInfo = stat()
        #expect(stat(stored.path, &storedInfo) == 0 && storedInfo.st_ino == info.st_ino, "moved, not copied")
    }

    @Test("a given file status is trusted only in a folder nobody else can change: elsewhere a swapped name is caught", arguments: CatalogBackend.all)
    func givenStatusNotTrustedInSharedFolder(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let shared = folder.appending("shared")
        try FileManager.default.createDirectory(at: shared, withIntermediateDirectories: false)
        // Writable by everyone (as an upload folder shared between users is): anyone could swap a name in it.
        #expect(chmod(shared.path, 0o777) == 0)
        let hashed = shared.appendingPathComponent("upload.jpg")
        try TestFiles.distinctBytes(size: 100).write(to: hashed)
        var info = stat()
        #expect(stat(hashed.path, &info) == 0)
        let status = ResourceFileStatus(
            byteCount: 100, device: UInt64(info.st_dev), inode: UInt64(info.st_ino),
            modificationDate: Date(timeIntervalSince1970: 1_041_379_200), links: 1, owner: info.st_uid,
            group: info.st_gid, mode: info.st_mode)
        // After the hashing, before the placement, another file takes the name.
        #expect(rename(hashed.path, shared.appendingPathComponent("moved-away.jpg").path) == 0)
        let intruder = Data(repeating: 0x41, count: 100)
        try intruder.write(to: hashed)
        await #expect {
            try await library.performChanges {
                try AssetCreationRequest.forAsset().addResource(
                    with: .photo, fileURL: hashed,
                    options: AssetResourceCreationOptions(
                        shouldMoveFile: true, contentSHA256: String(repeating: "cd", count: 32), fileStatus: status))
            }
        } throws: { error in
            (error as? PhotosError)?.code == .invalidResource && "\(error)".contains("no longer the file that was read")
        }
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 0)
        #expect(try Data(contentsOf: hashed) == intruder, "the other file stays where it was, untouched")
    }

    @Test("a malformed contentSHA256 or a missing file fails the block with a message naming the file", arguments: CatalogBackend.all)
    func badResources(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let source = try folder.write(Data("x".utf8), to: "a.jpg")
        await #expect {
            try await library.performChanges {
                try AssetCreationRequest.forAsset().addResource(
                    with: .photo, fileURL: source, options: AssetResourceCreationOptions(contentSHA256: "ABC"))
            }
        } throws: { error in
            (error as? PhotosError)?.code == .invalidParameter && "\(error)".contains(source.path)
        }
        let missing = folder.appending("nope.jpg")
        await #expect {
            try await library.performChanges {
                _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: missing)
            }
        } throws: { error in
            (error as? PhotosError)?.code == .missingResource && "\(error)".contains(missing.path)
        }
        await #expect {
            try await library.performChanges { _ = try AssetCreationRequest.forAsset() }
        } throws: { error in
            (error as? PhotosError)?.code == .invalidResource
        }
        #expect(try Asset.fetchAssets(with: nil, library: library).isEmpty)
        #expect(TestFiles.originals(library).isEmpty)
    }

    @Test("originals fill one originals/xx folder 128 files at a time, across blocks; folders are made as needed", arguments: CatalogBackend.all)
    func originalsFolderLayout(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        // 300 files in blocks of 1, 7 and 50 files: without the count carried across blocks, each block would start
        // a folder of its own.
        var remaining = 300
        var file = 0
        for blockSize in [1, 7, 50, 1, 50, 50, 1, 50, 50, 40] {
            var sources: [URL] = []
            for _ in 0..<blockSize {
                sources.append(try folder.write(TestFiles.distinctBytes(size: 100 + file), to: "in/\(file).jpg"))
                file += 1
            }
            let block = sources
            try await library.performChanges {
                for source in block {
                    _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: source)
                }
            }
            remaining -= blockSize
        }
        #expect(remaining == 0)
        let stored = TestFiles.originals(library)
        #expect(stored.count == 300)
        var perFolder: [String: Int] = [:]
        for path in stored {
            let parts = path.split(separator: "/")
            #expect(parts.count == 2, "originals/xx/name: \(path)")
            let name = String(parts[0])
            #expect(name.count == 2 && name.allSatisfy(\.isHexDigit) && name == name.lowercased(), "\(path)")
            perFolder[name, default: 0] += 1
        }
        // 128 + 128 + 44 files: three runs, two of which may have drawn the same folder.
        #expect((1...3).contains(perFolder.count), "\(perFolder)")
        #expect(perFolder.values.allSatisfy { $0 % 128 == 0 || $0 % 128 == 44 }, "\(perFolder)")
        let made = try FileManager.default.contentsOfDirectory(atPath: library.originalsURL.path)
        #expect(made.count == perFolder.count, "only the folders in use exist: \(made.sorted())")
    }

    @Test("shouldMoveFile renames on one filesystem: the stored original is the same inode", arguments: CatalogBackend.all)
    func moveSameFilesystem(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let source = try folder.write(TestFiles.distinctBytes(size: 4096), to: "inbox/photo.jpg")
        let inode = try #require(TestFiles.inode(source))
        try await library.performChanges {
            try AssetCreationRequest.forAsset().addResource(
                with: .photo, fileURL: source, options: AssetResourceCreationOptions(shouldMoveFile: true))
        }
        #expect(!FileManager.default.fileExists(atPath: source.path))
        let asset = try #require(Asset.fetchAssets(with: nil, library: library).firstObject)
        #expect(TestFiles.inode(try #require(asset.originalURL)) == inode)
    }

    @Test("shouldMoveFile across filesystems (/dev/shm to the work disk) copies, syncs and removes the source", arguments: CatalogBackend.all)
    func moveAcrossFilesystems(backend: CatalogBackend) async throws {
        let shm = URL(fileURLWithPath: "/dev/shm")
        let folder = try TemporaryDirectory()
        guard FileManager.default.isWritableFile(atPath: shm.path) else {
            Issue.record("/dev/shm is not writable here; the cross-filesystem move cannot be tested")
            return
        }
        let source = try TemporaryDirectory("photocatalog-shm", in: shm)
        guard TestFiles.device(source.url) != TestFiles.device(folder.url) else {
            Issue.record("/dev/shm and \(folder.path) are on one filesystem here; nothing crosses filesystems")
            return
        }
        let library = try await folder.library(on: backend)
        let bytes = TestFiles.distinctBytes(size: 3 << 20)  // several copy_file_range/read rounds
        let moved = try source.write(bytes, to: "big.jpg")
        let copied = try source.write(TestFiles.distinctBytes(size: 1000), to: "kept.jpg")
        try await library.performChanges {
            try AssetCreationRequest.forAsset().addResource(
                with: .photo, fileURL: moved, options: AssetResourceCreationOptions(shouldMoveFile: true))
            _ = try AssetChangeRequest.creationRequestForAssetFromImage(atFileURL: copied)
        }
        #expect(!FileManager.default.fileExists(atPath: moved.path), "a moved source is removed after the commit")
        #expect(FileManager.default.fileExists(atPath: copied.path))
        let assets = try Asset.fetchAssets(with: nil, library: library)
        #expect(assets.count == 2)
        let big = try #require(assets.first { $0.byteCount == Int64(bytes.count) })
        #expect(try Data(contentsOf: #require(big.originalURL)) == bytes)
        #expect(TestFiles.device(try #require(big.originalURL)) == TestFiles.device(folder.url))
        #expect(!TestFiles.originals(library).contains { $0.hasSuffix(".partial") })
    }

    @Test("a photo with a paired video is one Live Photo asset with two stored resources", arguments: CatalogBackend.all)
    func livePhotoHasTwoResources(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let photo = try folder.write(TestFiles.distinctBytes(size: 2000), to: "IMG_0002.HEIC")
        let movie = try folder.write(TestFiles.distinctBytes(size: 5000), to: "IMG_0002.MOV")
        let identifier = Locked<String?>(nil)
        let report = try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: photo, options: nil)
            request.addResource(with: .pairedVideo, fileURL: movie, options: nil)
            identifier.value = request.placeholderForCreatedAsset?.localIdentifier
        }
        #expect(report.createdAssetCount == 1)
        #expect(report.assetCreations.first?.storedPaths.count == 2)
        let id = try #require(identifier.value)
        let asset = try #require(Asset.fetchAssets(withLocalIdentifiers: [id], library: library).firstObject)
        #expect(asset.mediaType == .image)
        #expect(asset.playbackStyle == .livePhoto)
        #expect(asset.mediaSubtypes.contains(.photoLive))
        #expect(asset.resources.map(\.type) == [.photo, .pairedVideo])
        #expect(asset.resources.map(\.originalFilename) == ["IMG_0002.HEIC", "IMG_0002.MOV"])
        for (resource, source) in zip(asset.resources, [photo, movie]) {
            #expect(try Data(contentsOf: resource.fileURL) == Data(contentsOf: source))
        }
        let live = try #require(
            AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .smartAlbumLivePhotos, library: library)
                .firstObject)
        #expect(try Asset.fetchAssets(in: live).map(\.localIdentifier) == [id])

        // A paired video beside a video instead of a photo is refused, and the block stores nothing.
        let otherMovie = try folder.write(TestFiles.distinctBytes(size: 6000), to: "clip.mov")
        let otherPair = try folder.write(TestFiles.distinctBytes(size: 7000), to: "pair.mov")
        await #expect(throws: PhotosError.self) {
            try await library.performChanges {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(with: .video, fileURL: otherMovie, options: nil)
                request.addResource(with: .pairedVideo, fileURL: otherPair, options: nil)
            }
        }
        #expect(try Asset.fetchAssets(with: nil, library: library).count == 1)
    }

    @Test("one asset of many files: RAW beside its JPEG, an edited rendition, adjustments and a sidecar", arguments: CatalogBackend.all)
    func secondaryResources(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let files = try [
            ("IMG_0001.JPG", AssetResourceType.photo), ("IMG_0001.CR2", .alternatePhoto),
            ("IMG_E0001.JPG", .fullSizePhoto), ("IMG_0001.AAE", .adjustmentData), ("IMG_0001.xmp", .sidecar),
        ].enumerated().map { index, entry in
            (try folder.write(TestFiles.distinctBytes(size: 1000 + index * 100), to: entry.0), entry.1)
        }
        #expect(AssetCreationRequest.supportsAssetResourceTypes(files.map(\.1)))
        #expect(!AssetCreationRequest.supportsAssetResourceTypes([.video, .alternatePhoto]))
        #expect(!AssetCreationRequest.supportsAssetResourceTypes([.photo, .video]))
        #expect(!AssetCreationRequest.supportsAssetResourceTypes([.sidecar]))
        #expect(AssetCreationRequest.supportsAssetResourceTypes([.video, .fullSizeVideo, .sidecar, .sidecar]))
        #expect(!AssetCreationRequest.supportsAssetResourceTypes([.photo, .pairedVideo, .pairedVideo]))
        let identifier = Locked<String?>(nil)
        try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            for (file, type) in files { request.addResource(with: type, fileURL: file, options: nil) }
            identifier.value = request.placeholderForCreatedAsset?.localIdentifier
        }
        let asset = try #require(
            try Asset.fetchAssets(withLocalIdentifiers: [identifier.value ?? ""], library: library).firstObject)
        #expect(asset.resources.map(\.type) == [.photo, .alternatePhoto, .fullSizePhoto, .adjustmentData, .sidecar])
        #expect(asset.resources.first?.originalFilename == "IMG_0001.JPG", "the primary resource first")
        #expect(asset.mediaSubtypes.names == ["rawAndJpeg", "edited"])
        #expect(asset.mediaType == .image && asset.playbackStyle == .image)
        #expect(try library.verify().isClean)

        // An edited video's rendition beside a photo is refused with a message that names the file.
        let photo = try folder.write(TestFiles.distinctBytes(size: 9000), to: "x.jpg")
        let clip = try folder.write(TestFiles.distinctBytes(size: 9100), to: "IMG_E0002.MOV")
        await #expect {
            try await library.performChanges {
                let request = try AssetCreationRequest.forAsset()
                request.addResource(with: .photo, fileURL: photo, options: nil)
                request.addResource(with: .fullSizeVideo, fileURL: clip, options: nil)
            }
        } throws: { ($0 as? PhotosError)?.message.contains("IMG_E0002.MOV") == true }
    }

    @Test("the camera's maker and model are stored with a new asset, and can be changed or cleared", arguments: CatalogBackend.all)
    func camera(backend: CatalogBackend) async throws {
        let folder = try TemporaryDirectory()
        let library = try await folder.library(on: backend)
        let files = try folder.makeFiles(2, prefix: "camera-")
        let report = try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: files[0], options: nil)
            request.cameraMake = "FUJIFILM"
            request.cameraModel = "X-T5"
            let plain = try AssetCreationRequest.forAsset()
            plain.addResource(with: .photo, fileURL: files[1], options: nil)
        }
        let identifiers = report.assetCreations.map(\.localIdentifier)
        let assets = try Asset.fetchAssets(withLocalIdentifiers: identifiers, library: library)
        let fuji = try #require(assets.first { $0.localIdentifier == identifiers[0] })
        #expect(fuji.cameraMake == "FUJIFILM" && fuji.cameraModel == "X-T5")
        let plain = try #require(assets.first { $0.localIdentifier == identifiers[1] })
        #expect(plain.cameraMake == nil && plain.cameraModel == nil)
        try await library.performChanges {
            let change = try AssetChangeRequest(for: fuji)
            change.cameraModel = "X-T5 (firmware 2)"
            change.cameraMake = nil
        }
        let changed = try #require(
            try Asset.fetchAssets(withLocalIdentifiers: [identifiers[0]], library: library).firstObject)
        #expect(changed.cameraMake == nil && changed.cameraModel == "X-T5 (firmware 2)")
    }
}
