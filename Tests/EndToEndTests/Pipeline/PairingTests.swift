import Foundation
import TestFixtures
import Testing

/// A real iPhone Live Photo's still (the corpus's HEIC, content identifier 570F1469-…) and a movie ffmpeg makes with
/// the same identifier in its QuickTime metadata keys, as the iPhone writes it.
enum LivePhoto {
    static let identifier = "570F1469-09C7-4E50-9875-05F21D5BD166"
    static var heic: URL? { corpusFolder?.appendingPathComponent("IMG_5195.HEIC") }

    static func makeMovie(at url: URL, identifier: String = identifier) async throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let result = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/ffmpeg"),
            [
                "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=64x64:rate=10", "-t", "1", "-c:v", "libx264",
                "-pix_fmt", "yuv420p", "-tag:v", "avc1", "-movflags", "use_metadata_tags", "-metadata",
                "com.apple.quicktime.content.identifier=\(identifier)", "-metadata",
                "com.apple.quicktime.creationdate=2021-04-11T15:47:54-0500", url.path,
            ])
        guard result.status == 0 else { throw HarnessError("ffmpeg failed: \(result.stderr)") }
    }

    /// `count` movies made from one ffmpeg movie, each with its own content identifier (`identifier(index)`, as long
    /// as the template's): the identifier is rewritten in place, so one ffmpeg run makes them all.
    static func makeMovies(count: Int, into folder: URL, name: (Int) -> String, identifier: (Int) -> String)
        async throws -> [URL]
    {
        let placeholder = "00000000-0000-4000-8000-000000000000"
        let template = folder.appendingPathComponent(".template.mov")
        try await makeMovie(at: template, identifier: placeholder)
        let bytes = try Data(contentsOf: template)
        try FileManager.default.removeItem(at: template)
        guard let range = bytes.range(of: Data(placeholder.utf8)) else {
            throw HarnessError("ffmpeg's movie does not carry the content identifier as written")
        }
        return try (0..<count).map { index in
            let text = Data(identifier(index).utf8)
            guard text.count == placeholder.utf8.count else { throw HarnessError("identifier of another length") }
            var movie = bytes
            movie.replaceSubrange(range, with: text)
            let url = folder.appendingPathComponent(name(index))
            try movie.write(to: url)
            return url
        }
    }
}

