import Foundation
import PhotoServer
import TestFixtures
import Testing

/// The OpenAPI document (`/api/openapi.json`, `docs/openapi.json`) against the server's route table and a live `serve`:
/// every route of ``PhotoServer/Route/table`` is in the document and every operation of the document is a route; then
/// each route is called on a real server over a real library (and the usual mistakes: an unknown id, a bad parameter,
/// a wrong method, no token), and every answer's status, content type and JSON body must be what the document allows.
@Suite(
    "the OpenAPI document against the route table and a live serve", .serialized, .timeLimit(.minutes(3)),
    .requires(PhotodropBinary.isBuilt, "the photodrop binary is built"),
    .requires(FileManager.default.isExecutableFile(atPath: "/usr/bin/curl"), "curl (apt-get install curl)"))
struct OpenAPITests {
    static let token = "openapi-test-token-0123456789"

    static func document() throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(OpenAPIDocument.bytes)) as? [String: Any])
    }

    /// The document's operations as `METHOD /path`.
    static func operations(_ document: [String: Any]) -> Set<String> {
        var operations = Set<String>()
        for (path, item) in document["paths"] as? [String: [String: Any]] ?? [:] {
            for method in item.keys where ["get", "put", "post", "delete", "patch", "head", "options"].contains(method) {
                operations.insert("\(method.uppercased()) \(path)")
            }
        }
        return operations
    }

    @Test("every route is in the document and every documented operation is a route; docs/openapi.json is the served document")
    func documentAndRouteTableAgree() throws {
        let document = try Self.document()
        #expect(document["openapi"] as? String == "3.1.0")
        let routes = Set(Route.table.map(\.description))
        let documented = Self.operations(document)
        #expect(routes.count == Route.table.count, "a route is in the table twice")
        #expect(routes.subtracting(documented).isEmpty, "routes missing from the document: \(routes.subtracting(documented).sorted())")
        #expect(documented.subtracting(routes).isEmpty, "documented, but not routes: \(documented.subtracting(routes).sorted())")
        // Every operation answers errors in the one documented shape.
        let check = JSONSchemaCheck(document: document)
        for operation in documented.sorted() {
            let parts = operation.split(separator: " ")
            let responses = try #require(Self.operation(document, String(parts[0]), String(parts[1]))?["responses"] as? [String: Any])
            for (status, response) in responses where (Int(status) ?? 0) >= 400 {
                guard let content = Self.resolved(response, check)["content"] as? [String: Any],
                    let json = content["application/json"] as? [String: Any]
                else {
                    // The gallery's pages answer a missing sign-in with the sign-in page (HTML), as browsers need.
                    #expect(status == "401" && !operation.contains(" /api/"), "\(operation) \(status) has no JSON error")
                    continue
                }
                #expect((json["schema"] as? [String: Any])?["$ref"] as? String == "#/components/schemas/Error", "\(operation) \(status)")
            }
        }
        // The check catches what the document does not allow: a wrong type, a missing or an undocumented field.
        let error = ["$ref": "#/components/schemas/Error"]
        #expect(check.problems(["error": "no asset"], error).isEmpty)
        #expect(!check.problems(["error": 1], error).isEmpty)
        #expect(!check.problems([String: Any](), error).isEmpty)
        #expect(!check.problems(["error": "x", "path": "/srv/photos"], error).isEmpty)
        #expect(!check.problems(["removed": -1], ["$ref": "#/components/schemas/Removed"]).isEmpty)
        let copy = try Data(contentsOf: URL(fileURLWithPath: packageRootPath + "/docs/openapi.json"))
        #expect(
            copy == Data(OpenAPIDocument.bytes),
            "docs/openapi.json differs from Sources/PhotoServer/API/openapi.json: cp Sources/PhotoServer/API/openapi.json docs/")
    }

    @Test("a live serve answers every route as the document says, errors included")
    func everyRouteAnswersAsDocumented() async throws {
        try skipUnless(FileManager.default.isExecutableFile(atPath: "/usr/bin/ffmpeg"), "ffmpeg (apt-get install ffmpeg)")
        let sandbox = try Sandbox(
            "openapi", settings: ["serve": ["listen": "127.0.0.1:0", "token": Self.token, "maxUploadBytes": 1 << 20]])
        // Real files, which the decoders read (thumbnails, previews): JPEGs and an H.264 movie written by ffmpeg.
        func ffmpeg(_ source: String, _ output: String, _ extra: [String]) async throws {
            let path = sandbox.root.appendingPathComponent(output).path
            try FileManager.default.createDirectory(
                atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            let made = try await runProcess(
                URL(fileURLWithPath: "/usr/bin/ffmpeg"), ["-v", "error", "-y", "-f", "lavfi", "-i", source] + extra + [path])
            #expect(made.status == 0, "\(made)")
        }
        for index in 0..<3 {
            try await ffmpeg("testsrc2=size=\(160 + 16 * index)x120", "drop/Trip/photo-\(index).jpg", ["-frames:v", "1"])
        }
        try sandbox.write("drop/Trip/anim.gif", MediaFixtures.gif())
        try await ffmpeg(
            "testsrc2=size=160x120:rate=25:duration=1", "drop/Trip/clip.mp4", ["-c:v", "libx264", "-pix_fmt", "yuv420p"])
        try await ffmpeg("testsrc2=size=200x150", "upload.jpg", ["-frames:v", "1"])
        let imported = try await sandbox.run(["import", sandbox.root.appendingPathComponent("drop").path])
        #expect(imported.status == 0, "\(imported)")
        let daemon = try WatchDaemon(sandbox)
        let server = try await ServeProcess(sandbox)
        let walk = try RouteWalk(document: try Self.document(), base: server.base, sandbox: sandbox)

        // The gallery and the operations' own routes.
        for path in ["/", "/index.html", "/gallery.js", "/gallery.css", "/metrics", "/api/openapi.json"] {
            try await walk.call("GET", path, expect: 200)
        }
        try await walk.call("GET", "/", auth: false, expect: 401)
        let status = try await walk.call("GET", "/api/status", expect: 200)
        try await walk.call("GET", "/api/status", auth: false, expect: 401)
        try await walk.call("GET", "/api/events", ["--max-time", "2"], expect: 200)
        let since = try #require((status["lastChange"] as? [String: Any])?["token"] as? String)
        // The whole history so far (the import's commits) as events, each checked against the event's schema.
        let history = try await walk.reply(
            "GET", "/api/events?since=\(since.prefix { $0 != ":" }):0", ["--max-time", "2"], expect: 200)
        #expect(history.text.components(separatedBy: "event: change").count > 1, "\(history.text.prefix(300))")
        try await walk.call("GET", "/api/events?since=not-a-token", expect: 400)
        try await walk.call("GET", "/api/events?since=\(since)", ["-H", "Last-Event-ID: not-a-token"], expect: 400)

        // Albums.
        let albums = try await walk.call("GET", "/api/albums", expect: 200)
        let trip = try #require((albums["albums"] as? [[String: Any]])?.first { $0["title"] as? String == "Trip" })
        let tripID = String(try #require(trip["id"] as? String).prefix(36))
        let created = try await walk.call("POST", "/api/albums", json: ["title": "Made by the test"], expect: 201)
        let madeID = String(try #require(created["id"] as? String).prefix(36))
        try await walk.call("POST", "/api/albums", json: ["title": ""], expect: 400)
        try await walk.call("PUT", "/api/albums", expect: 405)
        try await walk.call("GET", "/api/albums/\(madeID)", expect: 200)
        try await walk.call("GET", "/api/albums/SmartAlbum-Favorites", expect: 200)
        try await walk.call("PATCH", "/api/albums/\(madeID)", json: ["title": "Renamed"], expect: 200)
        try await walk.call("POST", "/api/albums/\(madeID)", json: ["title": "Renamed again"], expect: 200)
        try await walk.call("GET", "/api/albums/00000000-0000-0000-0000-000000000000", expect: 404)
        try await walk.call("GET", "/api/albums/\(tripID)/assets", expect: 200)
        try await walk.call("GET", "/api/albums/\(tripID)/assets?fields=brief&limit=2", expect: 200)
        try await walk.call("GET", "/api/albums/\(tripID)/assets?limit=0", expect: 400)

        // Assets.
        let page = try await walk.call("GET", "/api/assets", expect: 200)
        let assets = try #require(page["assets"] as? [[String: Any]])
        #expect(assets.count == 5)
        func id(_ kind: String) throws -> String {
            String(try #require(assets.first { $0["kind"] as? String == kind }?["id"] as? String).prefix(36))
        }
        let photo = try id("photo")
        let clip = try id("video")
        try await walk.call("GET", "/api/assets?fields=brief&kind=photo&favorite=false&limit=1", expect: 200)
        try await walk.call("GET", "/api/assets?since=\(since)", expect: 200)
        try await walk.call("GET", "/api/assets?kind=nope", expect: 400)
        try await walk.call("GET", "/api/assets/\(photo)?warm=\(clip)", expect: 200)
        try await walk.call("GET", "/api/assets/00000000-0000-0000-0000-000000000000", expect: 404)
        try await walk.call("GET", "/api/assets/\(photo)/../../etc/passwd", expect: 404)
        let thumbnail = try await walk.reply("GET", "/api/assets/\(photo)/thumbnail", expect: 200)
        let etag = try #require(thumbnail.headers["etag"])
        try await walk.call("GET", "/api/assets/\(photo)/thumbnail", ["-H", "If-None-Match: \(etag)"], expect: 304)
        try await walk.call("GET", "/api/assets/\(photo)/preview", ["-H", "Range: bytes=0-9"], expect: 206)
        try await walk.call("GET", "/api/assets/\(photo)/original", expect: 200)
        try await walk.call("GET", "/api/assets/\(photo)/original", ["-H", "Range: bytes=999999-"], expect: 416)
        try await walk.call("GET", "/api/assets/\(clip)/video", expect: 200)
        try await walk.call("GET", "/api/assets/\(photo)/video", expect: 422)
        try await walk.call("POST", "/api/assets/\(photo)/favorite", json: ["favorite": true], expect: 200)
        try await walk.call("POST", "/api/assets/\(photo)/favorite", json: ["favorite": "yes"], expect: 400)
        try await walk.call("POST", "/api/assets/\(photo)/restore", expect: 409)
        try await walk.call("POST", "/api/albums/\(tripID)/remove", json: ["assets": [photo]], expect: 200)
        try await walk.call("POST", "/api/albums/\(tripID)/remove", json: ["assets": "x"], expect: 400)
        try await walk.call("DELETE", "/api/assets/\(photo)", expect: 200)
        try await walk.call("GET", "/api/trash", expect: 200)
        try await walk.call("POST", "/api/assets/\(photo)/restore", expect: 200)
        try await walk.call("GET", "/api/assets/\(photo)/favorite", expect: 405)

        // Uploads, and what became of them once watch took the file.
        let upload = sandbox.root.appendingPathComponent("upload.jpg")
        let receipt = try await walk.call(
            "PUT", "/api/upload/\(tripID)/upload.jpg", ["--data-binary", "@\(upload.path)"], expect: 201)
        let outcome = "/api/outcomes/" + (try #require(receipt["id"] as? String))
        try await walk.call("GET", outcome, expect: 200)
        #expect(
            await eventuallyTrue(timeout: 60) {
                let reply = try? ServeHarness.curlBlocking(server.base + outcome, token: Self.token, in: sandbox)
                return ((try? reply?.json())?["state"] as? String) == "stored"
            }, "the upload was stored")
        try await walk.call("GET", outcome, expect: 200)  // with its outcome's fields
        try await walk.call("GET", "/api/outcomes/99999999", expect: 404)
        try await walk.call("PUT", "/api/upload/\(tripID)/.hidden.jpg", ["--data-binary", "@\(upload.path)"], expect: 400)
        try await walk.call("PUT", "/api/upload/00000000-0000-0000-0000-000000000000/a.jpg", ["--data-binary", "x"], expect: 404)
        try await walk.call("POST", "/api/upload/\(tripID)/a.jpg", ["--data-binary", "x"], expect: 405)

        // Every route was called and answered as documented (the calls above recorded each), or the walk is incomplete.
        let missed = Route.table.map(\.description).filter { !walk.answered.contains($0) }
        #expect(missed.isEmpty, "routes not walked: \(missed)")
        #expect(walk.failures.isEmpty, "\(walk.failures.joined(separator: "\n"))")

        try await server.process.stop()
        #expect(try await daemon.stop() == 0)
    }

    static func operation(_ document: [String: Any], _ method: String, _ path: String) -> [String: Any]? {
        ((document["paths"] as? [String: Any])?[path] as? [String: Any])?[method.lowercased()] as? [String: Any]
    }

    static func resolved(_ value: Any, _ check: JSONSchemaCheck) -> [String: Any] {
        guard let object = value as? [String: Any] else { return [:] }
        if let reference = object["$ref"] as? String { return check.resolve(reference) ?? [:] }
        return object
    }
}

/// Calls a live serve and checks each answer against the document; remembers which routes answered as documented.
final class RouteWalk: @unchecked Sendable {
    // @unchecked: one test drives it, one call at a time.
    let document: [String: Any]
    let check: JSONSchemaCheck
    let base: String
    let sandbox: Sandbox
    private(set) var answered = Set<String>()
    private(set) var failures: [String] = []

    init(document: [String: Any], base: String, sandbox: Sandbox) throws {
        self.document = document
        self.check = JSONSchemaCheck(document: document)
        self.base = base
        self.sandbox = sandbox
    }

    /// Calls `method path`, expects `status`, checks the answer against the document, and returns its JSON object (or
    /// an empty one).
    @discardableResult
    func call(
        _ method: String, _ path: String, _ options: [String] = [], json: [String: Any]? = nil, auth: Bool = true,
        expect status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> [String: Any] {
        let reply = try await self.reply(
            method, path, options, json: json, auth: auth, expect: status, sourceLocation: sourceLocation)
        return (try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any]) ?? [:]
    }

    func reply(
        _ method: String, _ path: String, _ options: [String] = [], json: [String: Any]? = nil, auth: Bool = true,
        expect status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) async throws -> CurlReply {
        var arguments = ["-X", method] + options
        if let json {
            arguments += ["-H", "Content-Type: application/json", "--data-binary", String(decoding: try JSONSerialization.data(withJSONObject: json), as: UTF8.self)]
        }
        let reply = try await ServeHarness.curl(
            base + path, arguments, token: auth ? OpenAPITests.token : nil, in: sandbox)
        #expect(reply.status == status, "\(method) \(path): \(reply.status) \(reply.text.prefix(300))", sourceLocation: sourceLocation)
        let problems = conformance(method, path, reply)
        if problems.isEmpty {
            if case .success(let match) = Route.match(method: method, path: String(path.prefix { $0 != "?" })) {
                answered.insert(match.route.description)
            }
        } else {
            failures += problems.map { "\(method) \(path) → \(reply.status): \($0)" }
        }
        return reply
    }

    /// What in `reply` the document does not allow for `method path`.
    func conformance(_ method: String, _ path: String, _ reply: CurlReply) -> [String] {
        let bare = String(path.prefix { $0 != "?" })
        let template: String
        switch Route.match(method: method, path: bare) {
        case .success(let match): template = match.route.path
        case .failure:
            // No route: 404 or 405, which every operation documents in the one error shape.
            guard reply.status == 404 || reply.status == 405 else { return ["no route, and not 404 or 405"] }
            return check.problems(
                (try? JSONSerialization.jsonObject(with: reply.body)) ?? "not JSON", ["$ref": "#/components/schemas/Error"])
        }
        guard let operation = OpenAPITests.operation(document, method, template) else { return ["not in the document"] }
        guard let response = (operation["responses"] as? [String: Any])?[String(reply.status)] else {
            return ["status \(reply.status) is not documented"]
        }
        let resolved = OpenAPITests.resolved(response, check)
        guard let content = resolved["content"] as? [String: Any] else {
            return reply.body.isEmpty || method == "HEAD" ? [] : ["a body where the document has none"]
        }
        let type = (reply.headers["content-type"] ?? "").split(separator: ";").first.map {
            $0.trimmingCharacters(in: .whitespaces).lowercased()
        } ?? ""
        let key = content.keys.first { documented in
            let media = documented.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() } ?? ""
            return media == type || media == "*/*" || (media.hasSuffix("/*") && type.hasPrefix(media.dropLast()))
        }
        guard let key else { return ["content type '\(type)' is not one of \(content.keys.sorted())"] }
        guard let schema = ((content[key] as? [String: Any])?["schema"] as? [String: Any]) else { return [] }
        if type == "text/event-stream" {
            // Each event (a block of `field: value` lines) against the event's schema.
            var problems: [String] = []
            for block in reply.text.components(separatedBy: "\n\n") where !block.isEmpty {
                var event: [String: Any] = [:]
                for line in block.split(separator: "\n") where !line.hasPrefix(":") {
                    let parts = line.split(separator: ":", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                    guard parts.count == 2 else { continue }
                    event[parts[0]] = parts[0] == "retry" ? (Int(parts[1]).map { NSNumber(value: $0) } ?? parts[1] as Any) : parts[1]
                }
                problems += check.problems(event, schema, at: "event")
            }
            return problems
        }
        guard type == "application/json" else { return [] }
        guard let value = try? JSONSerialization.jsonObject(with: reply.body, options: [.fragmentsAllowed]) else {
            return ["the body is not JSON"]
        }
        return check.problems(value, schema)
    }
}
