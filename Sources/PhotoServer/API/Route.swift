/// One operation `serve` answers: a method and a path template, written as the OpenAPI document writes them
/// (`GET /api/assets/{id}/thumbnail`), and what answers it.
///
/// ``table`` is the whole of what `serve` answers: requests are dispatched by looking them up there (``match(method:path:)``),
/// so that an operation missing from it cannot be answered, and the tests walk it against the OpenAPI document
/// (`/api/openapi.json`, `docs/openapi.json`).
public struct Route: Sendable, Hashable, CustomStringConvertible {
    /// What answers a route.
    public enum Operation: String, Sendable, CaseIterable {
        case galleryPage, galleryScript, galleryStyle, metrics, openAPI, status, events
        case listAlbums, createAlbum, getAlbum, renameAlbum, listAlbumAssets, removeFromAlbum
        case listAssets, getAsset, thumbnail, preview, original, video, favorite, deleteAsset, restoreAsset, listTrash
        case upload, uploadOutcome
    }

    /// `GET`, `POST`, `PATCH`, `PUT` or `DELETE` (`HEAD` is answered as `GET`, without the body).
    public let method: String
    /// The path template: literal segments and `{name}` parameters, one segment each.
    public let path: String
    public let operation: Operation

    public var description: String { "\(method) \(path)" }

    init(_ method: String, _ path: String, _ operation: Operation) {
        self.method = method
        self.path = path
        self.operation = operation
    }

    /// Every route, in the order of the OpenAPI document.
    public static let table: [Route] = [
        Route("GET", "/", .galleryPage),
        Route("GET", "/index.html", .galleryPage),
        Route("GET", "/gallery.js", .galleryScript),
        Route("GET", "/gallery.css", .galleryStyle),
        Route("GET", "/metrics", .metrics),
        Route("GET", "/api/openapi.json", .openAPI),
        Route("GET", "/api/status", .status),
        Route("GET", "/api/events", .events),
        Route("GET", "/api/albums", .listAlbums),
        Route("POST", "/api/albums", .createAlbum),
        Route("GET", "/api/albums/{id}", .getAlbum),
        Route("PATCH", "/api/albums/{id}", .renameAlbum),
        Route("POST", "/api/albums/{id}", .renameAlbum),
        Route("GET", "/api/albums/{id}/assets", .listAlbumAssets),
        Route("POST", "/api/albums/{id}/remove", .removeFromAlbum),
        Route("GET", "/api/assets", .listAssets),
        Route("GET", "/api/assets/{id}", .getAsset),
        Route("DELETE", "/api/assets/{id}", .deleteAsset),
        Route("GET", "/api/assets/{id}/thumbnail", .thumbnail),
        Route("GET", "/api/assets/{id}/preview", .preview),
        Route("GET", "/api/assets/{id}/original", .original),
        Route("GET", "/api/assets/{id}/video", .video),
        Route("POST", "/api/assets/{id}/favorite", .favorite),
        Route("POST", "/api/assets/{id}/restore", .restoreAsset),
        Route("GET", "/api/trash", .listTrash),
        Route("PUT", "/api/upload/{album}/{name}", .upload),
        Route("GET", "/api/outcomes/{id}", .uploadOutcome),
    ]

    /// A request matched to its route, with the path's parameters (an asset's or album's `id` as its bare UUID, or a
    /// smart album's name).
    public struct Match: Sendable {
        public let route: Route
        public let parameters: [String: String]
        func parameter(_ name: String) -> String { parameters[name] ?? "" }
    }

    /// Why a request has no route: no such path (404), or not with this method (405, with the methods there are).
    public enum Miss: Error {
        case noSuchPath
        case method(allowed: [String])
    }

    /// The route of `method` (HEAD as GET) and `path` (without its query).
    ///
    /// Paths under `/api/assets/` and `/api/albums/` name their object as ``ResourcePath`` reads it (a UUID, with or
    /// without PhotoKit's `/L0/001` suffix, or a smart album's name), never as a file: anything else is no path.
    public static func match(method: String, path: String) -> Result<Match, Miss> {
        let method = method == "HEAD" ? "GET" : method
        var template = path
        var parameters: [String: String] = [:]
        for prefix in ["/api/assets/", "/api/albums/"] where path.hasPrefix(prefix) {
            guard let target = ResourcePath(path.dropFirst(prefix.count)) else { return .failure(.noSuchPath) }
            template = prefix + "{id}" + (target.action.map { "/" + $0 } ?? "")
            parameters["id"] = target.uuid
        }
        var allowed: [String] = []
        for route in table {
            let found: [String: String]?
            if parameters.isEmpty {
                found = bind(route.path, to: template)
            } else {
                found = route.path == template ? parameters : nil
            }
            guard let found else { continue }
            if route.method == method { return .success(Match(route: route, parameters: found)) }
            allowed.append(route.method)
        }
        return .failure(allowed.isEmpty ? .noSuchPath : .method(allowed: allowed))
    }

    /// The parameters of `path` under `template` (one non-empty segment per `{name}`), or nil when it does not fit.
    private static func bind(_ template: String, to path: String) -> [String: String]? {
        let want = template.split(separator: "/", omittingEmptySubsequences: false)
        let have = path.split(separator: "/", omittingEmptySubsequences: false)
        guard want.count == have.count else { return nil }
        var parameters: [String: String] = [:]
        for (pattern, segment) in zip(want, have) {
            if pattern.hasPrefix("{") && pattern.hasSuffix("}") {
                guard !segment.isEmpty else { return nil }
                parameters[String(pattern.dropFirst().dropLast())] = String(segment)
            } else if pattern != segment {
                return nil
            }
        }
        return parameters
    }
}