@Suite(
    "Pairing through the real binary: Live Photos, RAW+JPEG, sidecars; either order; the wait; kill -9",
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"),
    .requires(corpusFolder != nil, "../shared/corpus/dev is absent"),
    .requires(toolExists("/usr/bin/ffmpeg"), "ffmpeg is not installed here (.ci/run installs it)"),
    ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct PairingTests {
    /// The one asset's JSON, after checking there is exactly one.
    private func onlyAsset(_ sandbox: Sandbox) async throws -> [String: Any] {
        let items = try await sandbox.run(["assets", "--json"]).jsonLines()
        #expect(items.count == 1, "\(items.map { $0["originalFilename"] ?? "?" })")
        return try #require(items.first)
    }

    private func resourceTypes(_ asset: [String: Any]) -> [String] {
        (asset["resources"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
    }

    @Test("import: a Live Photo, its XMP sidecar and its Takeout JSON become one asset in the Live Photos album")
    func importLivePhoto() async throws {
        let sandbox = try Sandbox("pair-import")
        let folder = sandbox.root.appendingPathComponent("drop/Trip")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try #require(LivePhoto.heic), to: folder.appendingPathComponent("IMG_5195.HEIC"))
        try await LivePhoto.makeMovie(at: folder.appendingPathComponent("IMG_5195.MOV"))
        try sandbox.write(
            "drop/Trip/IMG_5195.xmp",
            Array("""
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
                 xmp:Rating="5"><dc:title><rdf:Alt><rdf:li xml:lang="x-default">Kansas City</rdf:li></rdf:Alt></dc:title>
                 <dc:subject><rdf:Bag><rdf:li>spring</rdf:li><rdf:li>family</rdf:li></rdf:Bag></dc:subject>
                </rdf:Description></rdf:RDF></x:xmpmeta>
                """.utf8))
        try sandbox.write(
            "drop/Trip/IMG_5195.HEIC.supplemental-metadata.json",
            Array(#"{"title": "IMG_5195.HEIC", "description": "Easter", "photoTakenTime": {"timestamp": "1618174073"}}"#.utf8))
        // A dry run reports the pairs it would make, and stores nothing.
        let dry = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path, "--dry-run"])
        #expect(dry.status == 0, "\(dry)")
        #expect(dry.stdout.contains("/drop/Trip/IMG_5195.MOV\twould be stored with IMG_5195.HEIC as its pairedVideo"), "\(dry)")
        #expect(dry.stdout.contains("attached\t"), "\(dry)")
        #expect(dry.stdout.contains("new photo\t") && dry.stdout.contains("/drop/Trip/IMG_5195.HEIC\t→ Trip"), "\(dry)")
        let imported = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path, "--json"])
        #expect(imported.status == 0, "\(imported)")
        let summary = try #require(
            try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])
        #expect(summary["imported"] as? Int == 1 && summary["attached"] as? Int == 3, "\(summary)")
        let items = try #require(summary["items"] as? [[String: Any]])
        #expect(items.filter { $0["outcome"] as? String == "attached" }.count == 3)

        let asset = try await onlyAsset(sandbox)
        #expect(resourceTypes(asset).sorted() == ["pairedVideo", "photo", "sidecar", "sidecar"])
        #expect(asset["mediaSubtypes"] as? [String] == ["livePhoto"])
        #expect(asset["isFavorite"] as? Bool == true, "the XMP rating 5")
        #expect(asset["rating"] as? Int == 5 && asset["title"] as? String == "Kansas City")
        #expect(asset["keywords"] as? [String] == ["spring", "family"])
        #expect(asset["caption"] as? String == "Easter", "Takeout's description, the XMP having none")
        #expect(asset["creationDateSource"] as? String == "exif", "the camera's date outranks Takeout's")
        let albums = try await sandbox.run(["albums", "--json"]).jsonLines()
        #expect(albums.first { $0["title"] as? String == "Live Photos" }?["count"] as? Int == 1)
        #expect(try await sandbox.run(["verify"]).status == 0)

        // The same files again: duplicates, no new asset or resource.
        let again = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path, "--json"])
        let second = try #require(try JSONSerialization.jsonObject(with: Data(again.stdout.utf8)) as? [String: Any])
        #expect(second["imported"] as? Int == 0 && second["duplicates"] as? Int == 4, "\(second)")
        #expect(resourceTypes(try await onlyAsset(sandbox)).count == 4)
    }

    @Test("watch: the movie first or the photo first, seconds apart, make one Live Photo", arguments: [true, false])
    func watchEitherOrder(movieFirst: Bool) async throws {
        let sandbox = try Sandbox("pair-watch", settings: ["pairWaitSeconds": 20])
        let movie = sandbox.root.appendingPathComponent("staging/IMG_5195.MOV")
        try await LivePhoto.makeMovie(at: movie)
        let photo = sandbox.root.appendingPathComponent("staging/IMG_5195.HEIC")
        try FileManager.default.copyItem(at: try #require(LivePhoto.heic), to: photo)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = try sandbox.inboxAlbum("Trip")
        let (first, second) = movieFirst ? (movie, photo) : (photo, movie)
        try FileManager.default.moveItem(at: first, to: album.appendingPathComponent(first.lastPathComponent))
        try await Task.sleep(for: .seconds(2))
        #expect(daemon.outcomes.isEmpty, "the first half waits for its partner: \(daemon.outcomes)")
        // `status` counts it.
        var partners: Int?
        #expect(
            await eventually(timeout: 10) {
                let status = try? await sandbox.run(["status", "--json"])
                let object = status.flatMap { try? JSONSerialization.jsonObject(with: Data($0.stdout.utf8)) }
                partners = (object as? [String: Any])?["waitingForPartner"] as? Int
                return partners == 1
            }, "waitingForPartner: \(String(describing: partners))")
        try FileManager.default.moveItem(at: second, to: album.appendingPathComponent(second.lastPathComponent))
        let outcomes = await daemon.waitForOutcomes(2, timeout: 30)
        #expect(Set(outcomes.compactMap { $0["outcome"] as? String }) == ["photo", "attached"], "\(daemon.log)")
        _ = try await daemon.stop()
        let asset = try await onlyAsset(sandbox)
        #expect(resourceTypes(asset) == ["photo", "pairedVideo"])
        #expect(asset["originalFilename"] as? String == "IMG_5195.HEIC")
        #expect(sandbox.inboxFiles.isEmpty)
    }

    @Test("watch: RAW+JPEG dropped together become one asset whose photo is the JPEG; rawAndJpeg separate keeps two",
          arguments: ["pair", "separate"])
    func rawAndJpeg(policy: String) async throws {
        let sandbox = try Sandbox("pair-raw", settings: ["pairWaitSeconds": 5, "rawAndJpeg": policy])
        let staging = sandbox.root.appendingPathComponent("staging")
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try #require(corpusFolder?.appendingPathComponent("CanonRaw.cr2")),
            to: staging.appendingPathComponent("IMG_0001.CR2"))
        try sandbox.write("staging/IMG_0001.JPG", SyntheticJPEG.bytes(seed: 1, taken: "2005:08:03 18:59:18"))
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = try sandbox.inboxAlbum("Card")
        for name in ["IMG_0001.CR2", "IMG_0001.JPG"] {
            try FileManager.default.moveItem(
                at: staging.appendingPathComponent(name), to: album.appendingPathComponent(name))
        }
        #expect(await daemon.waitForOutcomes(2, timeout: 30).count == 2, "\(daemon.log)")
        _ = try await daemon.stop()
        let items = try await sandbox.run(["assets", "--json"]).jsonLines()
        if policy == "pair" {
            #expect(items.count == 1)
            #expect(items.first.map(resourceTypes) == ["photo", "alternatePhoto"])
            #expect(items.first?["originalFilename"] as? String == "IMG_0001.JPG")
            #expect(items.first?["mediaSubtypes"] as? [String] == ["rawAndJpeg"])
        } else {
            #expect(items.count == 2)
        }
    }

    @Test("watch: a photo and its XMP sidecar moved in together are stored at once, not after pairWaitSeconds")
    func sidecarTogether() async throws {
        // A wait far longer than the test's own deadline: the pair must not wait for it.
        let sandbox = try Sandbox("pair-sidecar", settings: ["pairWaitSeconds": 300])
        let folder = sandbox.root.appendingPathComponent("staging/Walk")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(SyntheticJPEG.bytes(seed: 7, taken: "2021:04:11 10:00:00")).write(to: folder.appendingPathComponent("DSC_0042.JPG"))
        try Data(
            """
            <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
            <rdf:Description xmlns:xmp="http://ns.adobe.com/xap/1.0/" xmp:Rating="4"/></rdf:RDF></x:xmpmeta>
            """.utf8
        ).write(to: folder.appendingPathComponent("DSC_0042.JPG.xmp"))
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        // One rename, as `mv Walk Inbox/` does: both files are in the folder when it is found.
        try FileManager.default.moveItem(at: folder, to: sandbox.inbox.appendingPathComponent("Walk"))
        let outcomes = await daemon.waitForOutcomes(2, timeout: 90)
        #expect(outcomes.count == 2, "\(daemon.log)")
        _ = try await daemon.stop()
        let asset = try await onlyAsset(sandbox)
        #expect(resourceTypes(asset) == ["photo", "sidecar"], "\(asset)")
    }

    @Test("a sidecar whose media never comes is rejected as orphanSidecar, naming what it looked for")
    func orphanSidecar() async throws {
        let sandbox = try Sandbox("pair-orphan", settings: ["pairWaitSeconds": 1])
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        try Data(#"{"photoTakenTime": {"timestamp": "1618174073"}}"#.utf8)
            .write(to: sandbox.inboxAlbum("Trip").appendingPathComponent("lost.jpg.json"))
        let outcome = try #require(await daemon.waitForOutcomes(1, timeout: 30).first)
        _ = try await daemon.stop()
        #expect(outcome["outcome"] as? String == "rejected" && outcome["reason"] as? String == "orphanSidecar")
        #expect((outcome["detail"] as? String)?.contains("'lost.jpg'") == true, "\(outcome)")
        #expect(sandbox.files(under: sandbox.rejected).contains { $0.hasSuffix("lost.jpg.json") })
    }

    @Test("kill -9 while the photo waits: after a restart, the movie still finds it, and nothing is lost")
    func killDuringWait() async throws {
        let sandbox = try Sandbox("pair-kill", settings: ["pairWaitSeconds": 30])
        let movie = sandbox.root.appendingPathComponent("staging/IMG_5195.MOV")
        try await LivePhoto.makeMovie(at: movie)
        let album = try sandbox.inboxAlbum("Trip")
        let first = try WatchDaemon(sandbox)
        try await first.waitUntilStarted()
        try FileManager.default.copyItem(at: try #require(LivePhoto.heic), to: album.appendingPathComponent("IMG_5195.HEIC"))
        // Claimed into the staging folder, waiting for its movie.
        #expect(await eventually(timeout: 20) { sandbox.stagedFiles.count == 1 }, "\(first.log)")
        try await Task.sleep(for: .milliseconds(500))
        first.kill9()
        _ = try await first.waitForExit(afterSignal: SIGKILL, timeout: 20)
        let second = try WatchDaemon(sandbox)
        try await second.waitUntilStarted()
        try FileManager.default.moveItem(at: movie, to: album.appendingPathComponent("IMG_5195.MOV"))
        #expect(await second.waitForOutcomes(2, timeout: 40).count == 2, "\(second.log)")
        _ = try await second.stop()
        let asset = try await onlyAsset(sandbox)
        #expect(resourceTypes(asset) == ["photo", "pairedVideo"])
        #expect(sandbox.stagedFiles.isEmpty && sandbox.inboxFiles.isEmpty)
    }

    @Test("probe: files named together say what they would pair with; a sidecar that pairs is attached, not rejected")
    func probeReportsPairs() async throws {
        let sandbox = try Sandbox("pair-probe")
        let folder = sandbox.root.appendingPathComponent("drop")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try #require(LivePhoto.heic), to: folder.appendingPathComponent("IMG_5195.HEIC"))
        try await LivePhoto.makeMovie(at: folder.appendingPathComponent("IMG_5195.MOV"))
        try sandbox.write("drop/IMG_5195.HEIC.xmp", Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"/>"#.utf8))
        try sandbox.write("drop/lone.xmp", Array(#"<x:xmpmeta xmlns:x="adobe:ns:meta/"/>"#.utf8))
        let result = try await sandbox.run(["probe", "--json", folder.path])
        let items = try result.jsonLines()
        func item(_ name: String) -> [String: Any]? { items.first { ($0["path"] as? String)?.hasSuffix("/" + name) == true } }
        let photo = try #require(item("IMG_5195.HEIC"))
        let partners = ((photo["pairing"] as? [String: Any])?["with"] as? [[String: Any]]) ?? []
        #expect(Set(partners.compactMap { $0["as"] as? String }) == ["pairedVideo", "sidecar"], "\(photo)")
        let movie = try #require(item("IMG_5195.MOV"))
        #expect(movie["outcome"] as? String == "attached")
        #expect((movie["pairing"] as? [String: Any])?["as"] as? String == "pairedVideo")
        #expect(((movie["pairing"] as? [String: Any])?["joins"] as? String)?.hasSuffix("/IMG_5195.HEIC") == true)
        #expect(item("IMG_5195.HEIC.xmp")?["outcome"] as? String == "attached")
        #expect(item("lone.xmp")?["outcome"] as? String == "rejected", "a sidecar without its media is not accepted")
        #expect(result.status == 1, "one file is rejected")
        let text = try await sandbox.run(["probe", folder.path])
        #expect(text.stdout.contains("joins       \(folder.path)/IMG_5195.HEIC, as its pairedVideo"), "\(text)")
    }

    @Test("a Takeout album's metadata.json describes its album: import, and watch (which removes the file once applied)")
    func takeoutAlbumMetadata() async throws {
        let sandbox = try Sandbox("takeout-album")
        let json = #"{"title": "Trip 2019", "description": "Two weeks in the Alps", "access": "protected"}"#
        try sandbox.write("drop/Trip/metadata.json", Array(json.utf8))
        try sandbox.write("drop/Trip/IMG_0001.JPG", SyntheticJPEG.bytes(seed: 11, taken: "2019:07:01 10:00:00"))
        let imported = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path, "--json"])
        let summary = try #require(try JSONSerialization.jsonObject(with: Data(imported.stdout.utf8)) as? [String: Any])
        #expect(summary["imported"] as? Int == 1 && summary["attached"] as? Int == 1 && summary["rejected"] as? Int == 0,
                "\(summary)")
        var albums = try await sandbox.run(["albums", "--json"]).jsonLines()
        #expect(albums.first { $0["title"] as? String == "Trip" }?["description"] as? String == "Two weeks in the Alps")
        #expect(FileManager.default.fileExists(atPath: sandbox.root.appendingPathComponent("drop/Trip/metadata.json").path))

        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        // Before any photo of its album: the album is made for it.
        try Data(#"{"title": "Beach", "description": "Summer"}"#.utf8)
            .write(to: sandbox.inboxAlbum("Beach").appendingPathComponent("metadata.json"))
        try Data("{not json".utf8).write(to: sandbox.inboxAlbum("Broken").appendingPathComponent("metadata.json"))
        let outcomes = await daemon.waitForOutcomes(2, timeout: 30)
        _ = try await daemon.stop()
        #expect(Set(outcomes.compactMap { $0["outcome"] as? String }) == ["attached", "rejected"], "\(daemon.log)")
        albums = try await sandbox.run(["albums", "--json"]).jsonLines()
        #expect(albums.first { $0["title"] as? String == "Beach" }?["description"] as? String == "Summer")
        #expect(!sandbox.inboxFiles.contains { $0.hasPrefix("Beach/") }, "applied, then removed: \(sandbox.inboxFiles)")
        #expect(sandbox.files(under: sandbox.rejected).contains { $0.hasSuffix("metadata.json") })
    }

    @Test("import: a Pixel motion photo stays one photo, with the subtype motionPhoto")
    func motionPhoto() async throws {
        let sandbox = try Sandbox("motion")
        let folder = sandbox.root.appendingPathComponent("drop")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            at: try #require(corpusFolder?.appendingPathComponent("pixel-motion-photo-shortened.jpg")),
            to: folder.appendingPathComponent("PXL_20201217_100300000.MP.jpg"))
        #expect(try await sandbox.run(["import", folder.path]).status == 0)
        let asset = try await onlyAsset(sandbox)
        #expect(asset["kind"] as? String == "photo" && asset["mediaSubtypes"] as? [String] == ["motionPhoto"])
        #expect(resourceTypes(asset) == ["photo"])
    }
}
