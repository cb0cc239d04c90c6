import Foundation
import TestFixtures
import Testing

/// The recipe examples/nginx-tls-proxy run for real: nginx with a self-signed certificate, in front of a real `serve`
/// (`behindProxy: true`), both started here and stopped by their PIDs. Through the proxy: the sign-in and its `Secure`
/// cookie, the gallery, the API, an upload, and the event stream arriving as it happens (buffering off).
@Suite(
    "recipe: serve behind nginx with TLS", .serialized, .timeLimit(.minutes(3)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl (apt-get install curl)"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl"), "openssl (apt-get install openssl)"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/sbin/nginx"), "nginx (apt-get install nginx)"))
struct NginxRecipeTests {
    static let token = "nginx-recipe-token-0123456789"
    static let site = packageRootPath + "/examples/nginx-tls-proxy/photodrop.conf"

    @Test("the gallery, sign-in, API, an upload and live events through nginx's TLS")
    func throughNginx() async throws {
        let sandbox = try Sandbox(
            "nginx", settings: ["serve": ["listen": "127.0.0.1:0", "token": Self.token, "behindProxy": true]])
        let photo = sandbox.root.appendingPathComponent("drop/Trip/photo.jpg")
        try FileManager.default.createDirectory(at: photo.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(MediaFixtures.jpeg(seed: 1)).write(to: photo)
        #expect(try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path]).status == 0)
        let daemon = try WatchDaemon(sandbox)
        let server = try await ServeProcess(sandbox)
        let servePort = try #require(server.base.split(separator: ":").last.map(String.init))

        // A certificate for photos.test, and the example site with its ports and paths set for this machine.
        let folder = sandbox.root.appendingPathComponent("nginx")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("tmp"), withIntermediateDirectories: true)
        let made = try await runProcess(
            URL(fileURLWithPath: "/usr/bin/openssl"),
            ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj", "/CN=photos.test",
             "-addext", "subjectAltName=DNS:photos.test",
             "-keyout", folder.appendingPathComponent("key.pem").path, "-out", folder.appendingPathComponent("cert.pem").path])
        #expect(made.status == 0, "\(made)")
        let port = try await freeLoopbackPort()
        var site = try String(contentsOfFile: Self.site, encoding: .utf8)
        let rewrites = [
            ("listen 443 ssl;", "listen 127.0.0.1:\(port) ssl;"), ("listen [::]:443 ssl;", ""),
            ("server_name photos.example.net;", "server_name photos.test;"),
            ("/etc/ssl/certs/photos.example.net.pem", folder.appendingPathComponent("cert.pem").path),
            ("/etc/ssl/private/photos.example.net.key", folder.appendingPathComponent("key.pem").path),
            ("http://127.0.0.1:8377", "http://127.0.0.1:\(servePort)"),
        ]
        for (from, to) in rewrites {
            #expect(site.contains(from), "the example no longer has '\(from)'")
            site = site.replacingOccurrences(of: from, with: to)
        }
        try site.write(to: folder.appendingPathComponent("site.conf"), atomically: true, encoding: .utf8)
        let temp = folder.appendingPathComponent("tmp").path
        let main = """
            \(getuid() == 0 ? "user root;" : "")
            daemon off;
            worker_processes 1;
            pid \(folder.appendingPathComponent("nginx.pid").path);
            error_log \(folder.appendingPathComponent("error.log").path) info;
            events { worker_connections 256; }
            http {
                access_log \(folder.appendingPathComponent("access.log").path);
                client_body_temp_path \(temp)/body;
                proxy_temp_path \(temp)/proxy;
                fastcgi_temp_path \(temp)/fastcgi;
                uwsgi_temp_path \(temp)/uwsgi;
                scgi_temp_path \(temp)/scgi;
                include \(folder.appendingPathComponent("site.conf").path);
            }
            """
        try main.write(to: folder.appendingPathComponent("nginx.conf"), atomically: true, encoding: .utf8)
        let checked = try await runProcess(
            URL(fileURLWithPath: "/usr/sbin/nginx"),
            ["-t", "-p", folder.path, "-c", folder.appendingPathComponent("nginx.conf").path])
        #expect(checked.status == 0, "nginx -t: \(checked.stderr)")
        let nginx = try BackgroundProgram(
            "/usr/sbin/nginx", ["-p", folder.path, "-c", folder.appendingPathComponent("nginx.conf").path],
            log: folder.appendingPathComponent("nginx.out"))
        do {
            try await Self.exercise(port: port, folder: folder, sandbox: sandbox, nginx: nginx)
        } catch {
            await nginx.stop()
            throw error
        }
        await nginx.stop()
        try await server.process.stop()
        #expect(try await daemon.stop() == 0)
    }

    /// Everything through the proxy at `port`.
    static func exercise(port: Int, folder: URL, sandbox: Sandbox, nginx: BackgroundProgram) async throws {
        let base = "https://photos.test:\(port)"
        let tls = ["--resolve", "photos.test:\(port):127.0.0.1", "--cacert", folder.appendingPathComponent("cert.pem").path]
        func through(_ path: String, _ options: [String] = [], token: String? = NginxRecipeTests.token) async throws -> CurlReply {
            try await ServeHarness.curl(base + path, tls + options, token: token, in: sandbox)
        }
        #expect(
            await eventuallyTrue(timeout: 30) {
                let probe = try? ProcessRunner.runBlocking(
                    URL(fileURLWithPath: "/usr/bin/curl"), ["-s", "-o", "/dev/null", "-w", "%{http_code}"] + tls + [base + "/"])
                return probe?.stdout == "401"
            }, "nginx answers over TLS: \(nginx.output)")

        // Sign-in: the token leaves the address bar, the session cookie is Secure (behindProxy), the gallery opens.
        let jar = folder.appendingPathComponent("cookies").path
        let signIn = try await through("/?token=\(Self.token)", ["-c", jar], token: nil)
        #expect(signIn.status == 303, "\(signIn.status) \(signIn.text)")
        #expect(signIn.headers["set-cookie"]?.contains("Secure") == true, "\(signIn.headers)")
        let gallery = try await through("/", ["-b", jar], token: nil)
        #expect(gallery.status == 200 && gallery.text.contains("<html"), "\(gallery.status)")

        // The API, and an upload that streams through into the album's inbox folder and is filed by watch.
        let albums = try await through("/api/albums").json()
        let trip = try #require((albums["albums"] as? [[String: Any]])?.first { $0["title"] as? String == "Trip" })
        let tripID = String(try #require(trip["id"] as? String).prefix(36))
        let upload = sandbox.root.appendingPathComponent("upload.jpg")
        try Data(MediaFixtures.jpeg(seed: 2)).write(to: upload)
        let uploaded = try await through("/api/upload/\(tripID)/upload.jpg", ["-X", "PUT", "--data-binary", "@\(upload.path)"])
        #expect(uploaded.status == 201, "\(uploaded.status) \(uploaded.text)")
        let outcome = try #require(try uploaded.json()["outcome"] as? String)
        #expect(
            await eventuallyTrue(timeout: 60) {
                let reply = try? ProcessRunner.runBlocking(
                    URL(fileURLWithPath: "/usr/bin/curl"),
                    ["-s", "-H", "Authorization: Bearer \(Self.token)"] + tls + [base + outcome])
                return reply?.stdout.contains("\"state\":\"stored\"") == true
            }, "the upload through nginx was stored")

        // The event stream: a change arrives through the proxy within seconds, not when a buffer fills.
        let events = folder.appendingPathComponent("events.txt")
        let stream = try BackgroundProgram(
            "/usr/bin/curl", ["-s", "-N", "-H", "Authorization: Bearer \(Self.token)"] + tls + [base + "/api/events"],
            log: events)
        try await Task.sleep(for: .milliseconds(500))
        let assets = try await through("/api/assets?fields=brief").json()
        let first = String(try #require((assets["assets"] as? [[String: Any]])?.first?["id"] as? String).prefix(36))
        let changed = Date()
        #expect(try await through("/api/assets/\(first)/favorite", ["-X", "POST", "--data-binary", #"{"favorite": true}"#]).status == 200)
        #expect(
            await eventuallyTrue(timeout: 10) {
                ((try? String(contentsOf: events, encoding: .utf8)) ?? "").contains("event: change")
            }, "the change's event came through nginx")
        #expect(Date().timeIntervalSince(changed) < 5, "the event took \(Date().timeIntervalSince(changed)) s")
        await stream.stop()
    }
}
