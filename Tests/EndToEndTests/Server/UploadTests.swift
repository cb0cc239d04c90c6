import Foundation
import TestFixtures
import Testing

/// `PUT /api/upload/{album}/{name}` against a real `serve`, with a real `watch` taking what arrives, and
/// `/api/outcomes/{id}` telling the uploader what became of each file.
@Suite(
    "photodrop serve: uploads and their outcomes", .serialized, .timeLimit(.minutes(3)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl (apt-get install curl)"))
struct UploadTests {
    static let token = "upload-test-token-0123456789"

    /// A library with album Trip (bound to the inbox folder Trip) holding one photo.
    private func sandbox(maxUploadBytes: Int? = nil) async throws -> Sandbox {
        var serve: [String: Any] = ["listen": "127.0.0.1:0", "token": Self.token]
        if let maxUploadBytes { serve["maxUploadBytes"] = maxUploadBytes }
        let sandbox = try Sandbox("upload", settings: ["serve": serve])
        try sandbox.write("drop/Trip/first.jpg", MediaFixtures.jpeg(seed: 1, taken: "2024:03:01 10:00:00"))
        let imported = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path])
        #expect(imported.status == 0, "\(imported)")
        return sandbox
    }

    private func curl(_ url: String, _ options: [String] = [], auth: Bool = true, in sandbox: Sandbox) async throws
        -> CurlReply
    {
        try await ServeHarness.curl(url, options, token: auth ? Self.token : nil, in: sandbox)
    }

    private func albumID(_ title: String, _ server: ServeProcess, in sandbox: Sandbox) async throws -> String {
        let albums = try #require(try await curl(server.base + "/api/albums", in: sandbox).json()["albums"] as? [[String: Any]])
        let id = try #require(albums.first { $0["title"] as? String == title }?["id"] as? String, "\(albums)")
        return String(id.prefix(36))
    }

    /// Uploads `bytes` as `name` (already percent-encoded as needed).
    private func upload(
        _ bytes: [UInt8], as name: String, album: String, _ server: ServeProcess, in sandbox: Sandbox,
        options: [String] = []
    ) async throws -> CurlReply {
        let body = sandbox.root.appendingPathComponent("body-\(UUID().uuidString)")
        try Data(bytes).write(to: body)
        return try await curl(
            server.base + "/api/upload/\(album)/\(name)", ["-X", "PUT", "--data-binary", "@" + body.path] + options,
            in: sandbox)
    }

    /// Polls the outcome until it is no longer `waiting`.
    private func finalOutcome(_ address: String, _ server: ServeProcess, in sandbox: Sandbox) async throws -> [String: Any] {
        var last: [String: Any] = [:]
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            last = try await curl(server.base + address, in: sandbox).json()
            if last["state"] as? String != "waiting" { return last }
            await pause(100_000)
        }
        return last
    }

    private func uploadsLeft(_ sandbox: Sandbox) -> [String] {
        (try? FileManager.default.contentsOfDirectory(
            atPath: sandbox.inbox.appendingPathComponent(".photodrop/uploads").path)) ?? []
    }

    @Test("an upload lands in its album through watch; its outcome says stored, duplicate or rejected with the reason")
    func outcomes() async throws {
        let sandbox = try await sandbox()
        let server = try await ServeProcess(sandbox)
        let watch = try WatchDaemon(sandbox)
        let trip = try await albumID("Trip", server, in: sandbox)
        let photo = MediaFixtures.jpeg(seed: 7, taken: "2024:05:01 12:00:00")

        let stored = try await upload(photo, as: "IMG_0007.jpg", album: trip, server, in: sandbox)
        #expect(stored.status == 201, "\(stored.text)")
        let receipt = try stored.json()
        let address = try #require(receipt["outcome"] as? String)
        #expect(stored.headers["location"] == address)
        #expect(receipt["path"] as? String == "Trip/IMG_0007.jpg")
        #expect(receipt["bytes"] as? Int == photo.count)
        #expect((receipt["sha256"] as? String)?.count == 64)
        let storedOutcome = try await finalOutcome(address, server, in: sandbox)
        #expect(storedOutcome["state"] as? String == "stored", "\(storedOutcome)\n\(watch.log)")
        #expect(storedOutcome["outcome"] as? String == "photo")
        let asset = try #require(storedOutcome["asset"] as? String)
        let shown = try await sandbox.run(["show", asset, "--json"]).jsonObject()
        #expect(shown["albums"] as? [String] == ["Trip"], "\(shown)")
        #expect(shown["originalFilename"] as? String == "IMG_0007.jpg", "\(shown)")

        // The same bytes under another name: a duplicate of that asset.
        let again = try await upload(photo, as: "copy.jpg", album: trip, server, in: sandbox)
        let duplicate = try await finalOutcome(try #require(try again.json()["outcome"] as? String), server, in: sandbox)
        #expect(duplicate["state"] as? String == "duplicate" && duplicate["asset"] as? String == asset, "\(duplicate)")

        // Not a photo: rejected, with its reason and where it is now (relative to Rejected/, no server path).
        let bad = try await upload(Array("not a photo at all".utf8), as: "bad.jpg", album: trip, server, in: sandbox)
        let rejected = try await finalOutcome(try #require(try bad.json()["outcome"] as? String), server, in: sandbox)
        #expect(rejected["state"] as? String == "rejected", "\(rejected)")
        #expect((rejected["reason"] as? String)?.isEmpty == false && rejected["message"] is String, "\(rejected)")
        let rejectedPath = try #require(rejected["rejectedPath"] as? String)
        #expect(!rejectedPath.hasPrefix("/"), "\(rejectedPath)")
        #expect(FileManager.default.fileExists(atPath: sandbox.rejected.appendingPathComponent(rejectedPath).path))

        #expect(uploadsLeft(sandbox).isEmpty, "\(uploadsLeft(sandbox))")
        #expect(try await curl(server.base + "/api/outcomes/999999", in: sandbox).status == 404)
        #expect(try await curl(server.base + "/api/outcomes/12abc", in: sandbox).status == 404)
        #expect(try await curl(server.base + address, auth: false, in: sandbox).status == 401)
        try await watch.stop()
        try await server.process.stop()
    }

    @Test("an album made through the API gets an inbox folder with its title, bound to it when its first upload starts")
    func newAlbumFolder() async throws {
        let sandbox = try await sandbox()
        let server = try await ServeProcess(sandbox)
        let created = try await curl(
            server.base + "/api/albums", ["-X", "POST", "--data", #"{"title": "Best of 2024"}"#], in: sandbox)
        #expect(created.status == 201, "\(created.text)")
        let album = String(try #require(try created.json()["id"] as? String).prefix(36))
        let sent = try await upload(
            MediaFixtures.jpeg(seed: 9, taken: "2024:06:01 08:00:00"), as: "beach.jpg", album: album, server,
            in: sandbox)
        #expect(sent.status == 201, "\(sent.text)")
        #expect(try sent.json()["path"] as? String == "Best of 2024/beach.jpg")
        #expect(FileManager.default.fileExists(atPath: sandbox.inbox.appendingPathComponent("Best of 2024/beach.jpg").path))
        // Waiting until a watch runs.
        let address = try #require(try sent.json()["outcome"] as? String)
        #expect(try await curl(server.base + address, in: sandbox).json()["state"] as? String == "waiting")
        let watch = try WatchDaemon(sandbox)
        let outcome = try await finalOutcome(address, server, in: sandbox)
        #expect(outcome["state"] as? String == "stored", "\(outcome)\n\(watch.log)")
        let shown = try await sandbox.run(["show", try #require(outcome["asset"] as? String), "--json"]).jsonObject()
        #expect(shown["albums"] as? [String] == ["Best of 2024"], "\(shown)")
        let albums = try await sandbox.run(["albums", "--json"]).jsonLines()
        #expect(albums.filter { $0["title"] as? String == "Best of 2024" }.count == 1, "no second album: \(albums)")
        try await watch.stop()
        try await server.process.stop()
    }

    @Test("names, sizes, digests and conflicts are refused before anything reaches the inbox")
    func refusals() async throws {
        let sandbox = try await sandbox(maxUploadBytes: 4000)
        let server = try await ServeProcess(sandbox)
        let trip = try await albumID("Trip", server, in: sandbox)
        let small = MediaFixtures.jpeg(seed: 3, taken: "2024:01:01 00:00:00")
        #expect(small.count < 4000)
        func status(_ name: String, _ bytes: [UInt8]? = nil, _ options: [String] = []) async throws -> Int {
            try await upload(bytes ?? small, as: name, album: trip, server, in: sandbox, options: options).status
        }
        #expect(try await status(".hidden.jpg") == 400)
        #expect([400, 404].contains(try await status("..")))
        #expect(try await status("a%2Fb.jpg") == 400)
        #expect(try await status("a%00b.jpg") == 400)
        #expect(try await status("a%0Ab.jpg") == 400)
        #expect(try await status(String(repeating: "x", count: 252) + ".jpg") == 400)
        #expect(try await status("partial.jpg.part") == 400, "a name watch never takes")
        #expect(try await status("big.jpg", [UInt8](repeating: 0xAB, count: 5000)) == 413)
        let chunked = try await upload(
            [UInt8](repeating: 0xAB, count: 5000), as: "chunked.jpg", album: trip, server, in: sandbox,
            options: ["-H", "Transfer-Encoding: chunked"])
        #expect(chunked.status == 413, "a body without a length is cut off at the limit: \(chunked.status) \(chunked.text)")
        let wrongDigest = ":" + Data(repeating: 7, count: 32).base64EncodedString() + ":"
        #expect(try await status("digest.jpg", nil, ["-H", "Content-Digest: sha-256=\(wrongDigest)"]) == 400)
        #expect(try await upload(small, as: "x.jpg", album: UUID().uuidString, server, in: sandbox).status == 404)
        #expect(try await curl(server.base + "/api/upload/\(trip)/get.jpg", in: sandbox).status == 405)
        #expect(
            try await curl(
                server.base + "/api/upload/\(trip)/noauth.jpg", ["-X", "PUT", "--data-binary", "x"], auth: false,
                in: sandbox
            ).status == 401)
        // Nothing of any of them reached the inbox or stayed behind.
        #expect(sandbox.files(under: sandbox.inbox.appendingPathComponent("Trip")).isEmpty)
        #expect(uploadsLeft(sandbox).isEmpty, "\(uploadsLeft(sandbox))")

        // A matching digest is taken; a decomposed name is stored composed (NFC).
        let digest = ":" + Data(try #require(hexBytes(sha256Hex(small)))).base64EncodedString() + ":"
        #expect(try await status("Cafe%CC%81.jpg", nil, ["-H", "Content-Digest: sha-256=\(digest)"]) == 201)
        let names = try FileManager.default.contentsOfDirectory(atPath: sandbox.inbox.appendingPathComponent("Trip").path)
        #expect(names.map { Array($0.utf8) } == [Array("Caf\u{E9}.jpg".utf8)], "\(names)")
        // The same name again while the first waits (no watch runs): 409, and the first file is untouched.
        let other = MediaFixtures.jpeg(seed: 4, taken: "2024:01:02 00:00:00")
        #expect(try await status("Caf%C3%A9.jpg", other) == 409)
        let kept = try Data(contentsOf: sandbox.inbox.appendingPathComponent("Trip/Caf\u{E9}.jpg"))
        #expect(Array(kept) == small)
        #expect(uploadsLeft(sandbox).isEmpty)
        try await server.process.stop()
    }

    @Test("two albums of one title, uploaded into at once: each upload lands in the album its URL names, the second album in 'Dup (2)'")
    func albumsOfOneTitle() async throws {
        let sandbox = try await sandbox()
        let server = try await ServeProcess(sandbox)
        var albums: [String] = []
        for _ in 0..<2 {
            let created = try await curl(
                server.base + "/api/albums", ["-X", "POST", "--data", #"{"title": "Dup"}"#], in: sandbox)
            #expect(created.status == 201, "\(created.text)")
            albums.append(String(try #require(try created.json()["id"] as? String).prefix(36)))
        }
        // Both albums' first uploads at once, several each.
        let photos = (0..<6).map { MediaFixtures.jpeg(seed: 40 + $0, taken: "2024:07:0\($0 + 1) 09:00:00") }
        let albumIDs = albums
        var paths: [Int: String] = [:]
        try await withThrowingTaskGroup(of: (Int, CurlReply).self) { group in
            for (index, photo) in photos.enumerated() {
                group.addTask {
                    (index, try await upload(photo, as: "p\(index).jpg", album: albumIDs[index % 2], server, in: sandbox))
                }
            }
            for try await (index, reply) in group {
                #expect(reply.status == 201, "\(index): \(reply.text)")
                paths[index] = try reply.json()["path"] as? String
            }
        }
        // Each album has a folder of its own ("Dup" for the one whose upload came first, "Dup (2)" for the other),
        // shown in the API, and every upload went into its own album's folder.
        let listed = try #require(try await curl(server.base + "/api/albums", in: sandbox).json()["albums"] as? [[String: Any]])
        let folders = albums.map { id in listed.first { ($0["id"] as? String)?.hasPrefix(id) == true }?["inboxFolder"] as? String }
        #expect(Set(folders.compactMap { $0 }) == ["Dup", "Dup (2)"], "\(listed)")
        for index in 0..<6 {
            #expect(paths[index] == "\(folders[index % 2] ?? "?")/p\(index).jpg", "\(index): \(paths)")
        }
        // watch files each into the album its URL named.
        let watch = try WatchDaemon(sandbox)
        #expect(await watch.waitForOutcomes(6).count == 6, "\(watch.log)")
        for (index, album) in albums.enumerated() {
            let page = try await curl(server.base + "/api/albums/\(album)/assets", in: sandbox).json()
            let names = ((page["assets"] as? [[String: Any]]) ?? []).compactMap { $0["originalFilename"] as? String }.sorted()
            let expected = stride(from: index, to: 6, by: 2).map { "p\($0).jpg" }
            #expect(names == expected, "album \(index): \(names)")
        }
        try await watch.stop()
        try await server.process.stop()
    }

    @Test(
        "an upload that fills the inbox's disk midway gets 507, and leaves nothing",
        .requires(
            FileManager.default.isExecutableFile(atPath: "/usr/bin/unshare"), "unshare (apt-get install util-linux)"))
    func diskFull() async throws {
        try skipUnless(getuid() == 0, "needs root to mount a private tmpfs for the inbox")
        let sandbox = try await sandbox()
        // The inbox on a 1 MiB tmpfs in a mount namespace of serve's own.
        let launcher = Launcher(
            executable: URL(fileURLWithPath: "/usr/bin/unshare"),
            arguments: [
                "-m", "--propagation", "private", "/bin/sh", "-c",
                "mount -t tmpfs -o size=1m tmpfs '\(sandbox.inbox.path)' && exec \"$0\" \"$@\"",
            ])
        let server = try await ServeProcess(sandbox, launcher: launcher)
        let trip = try await albumID("Trip", server, in: sandbox)
        // 3 MB, announced: accepted at first (under serve.maxUploadBytes), the disk fills after 1 MiB.
        let sent = try await upload(
            [UInt8](repeating: 0x5A, count: 3_000_000), as: "huge.jpg", album: trip, server, in: sandbox)
        #expect(sent.status == 507, "\(sent.status) \(sent.text)")
        #expect((try? sent.json()["error"] as? String)?.isEmpty == false, "\(sent.text)")
        // The same without a length (chunked): still an answer.
        let body = sandbox.root.appendingPathComponent("huge-chunked")
        try Data(repeating: 0x5B, count: 3_000_000).write(to: body)
        let chunked = try await curl(
            server.base + "/api/upload/\(trip)/huge2.jpg",
            ["-X", "PUT", "-H", "Transfer-Encoding: chunked", "--data-binary", "@" + body.path], in: sandbox)
        #expect(chunked.status == 507, "\(chunked.status) \(chunked.text)")
        // Nothing stays in serve's inbox (seen from inside its namespace).
        let inside = "/proc/\(server.process.pid)/root" + sandbox.inbox.path
        let left = (try? FileManager.default.contentsOfDirectory(atPath: inside + "/.photodrop/uploads")) ?? []
        #expect(left.isEmpty, "\(left)")
        #expect(!FileManager.default.fileExists(atPath: inside + "/Trip/huge.jpg"))
        #expect(try await curl(server.base + "/api/albums", in: sandbox).status == 200)
        try await server.process.stop()
    }

    @Test("an upload cut off midway leaves nothing; a restarted serve removes what a killed one left")
    func interrupted() async throws {
        let sandbox = try await sandbox()
        let server = try await ServeProcess(sandbox)
        let trip = try await albumID("Trip", server, in: sandbox)
        let port = try #require(server.base.split(separator: ":").last.map(String.init))
        // Announces 200,000 bytes, sends 50,000, and goes away.
        let script = """
            import socket, sys, time
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.sendall(("PUT /api/upload/%s/cut.jpg HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nAuthorization: Bearer %s\\r\\n"
                       "Content-Length: 200000\\r\\n\\r\\n" % (sys.argv[2], sys.argv[3])).encode())
            s.sendall(b"\\xff" * 50000)
            time.sleep(0.5)
            s.close()
            """
        let client = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/env"), ["python3", "-c", script, port, trip, Self.token], timeout: 30)
        #expect(client.status == 0, "\(client.stderr)")
        #expect(await eventually(timeout: 10) { uploadsLeft(sandbox).isEmpty }, "\(uploadsLeft(sandbox))")
        #expect(!FileManager.default.fileExists(atPath: sandbox.inbox.appendingPathComponent("Trip/cut.jpg").path))

        // What a killed serve leaves (an old, hidden part file) goes at the next start; a fresh one stays.
        try await server.process.stop()
        let folder = sandbox.inbox.appendingPathComponent(".photodrop/uploads")
        let stale = folder.appendingPathComponent("upload-stale")
        let fresh = folder.appendingPathComponent("upload-fresh")
        try Data(repeating: 1, count: 100).write(to: stale)
        try Data(repeating: 1, count: 100).write(to: fresh)
        try FileManager.default.setAttributes(
            [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: stale.path)
        let restarted = try await ServeProcess(sandbox)
        #expect(uploadsLeft(sandbox) == ["upload-fresh"], "\(uploadsLeft(sandbox))")
        try await restarted.process.stop()
    }
}

/// The bytes of a hexadecimal string.
private func hexBytes(_ hex: String) -> [UInt8]? {
    let digits = Array(hex.utf8)
    guard digits.count % 2 == 0 else { return nil }
    return stride(from: 0, to: digits.count, by: 2).compactMap { UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16) }
}
