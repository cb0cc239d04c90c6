import Foundation
import TestFixtures
import Testing

/// The gallery in a real browser: Debian's chromium, driven by chromedriver over WebDriver, against a real
/// `photodrop serve` and a real `photodrop watch` on one library.
@Suite(
    "photodrop serve: the gallery in chromium", .serialized, .timeLimit(.minutes(3)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"))
struct GalleryBrowserTests {
    static let token = "gallery-test-token-0123456789"

    @Test("thumbnails show; a drop appears without reload; the viewer opens; H.264 and HEVC play; a favourite lands in the library")
    func gallery() async throws {
        guard canRun(WebDriver.isAvailable, "chromium and chromium-driver (apt-get install chromium chromium-driver)"),
            canRun(Pillow.isAvailable, "python3 with Pillow (pip install Pillow)"),
            canRun(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg (apt-get install ffmpeg)")
        else { return }
        let sandbox = try Sandbox(
            "gallery", settings: ["serve": ["listen": "127.0.0.1:0", "token": Self.token], "pairWaitSeconds": 1])
        let drop = sandbox.root.appendingPathComponent("drop/Trip")
        try FileManager.default.createDirectory(at: drop, withIntermediateDirectories: true)
        let scratch = try TemporaryFolder("gallery-files")
        try Pillow.run(
            """
            camera = Image.Exif()
            camera[0x010F] = 'Canon'
            camera[0x0110] = 'EOS R5'
            for i, colour in enumerate([(200, 40, 40), (40, 160, 60), (40, 60, 200)]):
                Image.new('RGB', (800, 600), colour).save(out('photo-%d.jpg' % i), quality=90, exif=camera)
            Image.new('RGB', (800, 600), (230, 200, 30)).save(out('late.jpg'), quality=90)
            """, in: scratch)
        // How one of them was taken, and the words a photographer gave it, as ExifTool writes them.
        if canRun(MediaTools.hasExifTool, "exiftool (apt-get install libimage-exiftool-perl)") {
            try await MediaTools.exiftool(
                [
                    "-exif:FNumber=2.8", "-exif:ExposureTime=1/250", "-exif:ISO=400", "-exif:FocalLength=35",
                    "-xmp:Title=Green wall", "-iptc:Keywords=wall", "-xmp:Rating=4",
                ], on: scratch.url("photo-1.jpg"))
        }
        for index in 0..<3 {
            try FileManager.default.copyItem(
                atPath: scratch.url("photo-\(index).jpg"), toPath: drop.appendingPathComponent("photo-\(index).jpg").path)
        }
        func ffmpeg(_ arguments: [String]) async throws {
            let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-v", "error", "-y"] + arguments)
            #expect(result.status == 0, "\(result)")
        }
        try await ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx264", "-pix_fmt", "yuv420p",
            drop.appendingPathComponent("avc.mp4").path,
        ])
        try await ffmpeg([
            "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=4", "-c:v", "libx265", "-tag:v", "hvc1",
            "-pix_fmt", "yuv420p", drop.appendingPathComponent("hevc.mov").path,
        ])
        let imported = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path])
        #expect(imported.status == 0, "\(imported)")
        let assets = try await sandbox.run(["assets", "--json"]).jsonLines()
        func id(_ name: String) throws -> String {
            try #require(assets.first { $0["originalFilename"] as? String == name }?["id"] as? String)
        }

        let serve = try await ServeProcess(sandbox)
        let server = serve.process
        let address = try #require(serve.signInURL, "serve printed no sign-in address: \(server.stdout) \(server.stderr)")
        let browser = try await WebDriver(scratch: URL(fileURLWithPath: scratch.path))
        try await browser.navigate(address)
        #expect(
            try await browser.wait(20, until: "return document.querySelectorAll('.cell img').length === 5"),
            "the album's five thumbnails")
        #expect(try await browser.run("return location.search") as? String == "", "the token left the address bar")
        #expect(
            try await browser.wait(
                10,
                until: "return [...document.querySelectorAll('.cell img')].every(i => i.complete && i.naturalWidth > 0)"),
            "every thumbnail loaded")

        // A file dropped into the inbox while the page is open appears without a reload.
        _ = try await browser.run("window.photodropMarker = 42; return true")
        let daemon = try WatchDaemon(sandbox)
        try FileManager.default.createDirectory(
            at: sandbox.inbox.appendingPathComponent("Trip"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(
            atPath: scratch.url("late.jpg"), toPath: sandbox.inbox.appendingPathComponent("Trip/late.jpg").path)
        #expect(
            try await browser.wait(30, until: "return document.querySelectorAll('.cell').length === 6"),
            "the dropped photo appears: \(daemon.log.suffix(2000))")
        #expect(try await browser.run("return window.photodropMarker") as? Int == 42, "without a reload")

        // Clicking a photo opens the viewer with its preview; the favourite button changes the library.
        let photo = try id("photo-1.jpg")
        try await browser.click(".cell[data-id=\"\(photo)\"]")
        #expect(
            try await browser.wait(
                10, until: "const i = document.querySelector('#media img'); return !document.querySelector('#viewer').hidden && !!i && i.complete && i.naturalWidth > 0"),
            "the viewer shows the preview")
        let info = try await browser.run("return document.querySelector('#info').textContent") as? String ?? ""
        #expect(info.contains("photo-1.jpg") && info.contains("Canon EOS R5"), "the metadata names the camera: \(info)")
        let details = try await browser.run("return document.querySelector('#details').textContent") as? String ?? ""
        #expect(
            details.contains("f/2.8") && details.contains("1/250 s") && details.contains("ISO 400")
                && details.contains("35 mm"), "the viewer shows the exposure: \(details)")
        let words = try await browser.run("return document.querySelector('#words').textContent") as? String ?? ""
        #expect(words.contains("Green wall") && words.contains("#wall") && words.contains("★★★★"), "\(words)")
        let shownCamera = try await sandbox.run(["show", photo, "--json"]).jsonObject()
        #expect(shownCamera["cameraMake"] as? String == "Canon" && shownCamera["cameraModel"] as? String == "EOS R5")
        try await browser.click("#favorite")
        var favourite = false
        for _ in 0..<50 where !favourite {
            favourite = try await sandbox.run(["show", photo, "--json"]).jsonObject()["isFavorite"] as? Bool == true
            if !favourite { await pause(100_000) }
        }
        #expect(favourite, "the favourite set in the page shows in photodrop show")
        try await browser.click("#close")

        // An H.264 video plays as it is; an HEVC one through its playable version.
        for (name, through) in [("avc.mp4", "/original"), ("hevc.mov", "/video")] {
            let video = try id(name)
            try await browser.click(".cell[data-id=\"\(video)\"]")
            let playing = try await browser.wait(
                30, until: "const v = document.querySelector('#media video'); return !!v && v.currentTime > 0.5")
            let state = try await browser.run(
                "const v = document.querySelector('#media video'); return v ? [v.currentSrc, v.currentTime, v.error && v.error.message].join(' ') : 'no video'")
            #expect(playing, "\(name) plays (its currentTime advances): \(state ?? "")")
            if through == "/video" {
                #expect((state as? String)?.contains("/video") == true, "\(state ?? "")")
            }
            try await browser.click("#close")
        }
        await browser.quit()
        try await daemon.stop()
        try await server.stop()
    }
}
