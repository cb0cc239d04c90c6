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

    /// The grid's rows: no sideways scrollbar; every full row reaches the right edge (no empty strip); the pictures of
    /// a row are as high as each other.
    private func checkLayout(_ browser: WebDriver, label: String) async throws {
        let report = try await browser.run(
            """
            const grid = document.querySelector('#grid');
            const width = document.querySelector('#spacer').clientWidth;
            const rows = new Map();
            for (const cell of document.querySelectorAll('.cell')) {
              const r = cell.getBoundingClientRect();
              const key = Math.round(r.top);
              if (!rows.has(key)) rows.set(key, []);
              rows.get(key).push(r);
            }
            const left = document.querySelector('#spacer').getBoundingClientRect().left;
            const out = { sideways: grid.scrollWidth > grid.clientWidth, width, rows: [] };
            for (const [top, boxes] of rows) {
              const right = Math.max(...boxes.map(b => b.right)) - left;
              const heights = boxes.map(b => Math.round(b.height));
              out.rows.push({ top, right: Math.round(right), heights, count: boxes.length });
            }
            return JSON.stringify(out);
            """) as? String ?? "{}"
        let layout = try #require(try JSONSerialization.jsonObject(with: Data(report.utf8)) as? [String: Any])
        #expect(layout["sideways"] as? Bool == false, "\(label): a sideways scrollbar \(report)")
        let width = try #require(layout["width"] as? Int)
        for row in (layout["rows"] as? [[String: Any]]) ?? [] {
            let heights = (row["heights"] as? [Int]) ?? []
            #expect(Set(heights).count == 1, "\(label): one height per row \(report)")
            let right = row["right"] as? Int ?? 0
            #expect(right <= width + 1, "\(label): a row wider than the grid \(report)")
            // A full row ends at the right edge; one that is not (the last of a day) keeps the aimed-at height.
            #expect(abs(right - width) <= 1 || heights.first == 180, "\(label): a gap at the right \(report)")
        }
    }

    @Test("thumbnails show; a drop appears without reload; the viewer opens; H.264 and HEVC play; a favourite lands in the library")
    func gallery() async throws {
        try skipUnless(WebDriver.isAvailable, "chromium and chromium-driver (apt-get install chromium chromium-driver)")
        try skipUnless(Pillow.isAvailable, "python3 with Pillow (pip install Pillow)")
        try skipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg (apt-get install ffmpeg)")
        let sandbox = try Sandbox(
            "gallery", settings: ["serve": ["listen": "127.0.0.1:0", "token": Self.token], "pairWaitSeconds": 1])
        let drop = sandbox.root.appendingPathComponent("drop/Trip")
        try FileManager.default.createDirectory(at: drop, withIntermediateDirectories: true)
        let scratch = try TemporaryFolder("gallery-files")
        try Pillow.run(
            #"""
            camera = Image.Exif()
            camera[0x010F] = 'Canon'
            camera[0x0110] = 'EOS R5'
            for i, colour in enumerate([(200, 40, 40), (40, 160, 60), (40, 60, 200)]):
                Image.new('RGB', (800, 600), colour).save(out('photo-%d.jpg' % i), quality=90, exif=camera)
            Image.new('RGB', (800, 600), (230, 200, 30)).save(out('late.jpg'), quality=90)
            # Two more days, in portrait and panorama: the grid's rows keep each picture's shape.
            when = Image.Exif()
            when[0x8769] = {0x9003: '2023:05:01 12:00:00'}
            Image.new('RGB', (600, 900), (90, 90, 90)).save(out('tall.jpg'), quality=90, exif=when)
            when[0x8769] = {0x9003: '2023:04:01 12:00:00'}
            Image.new('RGB', (1600, 500), (120, 80, 40)).save(out('wide.jpg'), quality=90, exif=when)
            Image.new('RGB', (700, 500), (5, 5, 90)).save(out('lonely.jpg'), quality=90)
            # A JPEG whose frame and scan headers are sound and whose image data is noise: accepted (its header
            # says what it is), but no decoder can make a picture of it.
            import random
            Image.new('RGB', (640, 480), (10, 200, 200)).save(out('sound.jpg'), quality=90)
            data = open(out('sound.jpg'), 'rb').read()
            scan = data.index(b'\xff\xda')
            header = scan + 2 + (data[scan + 2] << 8 | data[scan + 3])
            rng = random.Random(7)
            noise = bytes(rng.choice([b for b in range(256) if b != 0xff]) for _ in range(len(data) - header - 2))
            open(out('noise.jpg'), 'wb').write(data[:header] + noise + b'\xff\xd9')
            """#, in: scratch)
        // How one of them was taken, and the words a photographer gave it, as ExifTool writes them.
        try skipUnless(MediaTools.hasExifTool, "exiftool (apt-get install libimage-exiftool-perl)")
        do {
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
        let other = sandbox.root.appendingPathComponent("drop/Days")
        try FileManager.default.createDirectory(at: other, withIntermediateDirectories: true)
        for name in ["tall.jpg", "wide.jpg", "noise.jpg"] {
            try FileManager.default.copyItem(atPath: scratch.url(name), toPath: other.appendingPathComponent(name).path)
        }
        let lonely = sandbox.root.appendingPathComponent("drop/Lonely")
        try FileManager.default.createDirectory(at: lonely, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: scratch.url("lonely.jpg"), toPath: lonely.appendingPathComponent("one.jpg").path)
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
        // The noise JPEG is stored, and its thumbnail is a recorded failure (exit status 1 says so).
        #expect(imported.stdout.contains("Imported 9"), "\(imported)")
        let albumList = try await sandbox.run(["albums", "--json"]).jsonLines()
        func albumID(_ title: String) throws -> String {
            String(try #require(albumList.first { $0["title"] as? String == title }?["id"] as? String).prefix(36))
        }
        let assets = try await sandbox.run(["assets", "--json"]).jsonLines()
        func id(_ name: String) throws -> String {
            try #require(assets.first { $0["originalFilename"] as? String == name }?["id"] as? String)
        }

        let serve = try await ServeProcess(sandbox)
        let server = serve.process
        let address = try #require(serve.signInURL, "serve printed no sign-in address: \(server.stdout) \(server.stderr)")
        let browser = try await WebDriver(scratch: URL(fileURLWithPath: scratch.path))
        try await browser.navigate(address)
        // All Photos opens first; Recently Deleted is listed once.
        #expect(
            try await browser.wait(20, until: "return document.querySelector('#title').textContent === 'All Photos'"),
            "the gallery opens All Photos")
        #expect(
            try await browser.run(
                "return [...document.querySelectorAll('#albums li')].filter(li => li.textContent.startsWith('Recently Deleted')).length")
                as? Int == 1)
        let allNine = try await browser.wait(20, until: "return document.querySelectorAll('.cell').length === 9")
        let allStatus = try await browser.run("return document.querySelector('#status').textContent") ?? ""
        #expect(allNine, "all nine assets: \(allStatus)")
        try await checkLayout(browser, label: "All Photos")
        // The undecodable file says what it is and why, instead of an empty box.
        let unreadableShown = try await browser.wait(
            20,
            until: "const c = document.querySelector('.cell.unreadable'); return !!c && c.textContent.startsWith('Photo') && c.textContent.includes('No picture: ')")
        let unreadableText = try await browser.run(
            "const c = document.querySelector('.cell.unreadable'); return c ? c.textContent : 'none'") ?? ""
        #expect(unreadableShown, "the noise JPEG: \(unreadableText)")
        // Newest day first, each under its date.
        let days = try #require(
            try await browser.run("return [...document.querySelectorAll('.day')].sort((a, b) => a.getBoundingClientRect().top - b.getBoundingClientRect().top).map(d => d.textContent)")
                as? [String])
        #expect(days.count >= 3 && days.suffix(2).first?.contains("2023") == true && days.last?.contains("2023") == true, "\(days)")
        #expect(days.last?.contains("April") == true && days.suffix(2).first?.contains("May") == true, "\(days)")
        // Portrait and panorama keep their shapes: the panorama is wider than the portrait.
        let shapes = try #require(
            try await browser.run(
                """
                return [...document.querySelectorAll('.cell img')]
                  .map(i => { const r = i.parentElement.getBoundingClientRect(); return r.width / r.height; });
                """) as? [Double])
        #expect(shapes.contains { $0 > 2.5 } && shapes.contains { $0 < 0.8 }, "aspect ratios in the grid: \(shapes)")

        // An album of one: "1 item"; switching albums leaves no empty strip and no sideways scrollbar.
        try await browser.click("#albums li[data-id^=\"\(try albumID("Lonely"))\"]")
        let oneItem = try await browser.wait(10, until: "return document.querySelector('#status').textContent === '1 item'")
        let lonelyStatus = try await browser.run("return document.querySelector('#status').textContent") ?? ""
        #expect(oneItem, "\(lonelyStatus)")
        try await browser.click("#albums li[data-id^=\"\(try albumID("Trip"))\"]")
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
