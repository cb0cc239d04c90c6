import Foundation
import PhotoCatalog
import PhotoImageManager
import PhotodropSystem
import Rendering
import TestFixtures
import Testing

/// The image manager over a real library, with real render helpers (`photodrop render-helper`, started by the tests
/// as photodrop starts them): stored derivatives, other sizes served from them or from the original, delivery modes,
/// and a helper that crashes or hangs.
@Suite(
    "Image manager and render helper", .timeLimit(.minutes(3)),
    .requires(Pillow.isAvailable, "python3 with Pillow (pip install Pillow)"))
struct ImageManagerTests {
    let folder: TemporaryFolder
    let library: PhotoLibrary

    init() throws {
        folder = try TemporaryFolder("image-manager")
        library = PhotoLibrary(url: URL(fileURLWithPath: folder.url("Library")))
    }

    /// A 3000 × 2000 photo, red on its left half and blue on its right, stored as an asset.
    private func storeLandscape(_ name: String = "landscape.jpg", shade: Int = 0) async throws -> String {
        try Pillow.run(
            """
            img = Image.new('RGB', (3000, 2000), (200, \(40 + shade), 40))
            img.paste((40, 60, 200), (1500, 0, 3000, 2000))
            img.save(out('\(name)'), quality=92)
            """, in: folder)
        return try await store(folder.url(name))
    }

