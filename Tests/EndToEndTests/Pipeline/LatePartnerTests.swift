import Foundation
import TestFixtures
import Testing

/// A partner that arrives after its half was stored joins that asset: through two imports, and through a
/// running `watch` after the first half's wait ended.
@Suite(
    "Late partners through the real binary: the second half joins the stored asset",
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is not built next to the tests"),
    .requires(corpusFolder != nil, "../shared/corpus/dev is absent"),
    .requires(toolExists("/usr/bin/ffmpeg"), "ffmpeg is not installed here (.ci/run installs it)"),
    ProcessBudget.endToEnd, .timeLimit(.minutes(10)))
struct LatePartnerTests {
    private func assets(_ sandbox: Sandbox) async throws -> [[String: Any]] {
        try await sandbox.run(["assets", "--json"]).jsonLines()
    }

    private func resourceTypes(_ asset: [String: Any]) -> [String] {
        (asset["resources"] as? [[String: Any]] ?? []).compactMap { $0["type"] as? String }
    }

    /// Imports `drop/<name>` (one folder per step, all filing into album `Trip`) and returns the JSON summary.
    private func importStep(_ sandbox: Sandbox, _ name: String) async throws -> [String: Any] {
        let result = try await sandbox.run(["import", sandbox.root.appendingPathComponent(name).path, "--json"])
        #expect(result.status == 0, "\(result)")
        return try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
    }

    private func lastEvent(_ sandbox: Sandbox) async throws -> [String: Any] {
        try #require(try await sandbox.run(["events"]).jsonLines().last)
    }

    private func changed(_ event: [String: Any], _ change: String) -> [String] {
        ((event["assets"] as? [String: Any])?[change] as? [String]) ?? []
    }

