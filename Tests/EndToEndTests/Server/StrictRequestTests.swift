import Foundation
import TestFixtures
import Testing

/// What `photodrop serve` refuses, and that every refusal is an answer with a status: request framing two servers could
/// read differently (smuggling through a lax proxy), limits answered by serve itself with its headers, the Origin
/// of a browser's change compared in full, sessions that end, error messages without the server's paths, and names
/// and titles that would display as something else.
@Suite(
    "photodrop serve: strict requests", .serialized, .timeLimit(.minutes(3)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl (apt-get install curl)"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"), "python3"))
struct StrictRequestTests {
    static let token = "strict-request-token-0123456789"

    private func library(_ label: String) async throws -> Sandbox {
        let sandbox = try Sandbox(label, settings: ["serve": ["listen": "127.0.0.1:0", "token": Self.token]])
        try sandbox.write("drop/Trip/photo.jpg", MediaFixtures.jpeg(seed: 5, taken: "2024:03:01 10:00:00"))
        let imported = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path])
        #expect(imported.status == 0, "\(imported)")
        return sandbox
    }

    private func curl(_ url: String, _ options: [String] = [], auth: Bool = true, in sandbox: Sandbox) async throws
        -> CurlReply
    {
        try await ServeHarness.curl(url, options, token: auth ? Self.token : nil, in: sandbox)
    }

    /// Sends `request` as it is on a new connection; the whole answer, read until the server closes (at most 5 s).
    private func raw(_ request: String, _ server: ServeProcess) async throws -> String {
        let port = try #require(server.base.split(separator: ":").last.map(String.init))
        let script = """
            import socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
            s.sendall(bytes.fromhex(sys.argv[2]))
            s.settimeout(5)
            data = b""
            try:
                while True:
                    chunk = s.recv(65536)
                    if not chunk: break
                    data += chunk
            except socket.timeout:
                pass
            sys.stdout.write(data.decode("latin-1"))
            """
        let hex = Array(request.utf8).map { String(format: "%02x", $0) }.joined()
        let result = try await runProcess(URL(fileURLWithPath: "/usr/bin/python3"), ["-c", script, port, hex], timeout: 30)
        return result.stdout
    }

    private func statusLine(_ answer: String) -> String { String(answer.split(separator: "\r\n").first ?? "") }

    @Test("framing two servers could read differently is refused with 400: two Content-Length, Content-Length with chunked, two Host, a control character")
    func smuggling() async throws {
        let sandbox = try await library("strict-framing")
        let server = try await ServeProcess(sandbox)
        let auth = "Authorization: Bearer \(Self.token)\r\n"
        let cases = [
            "POST /api/albums HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Content-Length: 13\r\nContent-Length: 40\r\n\r\n{\"title\":\"x\"}",
            "POST /api/albums HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Content-Length: 13\r\nTransfer-Encoding: chunked\r\n\r\nd\r\n{\"title\":\"x\"}\r\n0\r\n\r\n",
            "GET /api/albums HTTP/1.1\r\nHost: 127.0.0.1\r\nHost: attacker.example\r\n\(auth)\r\n",
            "POST /api/albums HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)Transfer-Encoding: gzip, chunked\r\n\r\n0\r\n\r\n",
            "GET /api/albums HTTP/1.1\r\nHost: 127.0.0.1\r\n\(auth)X-Note: a\u{01}b\r\n\r\n",
        ]
        for request in cases {
            let answer = try await raw(request, server)
            #expect(statusLine(answer).hasPrefix("HTTP/1.1 400"), "\(request.debugDescription)\n\(answer)")
        }
        // None of them made an album.
        let albums = try #require(try await curl(server.base + "/api/albums", in: sandbox).json()["albums"] as? [[String: Any]])
        #expect(!albums.contains { $0["title"] as? String == "x" }, "\(albums)")
        try await server.process.stop()
    }

    @Test("limits are answered by serve with its own headers: 431 headers, 414 address, 431 arguments, 413 chunked body, 416 range")
    func limitsAreAnswers() async throws {
        let sandbox = try await library("strict-limits")
        let server = try await ServeProcess(sandbox)
        let base = server.base
        let big = try await curl(base + "/api/albums", ["-H", "X-Big: " + String(repeating: "a", count: 17_000)], in: sandbox)
        #expect(big.status == 431 && big.headers["x-content-type-options"] == "nosniff", "\(big.status) \(big.text)")
        let long = try await curl(base + "/api/assets/" + String(repeating: "a", count: 9_000), in: sandbox)
        #expect(long.status == 414 && long.headers["content-security-policy"] != nil, "\(long.status) \(long.text)")
        let arguments = (0..<400).map { "a\($0)=1" }.joined(separator: "&")
        let many = try await curl(base + "/api/assets?" + arguments, in: sandbox)
        #expect(many.status == 431 && many.headers["x-content-type-options"] == "nosniff", "\(many.status) \(many.text)")
        // A JSON body without a length, past 64 KiB: 413, after which the client has its answer.
        let body = sandbox.root.appendingPathComponent("big.json")
        try Data(("{\"title\": \"" + String(repeating: "x", count: 100_000) + "\"}").utf8).write(to: body)
        let chunked = try await curl(
            base + "/api/albums", ["-X", "POST", "-H", "Transfer-Encoding: chunked", "--data-binary", "@" + body.path],
            in: sandbox)
        #expect(chunked.status == 413, "\(chunked.status) \(chunked.text)")
        // A suffix range longer than any file: 416, not the whole file.
        let asset = String(
            try #require((try await curl(base + "/api/assets", in: sandbox).json()["assets"] as? [[String: Any]])?.first?["id"] as? String)
                .prefix(36))
        let overflow = try await curl(
            base + "/api/assets/\(asset)/original", ["-H", "Range: bytes=-99999999999999999999999"], in: sandbox)
        #expect(overflow.status == 416, "\(overflow.status) \(overflow.headers)")
        // And the server still answers.
        #expect(try await curl(base + "/api/albums", in: sandbox).status == 200)
        try await server.process.stop()
    }

    @Test("a browser's change must come from this server's own scheme, host and port")
    func origin() async throws {
        let sandbox = try await library("strict-origin")
        let server = try await ServeProcess(sandbox)
        let login = try await curl(server.base + "/?token=\(Self.token)", auth: false, in: sandbox)
        let session = String(try #require(login.headers["set-cookie"]).split(separator: ";")[0])
        let asset = String(
            try #require((try await curl(server.base + "/api/assets", in: sandbox).json()["assets"] as? [[String: Any]])?.first?["id"] as? String)
                .prefix(36))
        let port = try #require(server.base.split(separator: ":").last.map(String.init))
        func change(origin: String) async throws -> Int {
            try await curl(
                server.base + "/api/assets/\(asset)/favorite",
                ["-X", "POST", "-H", "Cookie: \(session)", "-H", "Origin: \(origin)", "--data", "{}"], auth: false,
                in: sandbox
            ).status
        }
        #expect(try await change(origin: "http://127.0.0.1:\(Int(port)! + 1)") == 403, "another port")
        #expect(try await change(origin: "https://127.0.0.1:\(port)") == 403, "another scheme")
        #expect(try await change(origin: "http://127.0.0.1") == 403, "no port: port 80")
        #expect(try await change(origin: "http://localhost:\(port)") == 403, "another host name than the request's")
        #expect(try await change(origin: "http://127.0.0.1:\(port)") == 200)
        try await server.process.stop()
    }

    @Test("a session ends after 7 days unused and 30 days after its sign-in; one in use is renewed; a new token ends them all")
    func sessions() async throws {
        let sandbox = try await library("strict-sessions")
        let server = try await ServeProcess(sandbox)
        let login = try await curl(server.base + "/?token=\(Self.token)", auth: false, in: sandbox)
        let setCookie = try #require(login.headers["set-cookie"])
        #expect(setCookie.contains("Max-Age=2592000"), "\(setCookie)")
        // Sessions signed as serve signs them (HMAC-SHA256 under a key derived from the token), at other times.
        func session(signedIn: TimeInterval, lastUsed: TimeInterval, token: String = Self.token) async throws -> String {
            let script = """
                import hashlib, hmac, sys
                key = hashlib.sha256(b"photodrop session\\x00" + sys.argv[1].encode()).digest()
                message = "v1.%d.%d" % (int(sys.argv[2]), int(sys.argv[3]))
                print(message + "." + hmac.new(key, message.encode(), hashlib.sha256).hexdigest())
                """
            let now = Date().timeIntervalSince1970
            let result = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/python3"),
                ["-c", script, token, String(Int(now - signedIn)), String(Int(now - lastUsed))])
            return "photodrop_session=" + result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        func get(_ cookie: String) async throws -> CurlReply {
            try await curl(server.base + "/api/albums", ["-H", "Cookie: \(cookie)"], auth: false, in: sandbox)
        }
        let day = 86_400.0
        let recent = try await get(try await session(signedIn: 2 * day, lastUsed: 2 * 3600))
        #expect(recent.status == 200)
        let renewed = try #require(recent.headers["set-cookie"], "a session last used 2 h ago is renewed")
        #expect(renewed.contains("Max-Age=") && !renewed.contains("Max-Age=2592000"), "\(renewed)")
        let idle = try await get(try await session(signedIn: 9 * day, lastUsed: 8 * day))
        #expect(idle.status == 401 && idle.text.contains("7 days"), "\(idle.text)")
        let old = try await get(try await session(signedIn: 31 * day, lastUsed: 60))
        #expect(old.status == 401 && old.text.contains("30 days"), "\(old.text)")
        let otherToken = try await get(try await session(signedIn: 60, lastUsed: 60, token: "another-token-0123456789"))
        #expect(otherToken.status == 401)
        let tampered = try await session(signedIn: 60, lastUsed: 60).replacingOccurrences(of: "v1.", with: "v1.1")
        #expect(try await get(tampered).status == 401)
        try await server.process.stop()
    }

    @Test("error answers never show the server's paths")
    func noServerPaths() async throws {
        let sandbox = try await library("strict-paths")
        let server = try await ServeProcess(sandbox)
        let asset = try #require((try await curl(server.base + "/api/assets", in: sandbox).json()["assets"] as? [[String: Any]])?.first)
        let uuid = String(try #require(asset["id"] as? String).prefix(36))
        // The original gone from the library's disk.
        let shown = try await sandbox.run(["show", uuid, "--json"]).jsonObject()
        let path = try #require(shown["path"] as? String, "\(shown)")
        try FileManager.default.removeItem(atPath: path)
        let gone = try await curl(server.base + "/api/assets/\(uuid)/original", in: sandbox)
        #expect(gone.status == 410, "\(gone.status) \(gone.text)")
        // An upload while the inbox cannot be written (a file stands where the inbox should be).
        try? FileManager.default.removeItem(at: sandbox.inbox)
        try Data("not a folder".utf8).write(to: sandbox.inbox)
        let albums = try #require(try await curl(server.base + "/api/albums", in: sandbox).json()["albums"] as? [[String: Any]])
        let trip = String(try #require(albums.first { $0["title"] as? String == "Trip" }?["id"] as? String).prefix(36))
        let body = sandbox.root.appendingPathComponent("up.jpg")
        try Data(MediaFixtures.jpeg(seed: 9, taken: "2024:03:02 10:00:00")).write(to: body)
        let upload = try await curl(
            server.base + "/api/upload/\(trip)/up.jpg", ["-X", "PUT", "--data-binary", "@" + body.path], in: sandbox)
        #expect(upload.status >= 400, "\(upload.status) \(upload.text)")
        for answer in [gone, upload] {
            #expect(!answer.text.contains(sandbox.root.path), "\(answer.text)")
            #expect(!answer.text.contains("originals/") && !answer.text.contains("derivatives/"), "\(answer.text)")
        }
        try await server.process.stop()
    }

    @Test("album titles and upload names that would display as something else are refused")
    func namesAndTitles() async throws {
        let sandbox = try await library("strict-names")
        let server = try await ServeProcess(sandbox)
        for title in ["report\u{202E}gpj.exe", "a/b", "..", "tab\there", "bell\u{07}", "c1\u{85}", "  ", "x\u{2066}y"] {
            let body = try JSONSerialization.data(withJSONObject: ["title": title])
            let created = try await curl(
                server.base + "/api/albums", ["-X", "POST", "--data-binary", String(decoding: body, as: UTF8.self)],
                in: sandbox)
            #expect(created.status == 400, "\(title.debugDescription): \(created.status) \(created.text)")
        }
        let albums = try #require(try await curl(server.base + "/api/albums", in: sandbox).json()["albums"] as? [[String: Any]])
        let trip = String(try #require(albums.first { $0["title"] as? String == "Trip" }?["id"] as? String).prefix(36))
        let renamed = try await curl(
            server.base + "/api/albums/\(trip)", ["-X", "PATCH", "--data", #"{"title": "Trip\u202e"}"#], in: sandbox)
        #expect(renamed.status == 400, "\(renamed.text)")
        let body = sandbox.root.appendingPathComponent("up.jpg")
        try Data(MediaFixtures.jpeg(seed: 11, taken: "2024:03:02 10:00:00")).write(to: body)
        for name in ["photo%E2%80%AEgpj.jpg", "a%2F..%2Fb.jpg", "..", "ctl%01.jpg", "c1%C2%85.jpg"] {
            let upload = try await curl(
                server.base + "/api/upload/\(trip)/\(name)", ["-X", "PUT", "--data-binary", "@" + body.path], in: sandbox)
            #expect([400, 404].contains(upload.status), "\(name): \(upload.status) \(upload.text)")
        }
        #expect(sandbox.files(under: sandbox.inbox).isEmpty, "\(sandbox.files(under: sandbox.inbox))")
        try await server.process.stop()
    }
}