    private func store(_ path: String, as type: AssetResourceType = .photo) async throws -> String {
        let identifier = Locked<String?>(nil)
        try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: type, fileURL: URL(fileURLWithPath: path), options: nil)
            identifier.value = request.placeholderForCreatedAsset?.localIdentifier
        }
        return try #require(identifier.value)
    }

    private func near(_ seen: (Double, Double, Double), _ expected: (Double, Double, Double), levels: Double = 8) -> Bool {
        abs(seen.0 - expected.0) <= levels && abs(seen.1 - expected.1) <= levels && abs(seen.2 - expected.2) <= levels
    }

    @Test("stored derivatives are made on demand; sizes are served from the nearest one large enough, or the original")
    func sizesAndSources() async throws {
        let id = try await storeLandscape()
        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let manager = ImageManager(library: library, pool: pool)
        #expect(try library.derivatives(ofAsset: id).isEmpty)

        // A grid cell: the stored thumbnail itself, made (with the preview) by this first request and recorded.
        let small = try manager.image(for: id, targetSize: PixelSize(width: 512, height: 512), contentMode: .aspectFit)
        #expect(small.origin == "thumbnail" && small.mimeType == "image/webp")
        #expect((small.pixelWidth, small.pixelHeight) == (512, 341))
        #expect(try library.derivatives(ofAsset: id).map(\.kind) == [.thumbnail, .preview])

        // 1,000 × 1,000, exactly: resized from the preview; the colours are the photo's.
        let exact = try manager.image(
            for: id, targetSize: PixelSize(width: 1000, height: 1000), contentMode: .aspectFit,
            options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact))
        #expect(exact.origin == "resized" && (exact.pixelWidth, exact.pixelHeight) == (1000, 667))
        let seen = try Pillow.read(exact.data, as: "exact.jpg", in: folder)
        #expect(seen.size == (1000, 667))
        #expect(near(seen.mean(0, 0, 0.4, 1), (200, 40, 40)), "\(seen.mean(0, 0, 0.4, 1))")
        #expect(near(seen.mean(0.6, 0, 0.4, 1), (40, 60, 200)), "\(seen.mean(0.6, 0, 0.4, 1))")

        // Fill a square: cropped to the centre, half red, half blue.
        let square = try manager.image(
            for: id, targetSize: PixelSize(width: 300, height: 300), contentMode: .aspectFill,
            options: ImageRequestOptions(resizeMode: .exact, format: .webp))
        #expect((square.pixelWidth, square.pixelHeight) == (300, 300) && square.mimeType == "image/webp")

        // .fast takes the preview as it is when the target is within a quarter of it.
        let fast = try manager.image(for: id, targetSize: PixelSize(width: 1300, height: 1300), contentMode: .aspectFit)
        #expect(fast.origin == "preview" && fast.pixelWidth == 1440)

        // The largest picture: decoded from the original.
        let full = try manager.image(for: id, targetSize: .maximum, contentMode: .aspectFit)
        #expect((full.pixelWidth, full.pixelHeight) == (3000, 2000))

        // A crop of the right half shows only blue.
        let crop = try manager.image(
            for: id, targetSize: PixelSize(width: 400, height: 400), contentMode: .aspectFit,
            options: ImageRequestOptions(resizeMode: .exact, normalizedCropRect: NormalizedRect(x: 0.5, y: 0, width: 0.5, height: 1)))
        let cropped = try Pillow.read(crop.data, as: "crop.jpg", in: folder)
        #expect(cropped.size == (crop.pixelWidth, crop.pixelHeight) && crop.pixelHeight == 400)
        #expect(abs(crop.pixelWidth - 300) <= 1, "a 1500 × 2000 part fitted in 400 × 400: \(crop.pixelWidth)")
        #expect(near(cropped.mean(0, 0, 1, 1), (40, 60, 200)), "\(cropped.mean(0, 0, 1, 1))")

        #expect(throws: ImageManagerError.noSuchAsset("00000000-0000-4000-8000-000000000000/L0/001")) {
            try manager.image(
                for: "00000000-0000-4000-8000-000000000000/L0/001", targetSize: PixelSize(width: 10, height: 10),
                contentMode: .aspectFit)
        }
        #expect(throws: ImageManagerError.self) {
            try manager.image(
                for: id, targetSize: PixelSize(width: 10, height: 10), contentMode: .aspectFit,
                options: ImageRequestOptions(normalizedCropRect: NormalizedRect(x: 0.8, y: 0, width: 0.5, height: 1)))
        }
    }

    @Test("opportunistic delivery: the degraded thumbnail first, then the final picture; a cancelled request says so")
    func deliveryModes() async throws {
        let id = try await storeLandscape()
        let asset = try #require(Asset.fetchAssets(withLocalIdentifiers: [id], library: library).firstObject)
        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let manager = ImageManager(library: library, pool: pool)
        let results = Locked<[(ImageResult?, ImageResultInfo)]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            manager.requestImage(
                for: asset, targetSize: PixelSize(width: 1000, height: 1000), contentMode: .aspectFit,
                options: ImageRequestOptions(deliveryMode: .opportunistic, resizeMode: .exact)
            ) { image, info in
                results.withLock { $0.append((image, info)) }
                if !info.isDegraded { done.resume() }
            }
        }
        let delivered = results.withLock { $0 }
        #expect(delivered.count == 2)
        #expect(delivered.first?.1.isDegraded == true && delivered.first?.0?.origin == "thumbnail")
        #expect(delivered.last?.1.isDegraded == false && delivered.last?.0?.pixelWidth == 1000)
        #expect(delivered.map(\.1.requestID).allSatisfy { $0 == delivered[0].1.requestID })

        // Only the final picture with .highQualityFormat.
        let quality = Locked<[ImageResultInfo]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            manager.requestImage(
                for: asset, targetSize: PixelSize(width: 800, height: 800), contentMode: .aspectFit,
                options: ImageRequestOptions(deliveryMode: .highQualityFormat, resizeMode: .exact)
            ) { _, info in
                quality.withLock { $0.append(info) }
                done.resume()
            }
        }
        #expect(quality.withLock { $0.map(\.isDegraded) } == [false])

        // Cancelled before it ran: the handler hears so, without a picture.
        let cancelled = Locked<(ImageResult?, ImageResultInfo)?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            let gate = DispatchSemaphore(value: 0)
            let requestID = manager.requestImage(
                for: asset, targetSize: .maximum, contentMode: .aspectFit,
                options: ImageRequestOptions(deliveryMode: .highQualityFormat)
            ) { image, info in
                gate.wait()
                cancelled.withLock { $0 = (image, info) }
                done.resume()
            }
            manager.cancelImageRequest(requestID)
            gate.signal()
        }
        #expect(cancelled.withLock { $0?.1.isCancelled } == true)
        #expect(cancelled.withLock { $0?.0 } == nil)
    }

    @Test("a file the decoder cannot read gets a recorded failure and stays stored; a crash and a hang are survived")
    func failuresCrashesAndTimeouts() async throws {
        let good = try await storeLandscape()
        // JPEG by name and type, garbage inside: the catalog stores what it is given; only decoding finds out.
        try Data((0..<4000).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: URL(fileURLWithPath: folder.url("broken.jpg")))
        let broken = try await store(folder.url("broken.jpg"))
        // A file that makes the helper crash. No real file is known to crash Debian's libvips, so the helper is
        // started with a test-only marker that makes it raise SIGSEGV on files that begin with it.
        try Data("CRASH-ME-NOW".utf8 + [0xFF, 0xD8, 0xFF]).write(to: URL(fileURLWithPath: folder.url("crash.jpg")))
        let crashing = try await store(folder.url("crash.jpg"))

        let pool = RenderPool(size: 1, environment: ["PHOTODROP_RENDER_TEST_CRASH_MARKER": "CRASH-ME-NOW"])
        defer { pool.stop() }
        let maker = DerivativeMaker(library: library, pool: pool)
        let sources = try [good, broken, crashing, good].map { try #require(try library.derivativeSource(ofAsset: $0)) }
        let outcomes = try maker.makeAndWait(sources)
        #expect(outcomes[0] == .made && outcomes[3] == .made)
        guard case .failed(let decodeError) = outcomes[1], case .failed(let crashError) = outcomes[2] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(decodeError.contains("not an image") || decodeError.contains("decoded"), "\(decodeError)")
        #expect(crashError.contains("crashed") && crashError.contains("signal 11"), "\(crashError)")
        #expect(pool.starts == 2, "restarted once, after the crash")
        #expect(try library.derivatives(ofAsset: crashing).allSatisfy { $0.file == nil && $0.failure == crashError })
        #expect(try library.derivatives(ofAsset: broken).count == 2)
        #expect(try library.derivativeSources(.missing, after: 0, limit: 10).sources.isEmpty, "failures count as made")

        // The manager reports the recorded failure instead of trying again.
        let manager = ImageManager(library: library, pool: pool)
        #expect(throws: ImageManagerError.undecodable(crashError)) {
            try manager.image(for: crashing, targetSize: PixelSize(width: 100, height: 100), contentMode: .aspectFit)
        }

        // A helper that takes longer than its time limit is killed; the next file gets a new one.
        let helper = RenderHelper()
        defer { helper.stop() }
        let original = try library.openOriginal(sources[0])
        let request = RenderRequest(
            outputs: [.init(width: 3000, height: 3000, mimeType: "image/jpeg", quality: 95)], mimeType: "image/jpeg")
        #expect(throws: RenderError.timedOut(seconds: 0)) {
            try helper.render(request, descriptor: original, timeout: .microseconds(1))
        }
        #expect(helper.processID == nil, "the stopped helper is gone")
        let again = try helper.render(request, descriptor: original, timeout: .seconds(60))
        #expect(again.pictures.first.map { ($0.width, $0.height) } ?? (0, 0) == (3000, 2000))
        #expect(helper.starts == 2)
    }

    @Test("stored pictures read ahead: made when missing, kept under their versioned key with the file's bytes")
    func cachingStoredPictures() async throws {
        let id = try await storeLandscape("warm.jpg")
        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let manager = CachingImageManager(library: library, pool: pool, memoryLimit: 4 << 20)
        manager.startCachingStoredPictures(.preview, of: [id, "00000000-0000-0000-0000-000000000000/L0/001"], generation: 7)
        #expect(await eventually(timeout: 30) { manager.cachedCount.pictures == 1 })
        let preview = try #require(try library.derivatives(ofAsset: id).first { $0.kind == .preview }?.file)
        let key = CachingImageManager.storedPictureKey(
            of: id, kind: .preview, version: String(preview.sha256.prefix(CachingImageManager.storedVersionLength)))
        let entry = try #require(manager.pictures.entry(key))
        let kept = try #require(entry.answer as? KeptImage)
        #expect(entry.checked == 7 && entry.file == preview)
        #expect(kept.result.data == (try Data(contentsOf: preview.fileURL)), "the stored file's bytes, as they are")
    }

    @Test("the caching manager prepares pictures ahead, answers from memory, forgets on request, stays in its bound")
    func caching() async throws {
        let ids = [try await storeLandscape("a.jpg"), try await storeLandscape("b.jpg", shade: 30)]
        let assets = try Asset.fetchAssets(withLocalIdentifiers: ids, library: library).map { $0 }
        #expect(assets.count == 2)
        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let manager = CachingImageManager(library: library, pool: pool, memoryLimit: 1 << 20)
        let size = PixelSize(width: 200, height: 200)
        let options = ImageRequestOptions(resizeMode: .exact)
        manager.startCachingImages(for: assets, targetSize: size, contentMode: .aspectFill, options: options)
        #expect(await eventually(timeout: 30) { manager.cachedCount.pictures == 2 })
        // Asked again for what is cached already (nothing to do), then for another size: that is prepared too.
        manager.startCachingImages(for: assets, targetSize: size, contentMode: .aspectFill, options: options)
        manager.startCachingImages(
            for: [assets[1]], targetSize: PixelSize(width: 120, height: 120), contentMode: .aspectFill, options: options)
        #expect(await eventually(timeout: 30) { manager.cachedCount.pictures == 3 })
        manager.stopCachingImages(
            for: [assets[1]], targetSize: PixelSize(width: 120, height: 120), contentMode: .aspectFill, options: options)

        // Answered from memory: the files it was made from are gone.
        for id in ids {
            for derivative in try library.derivatives(ofAsset: id) {
                if let file = derivative.file { try FileManager.default.removeItem(at: file.fileURL) }
            }
        }
        try FileManager.default.removeItem(at: try #require(assets[0].originalURL))
        let cached = try manager.image(for: ids[0], targetSize: size, contentMode: .aspectFill, options: options)
        #expect((cached.pixelWidth, cached.pixelHeight) == (200, 200))

        manager.stopCachingImages(for: [assets[0]], targetSize: size, contentMode: .aspectFill, options: options)
        #expect(manager.cachedCount.pictures == 1)
        #expect(throws: ImageManagerError.self) {
            try manager.image(for: ids[0], targetSize: size, contentMode: .aspectFill, options: options)
        }
        manager.stopCachingImagesForAllAssets()
        #expect(manager.cachedCount == (0, 0))

        // A small bound keeps only what fits; without high quality only stored pictures are cached.
        let small = CachingImageManager(library: library, pool: pool, memoryLimit: 30_000)
        small.allowsCachingHighQualityImages = false
        small.startCachingImages(for: [assets[1]], targetSize: PixelSize(width: 1000, height: 1000), contentMode: .aspectFit)
        #expect(await eventually(timeout: 30) { small.cachedCount.pictures == 1 })
        #expect(small.cachedCount.bytes <= 30_000)
        for width in [100, 150, 250, 300, 350] {
            _ = try small.image(
                for: ids[1], targetSize: PixelSize(width: width, height: width), contentMode: .aspectFit,
                options: ImageRequestOptions(resizeMode: .exact))
            #expect(small.cachedCount.bytes <= 30_000)
        }
    }

    @Test("a RAW shows its largest embedded JPEG, turned by the RAW's orientation, or its sensor data developed by LibRaw")
    func rawPreview() async throws {
        try Pillow.run(
            """
            img = Image.new('RGB', (1600, 1200), (210, 50, 40))
            img.paste((40, 70, 210), (800, 0, 1600, 1200))
            img.save(out('preview.jpg'), quality=90)
            Image.new('RGB', (160, 120), (0, 255, 0)).save(out('thumb.jpg'))
            """, in: folder)
        let preview = try Data(contentsOf: URL(fileURLWithPath: folder.url("preview.jpg")))
        let thumbnail = try Data(contentsOf: URL(fileURLWithPath: folder.url("thumb.jpg")))
        // Orientation 6, as a camera held upright writes it: the stored left side is the top of the picture.
        try SyntheticRAW.tiff(preview: preview, thumbnail: thumbnail, width: 1600, height: 1200, orientation: 6)
            .write(to: URL(fileURLWithPath: folder.url("IMG_0001.dng")))
        let raw = try await store(folder.url("IMG_0001.dng"))
        // A RAW whose preview was cut away (as in ExifTool's samples): nothing to show, and it says so.
        try SyntheticRAW.tiff(
            preview: Data([0xFF, 0xD8, 0xFF, 0xD9]), thumbnail: Data([0xFF, 0xD8, 0xFF, 0xD9]), width: 1600,
            height: 1200, orientation: 1
        ).write(to: URL(fileURLWithPath: folder.url("IMG_0002.dng")))
        let bare = try await store(folder.url("IMG_0002.dng"))
        // Sensor data only, turned by orientation 6: developed by LibRaw. And sensor data beside a JPEG too small
        // for a preview (160 × 120, green, as older cameras write): developed too, not the small JPEG enlarged.
        try SyntheticRAW.dng(width: 800, height: 600, left: (0.6, 0.05, 0.03), right: (0.03, 0.06, 0.6), orientation: 6)
            .write(to: URL(fileURLWithPath: folder.url("IMG_0003.dng")))
        let sensor = try await store(folder.url("IMG_0003.dng"))
        try SyntheticRAW.dng(
            width: 800, height: 600, left: (0.6, 0.05, 0.03), right: (0.03, 0.06, 0.6), orientation: 1,
            thumbnail: thumbnail
        ).write(to: URL(fileURLWithPath: folder.url("IMG_0004.dng")))
        let small = try await store(folder.url("IMG_0004.dng"))

        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let maker = DerivativeMaker(library: library, pool: pool)
        let outcomes = try maker.makeAndWait(
            [raw, bare, sensor, small].map { try #require(try library.derivativeSource(ofAsset: $0)) })
        #expect(outcomes[0] == .made && outcomes[2] == .made && outcomes[3] == .made, "\(outcomes)")
        guard case .failed(let message) = outcomes[1] else {
            Issue.record("\(outcomes)")
            return
        }
        #expect(
            message.contains("no embedded JPEG preview") && message.contains("cannot be developed"), "\(message)")
        let developed = try #require(try library.derivatives(ofAsset: sensor).first { $0.kind == .preview }?.file)
        #expect((developed.pixelWidth, developed.pixelHeight) == (600, 800), "upright: portrait, never enlarged")
        let sensorSeen = try Pillow.read(try Data(contentsOf: developed.fileURL), as: "sensor.jpg", in: folder)
        let (top, bottom) = (sensorSeen.mean(0, 0, 1, 0.4), sensorSeen.mean(0, 0.6, 1, 0.4))
        #expect(top.0 > top.1 + 80 && top.0 > top.2 + 80, "the left half, red, on top: \(top)")
        #expect(bottom.2 > bottom.0 + 80 && bottom.2 > bottom.1 + 60, "the right half, blue, below: \(bottom)")
        let beside = try #require(try library.derivatives(ofAsset: small).first { $0.kind == .preview }?.file)
        #expect((beside.pixelWidth, beside.pixelHeight) == (800, 600), "the sensor's size, not the 160 × 120 JPEG")
        let besideSeen = try Pillow.read(try Data(contentsOf: beside.fileURL), as: "small.jpg", in: folder)
        #expect(besideSeen.mean(0, 0, 0.4, 1).0 > besideSeen.mean(0, 0, 0.4, 1).1 + 80, "red, not the green JPEG")
        let stored = try #require(try library.derivatives(ofAsset: raw).last?.file)
        #expect((stored.pixelWidth, stored.pixelHeight) == (1080, 1440), "upright: portrait")
        let seen = try Pillow.read(try Data(contentsOf: stored.fileURL), as: "raw.jpg", in: folder)
        #expect(near(seen.mean(0, 0, 1, 0.4), (210, 50, 40)), "top: \(seen.mean(0, 0, 1, 0.4))")
        #expect(near(seen.mean(0, 0.6, 1, 0.4), (40, 70, 210)), "bottom: \(seen.mean(0, 0.6, 1, 0.4))")
    }

    @Test(
        "a 10-bit PQ HEIC (BT.2020) is tone-mapped like ffmpeg's zscale + tonemap of the same pixels, not shown raw",
        .requires(HDRPhoto.isAvailable, "heif-enc (apt-get install libheif-examples)"),
        .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg (apt-get install ffmpeg)"))
    func hdrPhoto() async throws {
        let made = try HDRPhoto.make("hdr", width: 640, height: 320, in: folder)
        let id = try await store(made.heic)
        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let outcomes = try DerivativeMaker(library: library, pool: pool)
            .makeAndWait([try #require(try library.derivativeSource(ofAsset: id))])
        #expect(outcomes == [.made])
        let preview = try #require(try library.derivatives(ofAsset: id).first { $0.kind == .preview }?.file)
        #expect((preview.pixelWidth, preview.pixelHeight) == (640, 320), "never enlarged")
        // The reference: libheif's own heif-convert decodes the HEIC to a 16-bit PNG, and ffmpeg maps that, labelled
        // as the HEIC is, with the steps photodrop uses. The raw rendering is the PQ values shown as if they were sRGB.
        let decoded = try ProcessRunner.runBlocking(
            URL(fileURLWithPath: "/usr/bin/heif-convert"), [made.heic, folder.url("decoded.png")])
        #expect(decoded.status == 0, "\(decoded)")
        let chain =
            "setparams=color_trc=smpte2084:color_primaries=bt2020:colorspace=gbr:range=pc,format=gbrp16le,"
            + "zscale=t=linear:npl=100,format=gbrpf32le,zscale=p=bt709,tonemap=tonemap=hable:desat=0,"
            + "zscale=t=iec61966-2-1,format=gbrp"
        let reference = try ProcessRunner.runBlocking(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            ["-v", "error", "-y", "-i", folder.url("decoded.png"), "-vf", chain, "-pix_fmt", "rgb24",
             folder.url("mapped.png")])
        #expect(reference.status == 0, "\(reference)")
        let ours = try Pillow.read(try Data(contentsOf: preview.fileURL), as: "ours.jpg", in: folder)
        let mapped = try Pillow.read(
            try Data(contentsOf: URL(fileURLWithPath: folder.url("mapped.png"))), as: "m.png", in: folder)
        let raw = try Pillow.read(try Data(contentsOf: URL(fileURLWithPath: made.png)), as: "raw.png", in: folder)
        for (index, (a, b)) in zip(ours.cells, mapped.cells).enumerated() {
            #expect(near(a, b, levels: 6), "cell \(index): \(a) vs ffmpeg's \(b)")
        }
        let apart = zip(ours.cells, raw.cells).map { abs($0.0 - $1.0) + abs($0.1 - $1.1) + abs($0.2 - $1.2) }
        #expect(apart.reduce(0, +) / Double(apart.count * 3) > 10, "tone-mapped, not the PQ values as they are")
        // The grey ramp rises to white (1,000 nits), the orange ramp stays orange.
        let ramp = (0..<8).map { ours.cells[8 + $0].0 }
        #expect(zip(ramp, ramp.dropFirst()).allSatisfy { $0 < $1 } && ramp[7] > 235, "\(ramp)")
        let orange = ours.mean(0.75, 0.5, 0.25, 0.5)
        #expect(orange.0 > orange.1 + 40 && orange.1 > orange.2 + 20, "orange: \(orange)")
    }

    @Test("a Windows bitmap is decoded by FFmpeg's BMP decoder; one whose header claims 50,000 × 50,000 is refused")
    func bitmap() async throws {
        try Pillow.run(
            """
            img = Image.new('RGB', (300, 500), (200, 40, 40))
            img.paste((40, 60, 200), (0, 250, 300, 500))
            img.save(out('portrait.bmp'))
            """, in: folder)
        var bomb = [UInt8](try Data(contentsOf: URL(fileURLWithPath: folder.url("portrait.bmp"))))
        for (at, value) in [(18, 50_000), (22, 50_000)] {
            for byte in 0..<4 { bomb[at + byte] = UInt8(value >> (8 * byte) & 0xFF) }
        }
        try Data(bomb).write(to: URL(fileURLWithPath: folder.url("bomb.bmp")))
        let portrait = try await store(folder.url("portrait.bmp"))
        let refused = try await store(folder.url("bomb.bmp"))
        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let outcomes = try DerivativeMaker(library: library, pool: pool)
            .makeAndWait([portrait, refused].map { try #require(try library.derivativeSource(ofAsset: $0)) })
        #expect(outcomes[0] == .made, "\(outcomes)")
        guard case .failed(let message) = outcomes[1] else {
            Issue.record("the bomb must be refused: \(outcomes)")
            return
        }
        #expect(message.contains("50000") || message.contains("50,000"), "\(message)")
        let preview = try #require(try library.derivatives(ofAsset: portrait).first { $0.kind == .preview }?.file)
        #expect((preview.pixelWidth, preview.pixelHeight) == (300, 500))
        let seen = try Pillow.read(try Data(contentsOf: preview.fileURL), as: "bmp.jpg", in: folder)
        #expect(near(seen.mean(0, 0, 1, 0.4), (200, 40, 40)), "top: \(seen.mean(0, 0, 1, 0.4))")
        #expect(near(seen.mean(0, 0.6, 1, 0.4), (40, 60, 200)), "bottom: \(seen.mean(0, 0.6, 1, 0.4))")
    }

    @Test("image data with its orientation, a video's file and codecs, a Live Photo's two halves")
    func mediaRequests() async throws {
        try skipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg (apt-get install ffmpeg)")
        try Pillow.run(
            """
            img = Image.new('RGB', (400, 300), (90, 120, 150))
            exif = img.getexif()
            exif[0x0112] = 6
            img.save(out('turned.jpg'), exif=exif)
            """, in: folder)
        let photo = try await store(folder.url("turned.jpg"))
        let movie = URL(fileURLWithPath: folder.url("clip.mov"))
        let made = try ProcessRunner.runBlocking(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=128x96:rate=10", "-t", "2", "-c:v", "libx264",
                "-pix_fmt", "yuv420p", "-tag:v", "avc1", movie.path,
            ])
        #expect(made.status == 0, "\(made)")
        let video = try await store(movie.path, as: .video)
        // A Live Photo: the photo with its movie as pairedVideo.
        try Data(try Data(contentsOf: URL(fileURLWithPath: folder.url("turned.jpg"))) + Data([0])).write(
            to: URL(fileURLWithPath: folder.url("live.jpg")))
        let liveMade = try ProcessRunner.runBlocking(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=96x128:rate=10", "-t", "1", "-c:v", "libx264",
                "-pix_fmt", "yuv420p", "-tag:v", "avc1", folder.url("live.mov"),
            ])
        #expect(liveMade.status == 0, "\(liveMade)")
        let live = Locked<String?>(nil)
        try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: URL(fileURLWithPath: self.folder.url("live.jpg")), options: nil)
            request.addResource(
                with: .pairedVideo, fileURL: URL(fileURLWithPath: self.folder.url("live.mov")), options: nil)
            live.value = request.placeholderForCreatedAsset?.localIdentifier
        }
        let livePhoto = try #require(live.value)

        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let manager = ImageManager(library: library, pool: pool)
        let (data, source, orientation) = try manager.imageData(of: photo)
        #expect(data == (try Data(contentsOf: URL(fileURLWithPath: folder.url("turned.jpg")))))
        #expect(orientation == 6 && source.uniformTypeIdentifier == "public.jpeg")
        let asset = try #require(try Asset.fetchAssets(withLocalIdentifiers: [photo], library: library).firstObject)
        let delivered = Locked<(Int, String?)?>(nil)
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            manager.requestImageDataAndOrientation(for: asset) { data, type, orientation, _ in
                delivered.withLock { $0 = (orientation, type) }
                #expect(data?.count == Int(source.byteCount))
                done.resume()
            }
        }
        #expect(delivered.withLock { $0?.0 } == 6)

        let file = try manager.videoFile(of: video)
        #expect(file.videoCodec == "avc1" && (file.pixelWidth, file.pixelHeight) == (128, 96))
        #expect(abs(file.duration - 2) < 0.2 && FileManager.default.fileExists(atPath: file.fileURL.path))
        #expect(throws: ImageManagerError.self) { try manager.videoFile(of: photo) }

        let pair = try manager.livePhoto(of: livePhoto, targetSize: PixelSize(width: 100, height: 100), contentMode: .aspectFit)
        #expect(pair.photo.pixelWidth == 75 && pair.photo.pixelHeight == 100, "upright: \(pair.photo.pixelWidth)")
        #expect(pair.video.videoCodec == "avc1")
        #expect(throws: ImageManagerError.self) {
            try manager.livePhoto(of: photo, targetSize: PixelSize(width: 100, height: 100), contentMode: .aspectFit)
        }
    }

    @Test("a video's poster: past a black start, upright by the display matrix, colours kept; a broken video recorded")
    func videoPosters() async throws {
        try skipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg (apt-get install ffmpeg)")
        func ffmpeg(_ arguments: [String]) throws {
            let result = try ProcessRunner.runBlocking(URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-v", "error", "-y"] + arguments)
            #expect(result.status == 0, "\(result)")
        }
        // Three seconds: black for the first two (the poster's target, 10 % in, is black), then green.
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=black:s=320x240:r=10:d=2", "-f", "lavfi", "-i", "color=c=0x20C040:s=320x240:r=10:d=1",
            "-filter_complex", "[0][1]concat=n=2:v=1", "-c:v", "libx264", "-pix_fmt", "yuv420p", folder.url("dark.mp4"),
        ])
        // Stored landscape, red left and blue right, then given a display matrix (a remux: an encode would turn the
        // pixels instead). ffmpeg's own auto-rotated frame is the reference for which way is up.
        try ffmpeg([
            "-f", "lavfi", "-i", "color=c=0xD03020:s=160x96:r=10:d=2", "-f", "lavfi", "-i", "color=c=0x2040D0:s=160x96:r=10:d=2",
            "-filter_complex", "[0]crop=80:96:0:0[l];[1]crop=80:96:0:0[r];[l][r]hstack", "-c:v", "libx264",
            "-pix_fmt", "yuv420p", folder.url("flat.mov"),
        ])
        try ffmpeg(["-i", folder.url("flat.mov"), "-c", "copy", "-metadata:s:v:0", "rotate=90", folder.url("turned.mov")])
        try ffmpeg(["-ss", "0.2", "-i", folder.url("turned.mov"), "-frames:v", "1", folder.url("reference.png")])
        let reference = try Pillow.read(
            try Data(contentsOf: URL(fileURLWithPath: folder.url("reference.png"))), as: "reference.png", in: folder)
        #expect(reference.size == (96, 160), "ffmpeg shows it portrait: \(reference.size)")
        try Data(try Data(contentsOf: URL(fileURLWithPath: folder.url("dark.mp4"))).prefix(600)).write(
            to: URL(fileURLWithPath: folder.url("cut.mp4")))
        let dark = try await store(folder.url("dark.mp4"), as: .video)
        let turned = try await store(folder.url("turned.mov"), as: .video)
        let cut = try await store(folder.url("cut.mp4"), as: .video)
        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let outcomes = try DerivativeMaker(library: library, pool: pool).makeAndWait(
            [dark, turned, cut].map { try #require(try library.derivativeSource(ofAsset: $0)) })
        #expect(outcomes[0] == .made && outcomes[1] == .made, "\(outcomes)")
        guard case .failed = outcomes[2] else {
            Issue.record("a cut-off video must fail and be recorded: \(outcomes[2])")
            return
        }
        let poster = try #require(try library.derivatives(ofAsset: dark).last?.file)
        #expect((poster.pixelWidth, poster.pixelHeight) == (320, 240))
        let seen = try Pillow.read(try Data(contentsOf: poster.fileURL), as: "dark.jpg", in: folder)
        #expect(near(seen.mean(0, 0, 1, 1), (32, 192, 64), levels: 12), "not the black start: \(seen.mean(0, 0, 1, 1))")

        let upright = try #require(try library.derivatives(ofAsset: turned).last?.file)
        #expect((upright.pixelWidth, upright.pixelHeight) == (96, 160), "portrait")
        let turnedSeen = try Pillow.read(try Data(contentsOf: upright.fileURL), as: "turned.jpg", in: folder)
        for (y, part) in [(0.0, "top"), (0.6, "bottom")] {
            #expect(
                near(turnedSeen.mean(0, y, 1, 0.4), reference.mean(0, y, 1, 0.4), levels: 14),
                "\(part): \(turnedSeen.mean(0, y, 1, 0.4)), ffmpeg: \(reference.mean(0, y, 1, 0.4))")
        }
        #expect(!near(turnedSeen.mean(0, 0, 1, 0.4), turnedSeen.mean(0, 0.6, 1, 0.4), levels: 40), "two colours")
    }

    @Test("a playable version of HEVC: H.264, at most 720p, sound kept, made once; H.264 plays as it is; Live Photo motion at ingest")
    func playableVideos() async throws {
        try skipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg (apt-get install ffmpeg)")
        func ffmpeg(_ arguments: [String]) throws {
            let result = try ProcessRunner.runBlocking(URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-v", "error", "-y"] + arguments)
            #expect(result.status == 0, "\(result)")
        }
        func probe(_ path: String) throws -> [String] {
            let result = try ProcessRunner.runBlocking(
                URL(fileURLWithPath: "/usr/bin/ffprobe"),
                ["-v", "error", "-show_entries", "stream=codec_name,width,height", "-of", "csv=p=0", path])
            return result.lines
        }
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=25:duration=2", "-f", "lavfi", "-i",
            "sine=frequency=440:duration=2", "-c:v", "libx265", "-tag:v", "hvc1", "-pix_fmt", "yuv420p", "-c:a", "aac",
            folder.url("hevc.mov"),
        ])
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=1", "-c:v", "libx264", "-pix_fmt", "yuv420p",
            folder.url("avc.mp4"),
        ])
        try ffmpeg([
            "-f", "lavfi", "-i", "testsrc=size=480x640:rate=15:duration=2", "-c:v", "libx265", "-tag:v", "hvc1",
            "-pix_fmt", "yuv420p", folder.url("motion.mov"),
        ])
        try Pillow.run("Image.new('RGB', (480, 640), (10, 120, 200)).save(out('still.jpg'))", in: folder)
        let hevc = try await store(folder.url("hevc.mov"), as: .video)
        let avc = try await store(folder.url("avc.mp4"), as: .video)
        let live = Locked<String?>(nil)
        try await library.performChanges {
            let request = try AssetCreationRequest.forAsset()
            request.addResource(with: .photo, fileURL: URL(fileURLWithPath: self.folder.url("still.jpg")), options: nil)
            request.addResource(
                with: .pairedVideo, fileURL: URL(fileURLWithPath: self.folder.url("motion.mov")), options: nil)
            live.value = request.placeholderForCreatedAsset?.localIdentifier
        }
        let livePhoto = try #require(live.value)

        let pool = RenderPool(size: 1)
        defer { pool.stop() }
        let manager = ImageManager(library: library, pool: pool)
        let played = try manager.playableVideo(of: hevc)
        #expect(played.fileURL.path.contains("/derivatives/") && played.videoCodec == "avc1")
        #expect((played.pixelWidth, played.pixelHeight) == (1280, 720))
        let streams = try probe(played.fileURL.path)
        #expect(streams.contains("h264,1280,720") && streams.contains("aac"), "\(streams)")
        let again = try manager.playableVideo(of: hevc)
        #expect(again.fileURL == played.fileURL, "made once, then recorded")
        #expect(try library.derivatives(ofAsset: hevc).contains { $0.kind == .playableVideo && $0.file != nil })

        let original = try manager.playableVideo(of: avc)
        #expect(original.fileURL.path.contains("/originals/"), "H.264 plays as it is")

        // Ingest: the Live Photo's pictures, and its HEVC motion made playable right away.
        let outcomes = try manager.maker.makeAndWait([try #require(try library.derivativeSource(ofAsset: livePhoto))])
        #expect(outcomes == [.made])
        let motion = try #require(try library.derivatives(ofAsset: livePhoto).first { $0.kind == .playableVideo }?.file)
        #expect(try probe(motion.fileURL.path).contains("h264,480,640"))
        #expect(try manager.playableVideo(of: livePhoto, livePhotoMotion: true).fileURL == motion.fileURL)
        #expect(try library.verify().isClean)
    }
}
