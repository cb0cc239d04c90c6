import Foundation
import TestFixtures
import Testing

/// `photodrop serve` as a real process on a real port, driven by curl: the start-up refusals, the auth rules, the
/// API's shapes and paging, media with validators and ranges, changes, live events and hostile paths.
@Suite(
    "photodrop serve: the HTTP API", .serialized, .timeLimit(.minutes(3)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl (apt-get install curl)"))
struct ServeTests {
    static let token = "serve-test-token-0123456789"

    /// A sandbox with a library of `photos` JPEGs taken a day apart, one GIF and one PNG, and serve's settings.
    private func library(photos: Int = 5, serve: [String: Any]? = nil) async throws -> Sandbox {
        let sandbox = try Sandbox(
            "serve", settings: ["serve": serve ?? ["listen": "127.0.0.1:0", "token": Self.token]])
        for index in 0..<photos {
            let day = String(format: "%02d", index + 1)
            try sandbox.write("drop/Trip/photo-\(index).jpg", MediaFixtures.jpeg(seed: index, taken: "2024:03:\(day) 10:00:00"))
        }
        try sandbox.write("drop/Trip/anim.gif", MediaFixtures.gif())
        try sandbox.write("drop/Other/plain.png", MediaFixtures.png())
        let imported = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path])
        #expect(imported.status == 0, "\(imported)")
        return sandbox
    }

    /// One request with curl; `auth` adds the bearer token.
    private func curl(
        _ url: String, _ options: [String] = [], auth: Bool = true, in sandbox: Sandbox
    ) async throws -> CurlReply {
        try await ServeHarness.curl(url, options, token: auth ? Self.token : nil, in: sandbox)
    }

    @Test("serve refuses to start without a token, or on an exposed address without TLS; --new-token prints one")
    func refusals() async throws {
        let sandbox = try await library(photos: 1, serve: ["listen": "127.0.0.1:0"])
        let noToken = try await sandbox.run(["serve"], timeout: 20)
        #expect(noToken.status == 2 && noToken.stderr.contains("serve needs a token"), "\(noToken)")
        try sandbox.writeConfig([
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected",
            "serve": ["listen": "0.0.0.0:0", "token": Self.token],
        ])
        let exposed = try await sandbox.run(["serve"], timeout: 20)
        #expect(exposed.status == 2 && exposed.stderr.contains("no TLS"), "\(exposed)")
        let token = try await sandbox.run(["serve", "--new-token"], timeout: 20)
        let printed = token.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(token.status == 0 && printed.count == 43, "\(token)")
        let again = try await sandbox.run(["serve", "--new-token"], timeout: 20)
        #expect(again.stdout.trimmingCharacters(in: .whitespacesAndNewlines) != printed, "a new one each time")
        try sandbox.writeConfig([
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected", "serve": ["token": "short"],
        ])
        let short = try await sandbox.run(["serve"], timeout: 20)
        #expect(short.status == 2 && short.stderr.contains("serve.token"), "\(short)")
    }

    @Test("a second serve on a port the first holds refuses to start; the first keeps every request")
    func onePortOneServer() async throws {
        let first = try await library(photos: 1)
        let serve = try await ServeProcess(first)
        let port = try #require(serve.base.split(separator: ":").last.map(String.init))
        // Another library with another token asks for the same port.
        let second = try await library(
            photos: 1, serve: ["listen": "127.0.0.1:\(port)", "token": "another-token-0123456789"])
        let refused = try await second.run(["serve"], timeout: 30)
        #expect(refused.status != 0, "\(refused)")
        #expect(refused.stderr.contains("cannot listen on 127.0.0.1 port \(port)") && refused.stderr.contains("holds it"), "\(refused)")
        // Every request still reaches the first library (with two listeners, the kernel would split them).
        for _ in 0..<20 {
            let reply = try await curl("\(serve.base)/api/status", in: first)
            #expect(reply.status == 200, "\(reply.status) \(reply.text)")
        }
        // Once the first stops, the port is free again at once (a restart does not wait out TIME_WAIT).
        try await serve.process.stop()
        let next = try await ServeProcess(second)
        #expect(next.base == serve.base)
        let answered = try await ServeHarness.curl(
            "\(next.base)/api/status", token: "another-token-0123456789", in: second)
        #expect(answered.status == 200, "\(answered.status) \(answered.text)")
        try await next.process.stop()
    }

    @Test("the token is needed everywhere; a browser signs in once with ?token= and keeps a strict cookie; Host and Origin are checked")
    func access() async throws {
        let sandbox = try await library(photos: 1)
        let server = try await ServeProcess(sandbox)
        let base = server.base
        #expect(try await curl(base + "/api/albums", auth: false, in: sandbox).status == 401)
        #expect(try await curl(base + "/api/albums", ["-H", "Authorization: Bearer wrong-token-0123456789"], auth: false, in: sandbox).status == 401)
        let albums = try await curl(base + "/api/albums", in: sandbox)
        #expect(albums.status == 200 && albums.headers["content-type"] == "application/json")
        #expect(albums.headers["x-content-type-options"] == "nosniff" && albums.headers["content-security-policy"] != nil)
        // DNS rebinding: a foreign name in Host is refused even with the token.
        #expect(try await curl(base + "/api/albums", ["-H", "Host: attacker.example:80"], in: sandbox).status == 421)
        // The page without a session explains how to sign in; a wrong token does not sign in.
        let page = try await curl(base + "/", auth: false, in: sandbox)
        #expect(page.status == 401 && page.text.contains("?token="))
        #expect(try await curl(base + "/?token=nope", auth: false, in: sandbox).status == 401)
        let login = try await curl(base + "/?token=\(Self.token)", auth: false, in: sandbox)
        #expect(login.status == 303 && login.headers["location"] == "/", "\(login.headers)")
        let cookie = try #require(login.headers["set-cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && !cookie.contains(Self.token))
        let session = String(cookie.split(separator: ";")[0])
        let signedIn = try await curl(base + "/api/albums", ["-H", "Cookie: \(session)"], auth: false, in: sandbox)
        #expect(signedIn.status == 200)
        // A change with the cookie must come from this server's pages: no Origin, or another site's, is refused.
        let id = try #require(try await curl(base + "/api/assets", in: sandbox).json()["assets"] as? [[String: Any]])[0]["id"]
            as? String
        let uuid = String(try #require(id).prefix(36))
        let favorite = base + "/api/assets/\(uuid)/favorite"
        #expect(try await curl(favorite, ["-X", "POST", "-H", "Cookie: \(session)"], auth: false, in: sandbox).status == 403)
        #expect(
            try await curl(
                favorite, ["-X", "POST", "-H", "Cookie: \(session)", "-H", "Origin: http://evil.example"], auth: false,
                in: sandbox
            ).status == 403)
        let own = base.replacingOccurrences(of: "127.0.0.1", with: "127.0.0.1")
        let allowed = try await curl(
            favorite, ["-X", "POST", "-H", "Cookie: \(session)", "-H", "Origin: \(own)"], auth: false, in: sandbox)
        let allowedJSON = try allowed.json()
        #expect(allowed.status == 200 && allowedJSON["isFavorite"] as? Bool == true, "\(allowed.text)")
        try await server.process.stop()
    }

    @Test("albums and pages of assets, newest first by capture time, with a cursor; filters; changes since a token")
    func paging() async throws {
        let sandbox = try await library(photos: 7)
        let server = try await ServeProcess(sandbox)
        let albums = try #require(try await curl(server.base + "/api/albums", in: sandbox).json()["albums"] as? [[String: Any]])
        let trip = try #require(albums.first { $0["title"] as? String == "Trip" })
        #expect(trip["count"] as? Int == 8 && trip["type"] as? String == "album")
        #expect(albums.contains { $0["title"] as? String == "Favorites" && $0["type"] as? String == "smartAlbum" })
        let tripID = String(try #require(trip["id"] as? String).prefix(36))
        var seen: [String] = []
        var dates: [String] = []
        var cursor = ""
        repeat {
            let page = try await curl(server.base + "/api/albums/\(tripID)/assets?limit=3&cursor=\(cursor)", in: sandbox).json()
            let assets = try #require(page["assets"] as? [[String: Any]])
            #expect(assets.count <= 3)
            seen += assets.compactMap { $0["id"] as? String }
            dates += assets.compactMap { $0["creationDate"] as? String }
            cursor = page["next"] as? String ?? ""
        } while !cursor.isEmpty
        #expect(seen.count == 8 && Set(seen).count == 8, "every asset once: \(seen)")
        #expect(dates == dates.sorted(by: >), "newest first: \(dates)")
        // The same fields as show --json (without the server's paths), plus the media URLs.
        let first = try await curl(server.base + "/api/assets/\(seen[0].prefix(36))", in: sandbox).json()
        let shown = try await sandbox.run(["show", seen[0], "--json"]).jsonObject()
        #expect(Set(first.keys) == Set(shown.keys).subtracting(["path"]).union(["urls"]), "\(first.keys)")
        let urls = try #require(first["urls"] as? [String: String])
        #expect(urls["thumbnail"]?.contains("?v=") == true && urls["original"] != nil)
        // Filters.
        let gifs = try #require(try await curl(server.base + "/api/assets?kind=gif", in: sandbox).json()["assets"] as? [[String: Any]])
        #expect(gifs.count == 1 && gifs[0]["kind"] as? String == "gif")
        #expect(try await curl(server.base + "/api/assets?kind=sound", in: sandbox).status == 400)
        #expect(try await curl(server.base + "/api/assets?limit=0", in: sandbox).status == 400)
        #expect(try await curl(server.base + "/api/assets?cursor=garbage", in: sandbox).status == 400)
        // Changes since a token: only what changed after it. The token comes from /api/status, which is
        // status --json's report.
        let status = try await curl(server.base + "/api/status", in: sandbox).json()
        let command = try await sandbox.run(["status", "--json"]).jsonObject()
        #expect(Set(status.keys) == Set(command.keys) && status["lastChange"] as? NSDictionary == command["lastChange"] as? NSDictionary)
        let token = try #require((status["lastChange"] as? [String: Any])?["token"] as? String, "\(status)")
        let favorite = try await sandbox.run(["favorite", seen[2]])
        #expect(favorite.status == 0, "\(favorite)")
        let since = try await curl(server.base + "/api/assets?since=\(token)", in: sandbox).json()
        let changed = try #require(since["assets"] as? [[String: Any]])
        #expect(changed.count == 1 && changed[0]["id"] as? String == seen[2] && changed[0]["isFavorite"] as? Bool == true)
        #expect(since["token"] as? String != token)
        let favorites = try #require(try await curl(server.base + "/api/albums/SmartAlbum-Favorites/assets", in: sandbox).json()["assets"] as? [[String: Any]])
        #expect(favorites.count == 1)
        try await server.process.stop()
    }

    @Test("thumbnails, previews and originals: versioned URLs immutable, ETag and 304, byte ranges, HEAD")
    func media() async throws {
        try skipUnless(Pillow.isAvailable, "python3 with Pillow (pip install Pillow), which makes a real JPEG")
        let sandbox = try await library(photos: 0)
        let folder = try TemporaryFolder("serve-media")
        try Pillow.run("Image.new('RGB', (900, 600), (200, 60, 40)).save(out('real.jpg'), quality=90)", in: folder)
        try FileManager.default.copyItem(
            atPath: folder.url("real.jpg"), toPath: sandbox.root.appendingPathComponent("real.jpg").path)
        #expect(try await sandbox.run(["import", sandbox.root.appendingPathComponent("real.jpg").path]).status == 0)
        let server = try await ServeProcess(sandbox)
        let asset = try #require(try await curl(server.base + "/api/assets?kind=photo", in: sandbox).json()["assets"] as? [[String: Any]]).first { $0["mime"] as? String == "image/jpeg" }
        let urls = try #require(asset?["urls"] as? [String: String])
        let versioned = try await curl(server.base + urls["thumbnail"]!, in: sandbox)
        #expect(versioned.status == 200 && versioned.headers["content-type"] == "image/webp", "\(versioned.status) \(versioned.text)")
        #expect(versioned.headers["cache-control"]?.contains("immutable") == true)
        let plain = try await curl(server.base + urls["thumbnail"]!.split(separator: "?")[0], in: sandbox)
        #expect(plain.headers["cache-control"]?.contains("immutable") == false && plain.body == versioned.body)
        let etag = try #require(plain.headers["etag"])
        let again = try await curl(server.base + urls["preview"]!, ["-H", "If-None-Match: \(etag)"], in: sandbox)
        #expect(again.status == 200 && again.headers["content-type"] == "image/jpeg", "another file, another tag")
        #expect(try await curl(server.base + String(urls["thumbnail"]!.split(separator: "?")[0]), ["-H", "If-None-Match: \(etag)"], in: sandbox).status == 304)
        // The original: whole, a range, the last bytes, a range past the end; HEAD without a body.
        let original = try await curl(server.base + urls["original"]!, in: sandbox)
        let stored = try Data(contentsOf: try sandbox.originalURL(of: asset?["id"] as? String ?? ""))
        #expect(original.status == 200 && original.body == stored && original.headers["content-type"] == "image/jpeg")
        #expect(original.headers["accept-ranges"] == "bytes")
        let part = try await curl(server.base + urls["original"]!, ["-H", "Range: bytes=10-19"], in: sandbox)
        #expect(part.status == 206 && part.body == stored[10..<20] && part.headers["content-range"] == "bytes 10-19/\(stored.count)")
        let tail = try await curl(server.base + urls["original"]!, ["-H", "Range: bytes=-5"], in: sandbox)
        #expect(tail.status == 206 && tail.body == stored.suffix(5))
        let past = try await curl(server.base + urls["original"]!, ["-H", "Range: bytes=\(stored.count + 10)-"], in: sandbox)
        #expect(past.status == 416 && past.headers["content-range"] == "bytes */\(stored.count)")
        let head = try await curl(server.base + urls["original"]!, ["-I"], in: sandbox)
        #expect(head.status == 200 && head.headers["content-length"] == "\(stored.count)")
        try await server.process.stop()
    }

    @Test("small pictures are kept in memory: the same answer as from the file, within serve.pictureCacheMiB; a purged one is gone")
    func keptPictures() async throws {
        try skipUnless(Pillow.isAvailable, "python3 with Pillow (pip install Pillow), which makes a real JPEG")
        let sandbox = try await library(photos: 0)
        let folder = try TemporaryFolder("serve-kept")
        try Pillow.run(
            "for i in range(2): Image.new('RGB', (900, 600), (200, 60 + 90 * i, 40)).save(out('real%d.jpg' % i), quality=90)",
            in: folder)
        for index in 0..<2 {
            try FileManager.default.copyItem(
                atPath: folder.url("real\(index).jpg"), toPath: sandbox.root.appendingPathComponent("real\(index).jpg").path)
            #expect(try await sandbox.run(["import", sandbox.root.appendingPathComponent("real\(index).jpg").path]).status == 0)
        }
        // The same library behind a server that keeps pictures and one that keeps none.
        let server = try await ServeProcess(sandbox)
        let assets = try #require(try await curl(server.base + "/api/assets?kind=photo", in: sandbox).json()["assets"] as? [[String: Any]])
        let photos = assets.filter { $0["mime"] as? String == "image/jpeg" }
        #expect(photos.count == 2)
        let url = try #require((photos.first?["urls"] as? [String: String])?["thumbnail"])
        let id = try #require(photos.first?["id"] as? String)
        let first = try await curl(server.base + url, in: sandbox)
        let kept = try await curl(server.base + url, in: sandbox)
        #expect(first.status == 200 && kept.status == 200 && kept.body == first.body && !kept.body.isEmpty)
        let metrics = try await curl(server.base + "/metrics", in: sandbox).text
        #expect(metrics.contains("photodrop_http_picture_memory_bytes \(first.body.count)"), "\(metrics)")
        // Every header an answer from the file carries, and a HEAD, a 304 and a range (sent from the file).
        try sandbox.writeConfig([
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected",
            "serve": ["listen": "127.0.0.1:0", "token": Self.token, "pictureCacheMiB": 0],
        ])
        let fileServer = try await ServeProcess(sandbox)
        let fromFile = try await curl(fileServer.base + url, in: sandbox)
        #expect(fromFile.body == kept.body)
        let fileMetrics = try await curl(fileServer.base + "/metrics", in: sandbox).text
        #expect(fileMetrics.contains("photodrop_http_picture_memory_bytes 0"), "\(fileMetrics)")
        for name in [
            "content-type", "cache-control", "etag", "accept-ranges", "content-length", "x-content-type-options",
            "content-security-policy", "x-frame-options", "referrer-policy",
        ] {
            #expect(kept.headers[name] != nil && kept.headers[name] == fromFile.headers[name], "\(name): \(kept.headers[name] ?? "none") against \(fromFile.headers[name] ?? "none")")
        }
        try await fileServer.process.stop()
        let head = try await curl(server.base + url, ["-I"], in: sandbox)
        // (curl -I writes the headers where the body would go: the picture's bytes must not follow them.)
        #expect(head.status == 200 && !head.body.contains(kept.body.prefix(12)) && head.headers["content-length"] == "\(kept.body.count)")
        let etag = try #require(kept.headers["etag"])
        #expect(try await curl(server.base + url, ["-H", "If-None-Match: \(etag)"], in: sandbox).status == 304)
        let part = try await curl(server.base + url, ["-H", "Range: bytes=2-9"], in: sandbox)
        #expect(part.status == 206 && part.body == kept.body[2..<10])
        // Purged by another process: the kept answer goes with it (the library's change is seen through inotify).
        #expect(try await sandbox.run(["delete", id]).status == 0)
        #expect(try await curl(server.base + url, in: sandbox).status == 200, "in Recently Deleted, still shown")
        #expect(try await sandbox.run(["trash", "empty"]).status == 0)
        let purged = Date()
        var status = 200
        while status == 200 && Date().timeIntervalSince(purged) < 1 {
            status = try await curl(server.base + url, in: sandbox).status
        }
        #expect(status == 404, "the purged picture is still answered a second after the purge")
        #expect(try await curl(server.base + url, in: sandbox).status == 404)
        let other = try #require((photos.last?["urls"] as? [String: String])?["thumbnail"])
        #expect(try await curl(server.base + other, in: sandbox).status == 200, "the other picture is still there")
        try await server.process.stop()
    }

    @Test("the viewer's neighbours are read ahead: their previews are answered from memory, made first when missing")
    func warmedPreviews() async throws {
        try skipUnless(Pillow.isAvailable, "python3 with Pillow (pip install Pillow), which makes a real JPEG")
        let sandbox = try await library(photos: 0)
        let folder = try TemporaryFolder("serve-warm")
        try Pillow.run(
            "for i in range(3): Image.new('RGB', (1200, 800), (30 + 80 * i, 90, 160)).save(out('real%d.jpg' % i), quality=90)",
            in: folder)
        for index in 0..<3 {
            let path = sandbox.root.appendingPathComponent("real\(index).jpg").path
            try FileManager.default.copyItem(atPath: folder.url("real\(index).jpg"), toPath: path)
            #expect(try await sandbox.run(["import", "--no-derivatives", path]).status == 0)
        }
        let server = try await ServeProcess(sandbox)
        let listed = try #require(
            try await curl(server.base + "/api/assets?kind=photo", in: sandbox).json()["assets"] as? [[String: Any]])
        let ids = listed.filter { $0["mime"] as? String == "image/jpeg" }.compactMap { $0["id"] as? String }
            .map { String($0.prefix(36)) }
        #expect(ids.count == 3)
        // The viewer opens the first one and names its neighbour: its preview (not made yet) is made and read ahead.
        let opened = try await curl(server.base + "/api/assets/\(ids[0])?warm=\(ids[1]),not-an-asset", in: sandbox)
        #expect(opened.status == 200)
        var memory = 0
        for _ in 0..<300 where memory == 0 {
            let metrics = try await curl(server.base + "/metrics", in: sandbox).text
            memory = metrics.split(separator: "\n").first { $0.hasPrefix("photodrop_http_picture_memory_bytes ") }
                .flatMap { Int($0.split(separator: " ").last ?? "") } ?? 0
            if memory == 0 { try await Task.sleep(for: .milliseconds(100)) }
        }
        #expect(memory > 0, "nothing was read ahead")
        let neighbour = try await curl(server.base + "/api/assets/\(ids[1])", in: sandbox).json()
        let preview = try #require((neighbour["urls"] as? [String: String])?["preview"])
        let version = try #require(preview.split(separator: "=").last.map(String.init))
        // Every stored picture is gone from the disk; the warmed preview is still answered, whole and the same
        // content its version names, and the next answers are the same.
        let derivatives = sandbox.root.appendingPathComponent("Library/derivatives")
        #expect(FileManager.default.fileExists(atPath: derivatives.path))
        try FileManager.default.removeItem(at: derivatives)
        for _ in 0..<2 {
            let answer = try await curl(server.base + preview, in: sandbox)
            #expect(answer.status == 200 && answer.headers["content-type"]?.hasPrefix("image/") == true)
            #expect(sha256Hex(answer.body).hasPrefix(version), "served from memory, the bytes its version names")
        }
        // The asset that was not read ahead has no file to answer from any more (it is made again on request).
        let other = try await curl(server.base + "/api/assets/\(ids[2])", in: sandbox).json()
        let otherPreview = try #require((other["urls"] as? [String: String])?["preview"])
        #expect(otherPreview.contains("?v=") == false, "no preview was made of the asset nobody warmed")
        try await server.process.stop()
    }

    @Test("paths are identifiers, never files: traversal, encoded slashes, NUL, overlong and unknown IDs get 404")
    func hostilePaths() async throws {
        let sandbox = try await library(photos: 1)
        let server = try await ServeProcess(sandbox)
        let id = String(try #require((try await curl(server.base + "/api/assets", in: sandbox).json()["assets"] as? [[String: Any]])?.first?["id"] as? String).prefix(36))
        for path in [
            "/api/assets/../../../etc/passwd", "/api/assets/%2e%2e%2f%2e%2e%2fetc%2fpasswd", "/api/assets/\(id)/..%2f..%2fconfig.json",
            "/api/assets/\(id)%00/original", "/api/assets/\(id)/original/extra", "/api/assets/" + String(repeating: "A", count: 400),
            "/api/assets/00000000-0000-0000-0000-000000000000", "/api/albums/..", "/Library/library.sqlite", "/config.json",
            "/api/assets/\(id)/L0/001/../../../../config.json",
        ] {
            let reply = try await curl(server.base + path, in: sandbox)
            #expect(reply.status == 404, "\(path): \(reply.status) \(reply.text)")
        }
        // A request body over the limit is refused before it is read; an oversized header block too.
        let big = String(repeating: "x", count: 100_000)
        let tooBig = try await curl(server.base + "/api/albums", ["-X", "POST", "-H", "Content-Type: application/json", "--data", big], in: sandbox)
        #expect(tooBig.status == 413, "\(tooBig.status)")
        let hugeHeader = try await curl(server.base + "/api/albums", ["-H", "X-Filler: " + String(repeating: "y", count: 40_000)], in: sandbox)
        #expect([413, 431].contains(hugeHeader.status), "\(hugeHeader.status)")
        try await server.process.stop()
    }

    @Test("changes through the API land in the library (favourite, delete to Recently Deleted, restore, albums); events stream within a second")
    func changesAndEvents() async throws {
        let sandbox = try await library(photos: 2)
        let server = try await ServeProcess(sandbox)
        // An open event stream, from now on.
        let events = sandbox.root.appendingPathComponent("events.txt")
        _ = FileManager.default.createFile(atPath: events.path, contents: nil)
        let stream = Process()
        stream.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
        stream.arguments = ["-s", "-N", "-H", "Authorization: Bearer \(Self.token)", server.base + "/api/events"]
        stream.standardOutput = try FileHandle(forWritingTo: events)
        try stream.run()
        defer { if stream.isRunning { stream.terminate(); stream.waitUntilExit() } }
        await pause(500_000)
        let assets = try #require(try await curl(server.base + "/api/assets?kind=photo", in: sandbox).json()["assets"] as? [[String: Any]])
        let id = try #require(assets.first { $0["mime"] as? String == "image/jpeg" }?["id"] as? String)
        let uuid = String(id.prefix(36))
        // A change by another process reaches the stream.
        let started = Date()
        #expect(try await sandbox.run(["favorite", id]).status == 0)
        while !((try? String(contentsOf: events, encoding: .utf8)) ?? "").contains(id) && Date().timeIntervalSince(started) < 5 {
            await pause(20_000)
        }
        let text = (try? String(contentsOf: events, encoding: .utf8)) ?? ""
        #expect(text.contains("event: change") && text.contains(id), "\(text)")
        // Within a second of the commit: the change's own date against when curl wrote the event (the file's
        // modification time), so that this test process being slow to look does not count.
        let change = try #require(text.split(separator: "\n").last { $0.hasPrefix("data: ") && $0.contains(id) })
        let data = try #require(try JSONSerialization.jsonObject(with: Data(change.dropFirst(6).utf8)) as? [String: Any])
        let format = ISO8601DateFormatter()
        format.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let committed = try #require((data["date"] as? String).flatMap { format.date(from: $0) }, "\(data)")
        let written = try #require(try FileManager.default.attributesOfItem(atPath: events.path)[.modificationDate] as? Date)
        #expect(written.timeIntervalSince(committed) < 1.0, "the event came \(written.timeIntervalSince(committed)) s after the commit")
        // Delete through the API: in Recently Deleted, then restored.
        #expect(try await curl(server.base + "/api/assets/\(uuid)", ["-X", "DELETE"], in: sandbox).status == 200)
        let trash = try #require(try await curl(server.base + "/api/trash", in: sandbox).json()["assets"] as? [[String: Any]])
        #expect(trash.map { $0["id"] as? String } == [id])
        let shown = try await sandbox.run(["show", id, "--json"]).jsonObject()
        #expect(shown["isDeleted"] as? Bool == true)
        let restored = try await curl(server.base + "/api/assets/\(uuid)/restore", ["-X", "POST"], in: sandbox)
        let restoredJSON = try restored.json()
        #expect(restored.status == 200 && restoredJSON["isDeleted"] as? Bool == false, "\(restored.text)")
        // Albums: create, rename, remove an asset from one.
        let created = try await curl(server.base + "/api/albums", ["-X", "POST", "--data", #"{"title": "Best"}"#], in: sandbox)
        #expect(created.status == 201, "\(created.text)")
        let album = String(try #require(try created.json()["id"] as? String).prefix(36))
        let renamed = try await curl(server.base + "/api/albums/\(album)", ["-X", "POST", "--data", #"{"title": "Best of"}"#], in: sandbox)
        #expect((try renamed.json()["title"] as? String) == "Best of", "\(renamed.text)")
        let albums = try await sandbox.run(["albums", "--json"]).jsonLines()
        #expect(albums.contains { $0["title"] as? String == "Best of" })
        let trip = try #require(albums.first { $0["title"] as? String == "Trip" }?["id"] as? String)
        let removed = try await curl(
            server.base + "/api/albums/\(trip.prefix(36))/remove", ["-X", "POST", "--data", "{\"assets\": [\"\(id)\"]}"], in: sandbox)
        #expect(removed.status == 200, "\(removed.text)")
        let after = try await sandbox.run(["show", id, "--json"]).jsonObject()
        #expect((after["albums"] as? [String])?.contains("Trip") == false)
        #expect(try await curl(server.base + "/api/albums", ["-X", "POST", "--data", "{}"], in: sandbox).status == 400)
        try await server.process.stop()
    }

    @Test(
        "with a certificate, serve speaks HTTPS (GnuTLS through libmicrohttpd) on a LAN address; the cookie is Secure",
        .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl (apt-get install openssl)"))
    func tls() async throws {
        let sandbox = try await library(photos: 1, serve: ["listen": "127.0.0.1:0", "token": Self.token])
        let made = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=photos.test",
                "-keyout", sandbox.root.appendingPathComponent("key.pem").path,
                "-out", sandbox.root.appendingPathComponent("cert.pem").path,
            ])
        #expect(made.status == 0, "\(made)")
        // An address other than loopback is allowed with TLS (0.0.0.0: every address of this machine).
        try sandbox.writeConfig([
            "library": "Library", "inbox": "Inbox", "rejected": "Rejected",
            "serve": [
                "listen": "0.0.0.0:0", "token": Self.token, "tls": ["certificate": "cert.pem", "key": "key.pem"],
            ],
        ])
        let server = try await ServeProcess(sandbox, scheme: "https")
        let process = server.process
        let printed = Date().addingTimeInterval(5)
        while !process.stdout.contains("Open ") && Date() < printed { await pause(20_000) }
        #expect(process.stdout.contains("https://"), "the sign-in address is https: \(process.stdout)")
        let base = server.base
        let bound = try #require(base.split(separator: ":").last.map(String.init))
        let albums = try await curl(base + "/api/albums", ["-k"], in: sandbox)
        #expect(albums.status == 200, "\(albums.status) \(albums.text)")
        // Plain HTTP on the TLS port gets no answer.
        #expect(try await curl("http://127.0.0.1:\(bound)/api/albums", in: sandbox).status != 200)
        // Any host name is answered under TLS (the certificate names the server); the cookie is Secure.
        let login = try await curl(base + "/?token=\(Self.token)", ["-k", "-H", "Host: photos.test"], auth: false, in: sandbox)
        #expect(login.status == 303 && login.headers["set-cookie"]?.contains("Secure") == true, "\(login.headers)")
        try await process.stop()
    }
}