    @Test("import: a Live Photo's movie after its photo, or its photo after its movie, joins the stored asset",
          arguments: [false, true])
    func livePhotoInTwoImports(movieFirst: Bool) async throws {
        let sandbox = try Sandbox("late-live")
        let photo = sandbox.root.appendingPathComponent("photo/Trip/IMG_5195.HEIC")
        try FileManager.default.createDirectory(
            at: photo.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try #require(LivePhoto.heic), to: photo)
        try await LivePhoto.makeMovie(at: sandbox.root.appendingPathComponent("movie/Trip/IMG_5195.MOV"))
        let (first, second) = movieFirst ? ("movie", "photo") : ("photo", "movie")
        let one = try await importStep(sandbox, first)
        #expect(one["imported"] as? Int == 1, "\(one)")
        let stored = try #require(try await assets(sandbox).first?["id"] as? String)
        let two = try await importStep(sandbox, second)
        #expect(two["imported"] as? Int == 0 && two["attached"] as? Int == 1, "\(two)")
        let item = try #require((two["items"] as? [[String: Any]])?.first)
        #expect(item["outcome"] as? String == "attached" && item["id"] as? String == stored, "\(item)")

        let all = try await assets(sandbox)
        #expect(all.count == 1)
        let asset = try #require(all.first)
        #expect(asset["id"] as? String == stored, "the stored asset keeps its identifier")
        #expect(resourceTypes(asset) == ["photo", "pairedVideo"])
        #expect(asset["kind"] as? String == "photo" && asset["mediaSubtypes"] as? [String] == ["livePhoto"])
        #expect(asset["originalFilename"] as? String == "IMG_5195.HEIC")
        #expect(asset["creationDateSource"] as? String == "exif", "the photo's own date, once it is the primary")
        let albums = try await sandbox.run(["albums", "--json"]).jsonLines()
        #expect(albums.first { $0["title"] as? String == "Live Photos" }?["count"] as? Int == 1)
        #expect(albums.first { $0["title"] as? String == "Videos" }?["count"] as? Int == 0)
        #expect(changed(try await lastEvent(sandbox), "updated") == [stored], "the history reports it updated")
        #expect(try await sandbox.run(["verify", "--deep"]).status == 0)

        // Both halves again: duplicates of the one asset, nothing added.
        let again = try await importStep(sandbox, first)
        #expect(again["duplicates"] as? Int == 1 && again["attached"] as? Int == 0, "\(again)")
        #expect(resourceTypes(try #require(try await assets(sandbox).first)).count == 2)
    }

    @Test("import: a RAW after its JPEG, or a JPEG after its RAW, becomes one RAW+JPEG asset", arguments: [false, true])
    func rawAndJpegInTwoImports(rawFirst: Bool) async throws {
        let sandbox = try Sandbox("late-raw")
        let raw = sandbox.root.appendingPathComponent("raw/Card/IMG_0001.CR2")
        try FileManager.default.createDirectory(at: raw.deletingLastPathComponent(), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: try #require(corpusFolder?.appendingPathComponent("CanonRaw.cr2")), to: raw)
        try sandbox.write("jpeg/Card/IMG_0001.JPG", SyntheticJPEG.bytes(seed: 1, taken: "2005:08:03 18:59:18"))
        // A JPEG of the same stem from another day (a second card) does not join.
        try sandbox.write("other/Card/IMG_0001.JPG", SyntheticJPEG.bytes(seed: 2, taken: "2019:01:01 10:00:00"))
        let (first, second) = rawFirst ? ("raw", "jpeg") : ("jpeg", "raw")
        _ = try await importStep(sandbox, first)
        let two = try await importStep(sandbox, second)
        #expect(two["attached"] as? Int == 1, "\(two)")
        let other = try await importStep(sandbox, "other")
        #expect(other["imported"] as? Int == 1 && other["attached"] as? Int == 0, "\(other)")
        let all = try await assets(sandbox)
        #expect(all.count == 2)
        let pair = try #require(all.first { resourceTypes($0).count == 2 })
        #expect(resourceTypes(pair) == ["photo", "alternatePhoto"])
        #expect(pair["originalFilename"] as? String == "IMG_0001.JPG")
        #expect(pair["mediaSubtypes"] as? [String] == ["rawAndJpeg"])
        #expect(try await sandbox.run(["verify"]).status == 0)
    }

    @Test("import: a sidecar, adjustments and an edited rendition after their photo join it; the XMP date wins")
    func sidecarsAfterTheirPhoto() async throws {
        let sandbox = try Sandbox("late-sidecar")
        try sandbox.write("photo/Trip/IMG_0007.JPG", SyntheticJPEG.bytes(seed: 7, taken: "2021:06:01 10:00:00"))
        _ = try await importStep(sandbox, "photo")
        let stored = try #require(try await assets(sandbox).first?["id"] as? String)
        try sandbox.write(
            "later/Trip/IMG_0007.xmp",
            Array("""
                <?xml version="1.0" encoding="UTF-8"?>
                <x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
                <rdf:Description xmlns:exif="http://ns.adobe.com/exif/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/"
                 exif:DateTimeOriginal="2021-06-01T09:00:00+02:00">
                 <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Corrected</rdf:li></rdf:Alt></dc:title>
                </rdf:Description></rdf:RDF></x:xmpmeta>
                """.utf8))
        try sandbox.write("later/Trip/IMG_0007.AAE", Array("<?xml version=\"1.0\"?><plist></plist>".utf8))
        try sandbox.write("later/Trip/IMG_E0007.JPG", SyntheticJPEG.bytes(seed: 70, taken: "2021:06:01 10:00:00"))
        let later = try await importStep(sandbox, "later")
        #expect(later["attached"] as? Int == 3 && later["imported"] as? Int == 0, "\(later)")
        #expect(((later["items"] as? [[String: Any]]) ?? []).allSatisfy { $0["id"] as? String == stored })
        let all = try await assets(sandbox)
        #expect(all.count == 1)
        let asset = try #require(all.first)
        #expect(resourceTypes(asset).sorted() == ["adjustmentData", "fullSizePhoto", "photo", "sidecar"])
        #expect(asset["mediaSubtypes"] as? [String] == ["edited"])
        #expect(asset["title"] as? String == "Corrected")
        #expect(asset["creationDateSource"] as? String == "sidecarXMP")
        #expect(asset["creationDate"] as? String == "2021-06-01T07:00:00.000Z")
        #expect(try await sandbox.run(["verify"]).status == 0)
    }

    @Test("watch: a Live Photo's movie arriving after its photo was committed joins it")
    func watchLateMovie() async throws {
        let sandbox = try Sandbox("late-watch", settings: ["pairWaitSeconds": 1])
        let movie = sandbox.root.appendingPathComponent("staging/IMG_5195.MOV")
        try await LivePhoto.makeMovie(at: movie)
        let daemon = try WatchDaemon(sandbox)
        try await daemon.waitUntilStarted()
        let album = try sandbox.inboxAlbum("Trip")
        try FileManager.default.copyItem(at: try #require(LivePhoto.heic), to: album.appendingPathComponent("IMG_5195.HEIC"))
        let first = try #require(await daemon.waitForOutcomes(1, timeout: 30).first, "\(daemon.log)")
        #expect(first["outcome"] as? String == "photo", "the photo is stored alone once its wait ended")
        try FileManager.default.moveItem(at: movie, to: album.appendingPathComponent("IMG_5195.MOV"))
        let outcomes = await daemon.waitForOutcomes(2, timeout: 30)
        _ = try await daemon.stop()
        let second = try #require(outcomes.last, "\(daemon.log)")
        #expect(second["outcome"] as? String == "attached" && second["id"] as? String == first["id"] as? String)
        let all = try await assets(sandbox)
        #expect(all.count == 1 && all.first.map(resourceTypes) == ["photo", "pairedVideo"])
        #expect(sandbox.inboxFiles.isEmpty && sandbox.stagedFiles.isEmpty)
    }
}
