import FoundationEssentials

import LibraryJSON
import PhotoCatalog
import PhotoImageManager
import PhotodropSystem
import Rendering
import Synchronization
import PhotodropTelemetry
import Uploads

/// The HTTP API over one library: JSON in the shapes of the command line's `--json` (LibraryJSON), media with
/// ranges and validators, and the few changes a gallery makes. Reads through the library's own read connections;
/// changes go through its normal writer (`performChanges`), so they appear in the change history like any other.
final class LibraryAPI: Sendable {
    let library: PhotoLibrary
    let images: CachingImageManager
    let policy: AccessPolicy
    let events: ChangeFeed
    let maker: DerivativeMaker
    /// The picture cache (the image manager's): versioned pictures, kept whole when small.
    var pictures: PictureCache { images.pictures }
    /// The album list and the change feed's generation it was made at.
    let albumList = Mutex<(generation: UInt64, list: JSONNode)?>(nil)
    /// Smart albums by identifier, as handles for their pages (their counts go stale; answers never show them).
    let collections = Mutex<[String: AssetCollection]>([:])
    /// The report of `status --json`.
    let status: @Sendable () -> JSONNode
    /// Where `PUT /api/upload/…` writes; nil: no uploads.
    let uploads: UploadSettings?
    /// Requests and their durations, for `/metrics`.
    let metrics = HTTPMetrics()
    /// The server's folders, kept out of error messages.
    let serverPaths: ServerPaths
    /// serve's log (rate-limited): refused sign-ins and tokens leave a trace there.
    let log: @Sendable (String) -> Void
    /// The file `watch` writes its metrics to (config `metrics.textfile`): `/metrics` adds what it last wrote.
    let watchMetricsFile: String?
    /// What the HTTP server counts of its connections (set once it exists), for `/metrics`.
    var connections: @Sendable () -> (ConnectionGuard.Counts, limit: Int, waitingJobs: Int)? {
        get { connectionSource.withLock { $0 } }
        set { connectionSource.withLock { $0 = newValue } }
    }
    private let connectionSource = Mutex<@Sendable () -> (ConnectionGuard.Counts, limit: Int, waitingJobs: Int)?>({ nil })

    /// Assets per page when the client does not say; at most ``maximumPageSize``.
    static let defaultPageSize = 200
    static let maximumPageSize = 1000

    public init(
        library: PhotoLibrary, images: CachingImageManager, maker: DerivativeMaker, policy: AccessPolicy,
        events: ChangeFeed, uploads: UploadSettings? = nil, watchMetricsFile: String? = nil,
        log: @escaping @Sendable (String) -> Void = { _ in }, status: @escaping @Sendable () -> JSONNode
    ) {
        self.log = log
        serverPaths = ServerPaths(library: library.url.path, inbox: uploads?.inbox.path, rejected: uploads?.rejected)
        self.uploads = uploads
        self.watchMetricsFile = watchMetricsFile
        self.status = status
        self.library = library
        self.images = images
        self.maker = maker
        self.policy = policy
        self.events = events
    }

    /// Makes one small page of each kind before the first client asks: the first use of a code path in a process
    /// pays one-time costs (the Swift runtime's type and conformance lookups, statement preparation, a reader
    /// connection), which made a new server's first page several times slower than the rest.
    func warmUp() {
        let options = FetchOptions(
            sortDescriptors: [FetchSortDescriptor(key: .creationDate, ascending: false)], fetchLimit: 2)
        guard let assets = try? Array(Asset.fetchAssets(with: options, library: library)) else { return }
        _ = (try? briefly(assets)).map { HTTPResponse.json(200, .object([("assets", .array($0))])) }
        _ = (try? described(assets)).map { HTTPResponse.json(200, .object([("assets", .array($0))])) }
    }

    // MARK: Before the body

    /// Answers what can be decided from the request line and headers: the login, a wrong host, a missing token.
    public func screen(_ request: HTTPRequest) -> HTTPResponse? {
        if request.path == "/", let token = request.argument("token") {
            guard policy.acceptsHost(request.header("Host")) else {
                return secured(.error(421, "this server does not answer to that host name"))
            }
            guard policy.isToken(token) else {
                log("refused 401 sign-in with a wrong token from \(request.client)")
                return secured(.text(401, GalleryPages.signIn(failed: true), type: "text/html; charset=utf-8"))
            }
            // The token leaves the address bar: the browser keeps a session cookie instead.
            return secured(
                HTTPResponse(status: 303, headers: [("Location", "/"), ("Set-Cookie", policy.sessionCookie())]))
        }
        let decision = policy.decide(
            method: request.method, host: request.header("Host"), origin: request.header("Origin"),
            authorization: request.header("Authorization"), cookie: request.cookie(AccessPolicy.cookieName))
        switch decision {
        case .allowed: return nil
        case .refused(let status, let message):
            // A trace of failed sign-ins and foreign pages; the path only (a query may hold a token).
            log("refused \(status) \(request.method) \(request.path) from \(request.client): \(message)")
            if status == 401, request.method == "GET", !request.path.hasPrefix("/api/") {
                return secured(.text(401, GalleryPages.signIn(failed: false), type: "text/html; charset=utf-8"))
            }
            return secured(.error(status, message))
        }
    }

    // MARK: Requests

    /// The answer a request can have at once, on the thread that read it: a versioned picture kept whole in memory
    /// and still current (the gallery's most frequent request). Everything else is answered by ``handle(_:)`` on a
    /// worker.
    func quick(_ request: HTTPRequest) -> HTTPResponse? {
        let started = ContinuousClock.now
        guard request.method == "GET", request.path.utf8.starts(with: "/api/assets/".utf8),
            let target = ResourcePath(request.path.dropFirst(12)), let action = target.action,
            let kind = DerivativeKind(name: action), DerivativeKind.pictures.contains(kind),
            let version = request.argument("v"), version.utf8.count >= CachingImageManager.storedVersionLength,
            request.header("Range") == nil, request.header("If-None-Match") == nil,
            let entry = pictures.entry(
                CachingImageManager.storedPictureKey(of: target.uuid + "/L0/001", kind: kind, version: version)),
            let answer = entry.answer as? KeptResponse, entry.checked == events.currentGeneration
        else { return nil }
        metrics.record(.picture, method: "GET", status: answer.status, duration: ContinuousClock.now - started)
        return HTTPResponse(status: answer.status, body: .kept(answer))
    }

    /// Answers an authorised request.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        let started = ContinuousClock.now
        var response: HTTPResponse
        do {
            response = try route(request)
            // A kept answer carries its headers already (a picture: the session is renewed by the next other answer).
            if case .kept = response.body {} else {
                response = secured(response)
                if let renewed = policy.renewedCookie(
                    request.cookie(AccessPolicy.cookieName), authorization: request.header("Authorization"))
                {
                    response.headers.append(("Set-Cookie", renewed))
                }
            }
        } catch let failure as APIFailure {
            response = secured(failure.response)
        } catch {
            response = secured(.error(500, "\(error)"))
        }
        // The time a JSON answer took to make (not to send), for browsers' resource timing and for monitoring; not on
        // pictures, the hot path, where formatting it cost a tenth of the requests per second.
        if response.headers.contains(where: { $0.0 == "Content-Type" && $0.1.hasPrefix("application/json") }) {
            let (seconds, attoseconds) = (ContinuousClock.now - started).components
            let tenths = Int64(seconds) * 10_000 + attoseconds / 100_000_000_000_000
            response.headers.append(("Server-Timing", "app;dur=\(tenths / 10).\(tenths % 10)"))
        }
        metrics.record(
            HTTPMetrics.Kind(path: request.path[...]), method: request.method, status: response.status,
            duration: ContinuousClock.now - started)
        return response
    }

    /// `GET /metrics`: serve's own metrics, then what `watch` last wrote to `metrics.textfile` (its `photodrop_up`
    /// says whether it runs; the file's age is `photodrop_watch_metrics_age_seconds`).
    private func prometheusMetrics() -> HTTPResponse {
        var text = PrometheusText()
        text.append(raw: metrics.text)
        text.single(
            "photodrop_http_picture_memory_bytes", type: "gauge",
            help: "Memory held by small pictures kept ready to send (serve.pictureCacheMiB).", Double(pictures.keptBytes))
        text.decodeBudget(.shared, prefix: "photodrop_http_")
        if let (counts, limit, waitingJobs) = connections() {
            text.single(
                "photodrop_http_connections", type: "gauge", help: "Connections open (serve).", Double(counts.open))
            text.single(
                "photodrop_http_connection_limit", type: "gauge",
                help: "Connections serve accepts at once (after the open-file limit).", Double(limit))
            text.single(
                "photodrop_http_connections_waiting_for_request", type: "gauge",
                help: "Connections whose next request's headers have not all arrived.", Double(counts.waiting))
            text.single(
                "photodrop_http_event_streams_sleeping", type: "gauge",
                help: "Event streams suspended until the next change.", Double(counts.suspendedStreams))
            text.single(
                "photodrop_http_answers_waiting_for_worker", type: "gauge",
                help: "Requests whose answer waits for a worker thread.", Double(waitingJobs))
            text.family(
                "photodrop_http_connections_closed_total", type: "counter",
                help: "Connections serve closed itself, by reason.")
            text.sample("photodrop_http_connections_closed_total", ["reason": "slow_headers"], Double(counts.cutSlowHeaders))
            text.sample("photodrop_http_connections_closed_total", ["reason": "slow_body"], Double(counts.cutSlowBody))
            text.sample("photodrop_http_connections_closed_total", ["reason": "room"], Double(counts.closedForRoom))
            text.sample("photodrop_http_connections_closed_total", ["reason": "stream_client_left"], Double(counts.streamsLeft))
            text.single(
                "photodrop_http_requests_refused_busy_client_total", type: "counter",
                help: "Requests refused with 429: their client had too many in progress.", Double(counts.refusedBusyClient))
        }
        if let file = watchMetricsFile {
            if let descriptor = try? FileSystem.open(file, [.readOnly, .noFollow]) {
                if let info = try? descriptor.status(), info.isRegularFile, info.size < 4 << 20,
                    let data = try? descriptor.readToEnd(limit: 4 << 20)
                {
                    text.single(
                        "photodrop_watch_metrics_age_seconds", type: "gauge",
                        help: "Age of the metrics photodrop watch last wrote (metrics.textfile).",
                        max(0, Date().timeIntervalSince1970 - Double(info.modification.seconds)).rounded())
                    text.append(raw: String(decoding: data, as: UTF8.self))
                }
            }
        }
        return .text(200, text.text, type: "text/plain; version=0.0.4; charset=utf-8")
    }

    /// Dispatches a request through the route table (``Route/table``): a path it does not have is 404, a method it does
    /// not have for the path 405 with `Allow`.
    private func route(_ request: HTTPRequest) throws -> HTTPResponse {
        let match: Route.Match
        switch Route.match(method: request.method, path: request.path) {
        case .success(let found): match = found
        case .failure(.noSuchPath):
            throw APIFailure(404, request.path.hasPrefix("/api/") ? "no such resource" : "no such page")
        case .failure(.method(let allowed)):
            throw APIFailure.methodNotAllowed(request.method, allowed: allowed)
        }
        switch match.route.operation {
        case .galleryPage: return .text(200, GalleryPages.index, type: "text/html; charset=utf-8")
        case .galleryScript: return .text(200, GalleryScript.source, type: "text/javascript; charset=utf-8")
        case .galleryStyle: return .text(200, GalleryStyle.source, type: "text/css; charset=utf-8")
        case .metrics: return prometheusMetrics()
        case .openAPI:
            return HTTPResponse(
                status: 200, headers: [("Content-Type", "application/json")], body: .bytes(OpenAPIDocument.bytes))
        case .status: return .json(200, status())
        case .events: return try events.stream(since: request.argument("since"), lastEventID: request.header("Last-Event-ID"))
        case .listAlbums: return try albums()
        case .createAlbum: return try createAlbum(request)
        case .getAlbum, .renameAlbum, .listAlbumAssets, .removeFromAlbum:
            return try album(match.parameter("id"), match.route.operation, request: request)
        case .listAssets: return try assets(request)
        case .getAsset, .thumbnail, .preview, .original, .video, .favorite, .deleteAsset, .restoreAsset:
            return try asset(match.parameter("id"), match.route.operation, request: request)
        case .listTrash: return try trash()
        case .upload:
            // Uploads stream into the inbox before a handler would run (``bodyHandling(_:)``); one that gets here had
            // no body to stream.
            throw APIFailure(400, "send the file as the body of a PUT")
        case .uploadOutcome: return try outcome(Substring(match.parameter("id")))
        }
    }

    // MARK: Albums

    private func albums() throws -> HTTPResponse {
        // Counting a smart album reads every asset (a quarter of a second for all of them in a library of 100,000):
        // the list is kept until the library changes, which the change feed sees (inotify, or a change made here).
        let generation = events.currentGeneration
        if let cached = albumList.withLock({ $0?.generation == generation ? $0?.list : nil }) {
            return .json(200, cached)
        }
        let list = try albumListNow()
        albumList.withLock { $0 = (generation, list) }
        return .json(200, list)
    }

    private func albumListNow() throws -> JSONNode {
        var items: [JSONNode] = []
        func walk(_ level: FetchResult<Collection>) throws {
            for collection in level {
                switch collection {
                case .album(let album): items.append(CatalogJSON.album(album))
                case .folder(let folder):
                    items.append(CatalogJSON.folder(folder))
                    try walk(Collection.fetchCollections(in: folder))
                }
            }
        }
        try walk(CollectionList.fetchTopLevelUserCollections(library: library))
        for smart in try AssetCollection.fetchAssetCollections(with: .smartAlbum, subtype: .any, library: library) {
            items.append(CatalogJSON.album(smart))
            // Counted just now: the handle for its pages, so that the first page does not count it again.
            collections.withLock { $0[smart.localIdentifier] = smart }
        }
        return .object([("albums", .array(items))])
    }

    private func album(_ uuid: String, _ operation: Route.Operation, request: HTTPRequest) throws -> HTTPResponse {
        let identifier = uuid.hasPrefix("SmartAlbum-") ? uuid + "/L0/040" : uuid
        // A page needs a smart album only as a handle: fetching it again would count its assets, which reads every
        // row (most of a page's time in a large library).
        let known = operation == .listAlbumAssets ? collections.withLock { $0[identifier] } : nil
        guard
            let album = try known
                ?? AssetCollection.fetchAssetCollections(withLocalIdentifiers: [identifier], library: library)
                .firstObject
        else { throw APIFailure(404, "no album \(uuid)") }
        if known == nil, identifier.hasPrefix("SmartAlbum-") {
            // A smart album is never deleted; a regular one can be, and costs nothing to fetch (its count is stored).
            collections.withLock { $0[identifier] = album }
        }
        switch operation {
        case .getAlbum: return .json(200, CatalogJSON.album(album))
        case .listAlbumAssets:
            return try page(try PageRequest(request)) { options in
                Array(try Asset.fetchAssets(in: album, options: options))
            }
        case .renameAlbum:
            let title = try Self.albumTitle(try JSONBody(request).string("title"))
            try perform { try AssetCollectionChangeRequest(for: album).title = title }
            guard
                let renamed = try AssetCollection.fetchAssetCollections(
                    withLocalIdentifiers: [album.localIdentifier], library: library
                ).firstObject
            else { throw APIFailure(404, "the album is gone") }
            return .json(200, CatalogJSON.album(renamed))
        case .removeFromAlbum:
            let identifiers = try JSONBody(request).strings("assets")
            let assets = try Asset.fetchAssets(withLocalIdentifiers: identifiers, library: library)
            guard assets.count == identifiers.count else { throw APIFailure(404, "not every asset listed exists") }
            try perform { try AssetCollectionChangeRequest(for: album).removeAssets(Array(assets)) }
            return .json(200, .object([("removed", .int(assets.count))]))
        default: throw APIFailure(500, "\(operation) is not an album's operation")
        }
    }

    /// A title for an album from a request (``AlbumTitle``), or 400 saying why not.
    static func albumTitle(_ text: String) throws -> String {
        switch AlbumTitle.validated(text) {
        case .success(let title): return title
        case .failure(let problem): throw APIFailure(400, "that cannot be an album title: \(problem)")
        }
    }

    private func createAlbum(_ request: HTTPRequest) throws -> HTTPResponse {
        let title = try Self.albumTitle(try JSONBody(request).string("title"))
        let created = Mutex<String?>(nil)
        try perform {
            let request = try AssetCollectionChangeRequest.creationRequestForAssetCollection(withTitle: title)
            created.withLock { $0 = request.placeholderForCreatedAssetCollection?.localIdentifier }
        }
        guard let identifier = created.withLock({ $0 }),
            let album = try AssetCollection.fetchAssetCollections(withLocalIdentifiers: [identifier], library: library)
                .firstObject
        else { throw APIFailure(500, "the album was not created") }
        return .json(201, CatalogJSON.album(album))
    }

    // MARK: Assets

    /// `kind` (photo, gif, video), `favorite` (true/false), `since` (a change token: only assets inserted or changed
    /// after it), `cursor` and `limit`.
    private func assets(_ request: HTTPRequest) throws -> HTTPResponse {
        let paging = try PageRequest(request)
        var filters: [FetchPredicate] = []
        switch request.argument("kind") {
        case nil, "": break
        case "photo": filters += [.mediaType(.image), .not(.playbackStyle(.imageAnimated))]
        case "gif": filters.append(.playbackStyle(.imageAnimated))
        case "video": filters.append(.mediaType(.video))
        case let other?: throw APIFailure(400, "kind must be photo, gif or video, not '\(other)'")
        }
        switch request.argument("favorite") {
        case nil, "": break
        case "true": filters.append(.isFavorite(true))
        case "false": filters.append(.isFavorite(false))
        case let other?: throw APIFailure(400, "favorite must be true or false, not '\(other)'")
        }
        var token: String?
        if let since = request.argument("since"), !since.isEmpty {
            guard let start = PersistentChangeToken(string: since) else {
                throw APIFailure(400, "'\(since)' is not a change token (from /api/status or an event)")
            }
            let changes: [PersistentChange]
            do { changes = try library.fetchPersistentChanges(since: start) } catch let error as PhotosError {
                throw APIFailure(410, "\(error); list the assets again without 'since'")
            }
            var changed: Set<String> = []
            for change in changes {
                let details = change.changeDetails(for: .asset)
                changed.formUnion(details.insertedLocalIdentifiers)
                changed.formUnion(details.updatedLocalIdentifiers)
            }
            filters.append(.localIdentifier(in: Array(changed)))
            token = changes.last?.changeToken.stringValue ?? since
        }
        let predicate = filters
        return try page(paging, extra: token.map { [("token", JSONNode.string($0))] } ?? []) { options in
            var options = options
            let combined = predicate + (options.predicate.map { [$0] } ?? [])
            options.predicate = combined.isEmpty ? nil : .and(combined)
            return Array(try Asset.fetchAssets(with: options, library: library))
        }
    }

    /// One page of assets, newest first by capture instant: `{"assets": […], "next": CURSOR or null}`.
    private func page(
        _ paging: PageRequest, extra: [(String, JSONNode)] = [], fetch: (FetchOptions) throws -> [Asset]
    ) throws -> HTTPResponse {
        var assets = try fetch(paging.options)
        let more = assets.count > paging.limit
        if more { assets.removeLast() }
        let items = paging.brief ? try briefly(assets) : try described(assets)
        return .json(
            200,
            .object(
                [("assets", .array(items)), ("next", more ? .string(assets.last?.cursor.stringValue) : .null)] + extra))
    }

    private func trash() throws -> HTTPResponse {
        let assets = try library.recentlyDeletedAssets()
        return .json(200, .object([("assets", .array(try described(assets)))]))
    }

    /// Assets as `show --json` has them, with their albums, derivatives and the URLs to fetch their media.
    private func described(_ assets: [Asset]) throws -> [JSONNode] {
        guard !assets.isEmpty else { return [] }
        let memberships = try library.albumMemberships(of: assets)
        let derivatives = try library.derivatives(ofAssets: assets.map(\.localIdentifier))
        return assets.map { asset in
            let made = (derivatives[asset.localIdentifier] ?? []).filter { $0.sourceSHA256 == asset.sha256 || $0.kind == .playableVideo }
            var fields = CatalogJSON.asset(
                asset, albums: (memberships[asset.localIdentifier] ?? []).map(\.title), derivatives: made
            ).members
            // Paths on the server's disk are no business of a client.
            fields = fields.filter { $0.0 != "path" }.map { key, value in
                key == "derivatives" ? (key, Self.withoutPaths(value)) : (key, value)
            }
            fields.append(("urls", urls(of: asset, derivatives: made)))
            return .object(fields)
        }
    }

    /// What a grid of thumbnails needs of each asset (`fields=brief`): no album memberships, resources or metadata,
    /// which make most of a full page's time. `day` (the local day of the capture) groups the grid; the pixel size
    /// lays out its rows; `pictureError` says why there is no thumbnail (an undecodable file), when that is known.
    private func briefly(_ assets: [Asset]) throws -> [JSONNode] {
        guard !assets.isEmpty else { return [] }
        let derivatives = try library.derivatives(ofAssets: assets.map(\.localIdentifier))
        return assets.map { asset in
            let made = (derivatives[asset.localIdentifier] ?? []).filter { $0.sourceSHA256 == asset.sha256 }
            let failure = made.first { $0.kind == .thumbnail && $0.file == nil }?.failure
            return .object([
                ("id", .string(asset.localIdentifier)), ("kind", .string(asset.kind)),
                ("creationDate", CatalogJSON.date(asset.creationDate)),
                ("day", CaptureTime(asset).map { .string($0.day) } ?? .null), ("isFavorite", .bool(asset.isFavorite)),
                ("pixelWidth", .int(asset.pixelWidth)), ("pixelHeight", .int(asset.pixelHeight)),
                ("mediaSubtypes", .strings(asset.mediaSubtypes.names)), ("urls", urls(of: asset, derivatives: made)),
                ("pictureError", failure.map { .string(serverPaths.scrub($0)) } ?? .null),
            ])
        }
    }

    private static func withoutPaths(_ value: JSONNode) -> JSONNode {
        guard case .array(let items) = value else { return value }
        return .array(items.map { .object($0.members.filter { $0.0 != "path" }) })
    }

    /// The most assets one `?warm=` names (the viewer names the one before and the one after).
    static let maximumWarmed = 4

    /// Reads the previews of the assets `list` names (`ID,ID`, as the viewer sends the neighbours of the asset it
    /// opens) into the picture cache ahead of time, so that stepping to them is answered from memory. Identifiers
    /// that are not an asset's are ignored; it never fails the request it rides on.
    private func warmPreviews(_ list: String?) {
        guard let list else { return }
        let identifiers = list.split(separator: ",").prefix(Self.maximumWarmed).compactMap { item -> String? in
            guard let path = ResourcePath(item), path.action == nil, path.uuid.utf8.count == 36 else { return nil }
            return path.uuid
        }
        guard !identifiers.isEmpty else { return }
        images.startCachingStoredPictures(
            .preview, of: identifiers.map { $0 + "/L0/001" }, generation: events.currentGeneration)
    }

    /// The asset's media URLs; a derivative's carries its content hash (`?v=`), the only form cached as immutable.
    private func urls(of asset: Asset, derivatives: [Derivative]) -> JSONNode {
        let base = "/api/assets/" + asset.localIdentifier.prefix(36)
        var fields: [(String, JSONNode)] = []
        for kind in DerivativeKind.pictures {
            let file = derivatives.first { $0.kind == kind }?.file
            fields.append((kind.name, .string(base + "/" + kind.name + (file.map { "?v=" + $0.sha256.prefix(CachingImageManager.storedVersionLength) } ?? ""))))
        }
        fields.append(("original", .string(base + "/original")))
        if asset.mediaType == .video || asset.resources.contains(where: { $0.type == .pairedVideo }) {
            fields.append(("video", .string(base + "/video")))
        }
        return .object(fields)
    }

    private func asset(_ uuid: String, _ operation: Route.Operation, request: HTTPRequest) throws -> HTTPResponse {
        // The gallery's hot path: a versioned picture names its content, so one lookup of the asset's derivatives
        // answers it (a purged asset's rows are gone with it). The generation is read before the file is looked at: a
        // change after the look moves it past what the cache records.
        let generation = events.currentGeneration
        if operation == .thumbnail || operation == .preview, let kind = DerivativeKind(name: operation.rawValue),
            DerivativeKind.pictures.contains(kind), let version = request.argument("v"), version.count >= CachingImageManager.storedVersionLength,
            let answer = try MediaResponder(request: request, library: library, images: images, maker: maker)
                .versionedPicture(
                    of: uuid + "/L0/001", kind: kind, version: version, cache: pictures,
                    generation: generation, secured: secured)
        {
            return answer
        }
        let found = try Asset.fetchAssets(
            withLocalIdentifiers: [uuid], library: library)
        // Found by identifier also when in Recently Deleted (its page, restore).
        guard let asset = found.firstObject else { throw APIFailure(404, "no asset \(uuid)") }
        let media = MediaResponder(request: request, library: library, images: images, maker: maker)
        switch operation {
        case .getAsset:
            warmPreviews(request.argument("warm"))
            return .json(200, try described([asset])[0])
        case .thumbnail: return try media.picture(of: asset, kind: .thumbnail)
        case .preview: return try media.picture(of: asset, kind: .preview)
        case .original: return try media.original(of: asset)
        case .video: return try media.video(of: asset)
        case .favorite:
            let favorite = try JSONBody(request).bool("favorite", default: !asset.isFavorite)
            try perform { try AssetChangeRequest(for: asset).isFavorite = favorite }
            return try reread(asset)
        case .deleteAsset:
            try perform { try AssetChangeRequest.deleteAssets([asset]) }
            return .json(200, .object([("deleted", .string(asset.localIdentifier))]))
        case .restoreAsset:
            guard asset.deletedDate != nil else { throw APIFailure(409, "the asset is not in Recently Deleted") }
            try perform { try AssetChangeRequest.restoreAssets([asset]) }
            return try reread(asset)
        default: throw APIFailure(500, "\(operation) is not an asset's operation")
        }
    }

    /// The asset as it is after a change.
    private func reread(_ asset: Asset) throws -> HTTPResponse {
        guard let now = try Asset.fetchAssets(withLocalIdentifiers: [asset.localIdentifier], library: library).firstObject
        else { throw APIFailure(404, "the asset is gone") }
        return .json(200, try described([now])[0])
    }

    // MARK: Changes

    /// Runs a change through the library's writer and waits for its commit.
    private func perform(_ change: @escaping @Sendable () throws -> Void) throws {
        defer { events.noteChange() }
        do { _ = try library.performChangesAndWait(change) } catch let error as PhotosError {
            throw APIFailure(409, "\(error)")
        }
    }

    /// The headers every answer carries; an error's message without the server's paths (``ServerPaths``).
    func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        if response.status >= 400, case .bytes(let bytes) = response.body {
            let text = String(decoding: bytes, as: UTF8.self)
            let scrubbed = serverPaths.scrub(text)
            if scrubbed != text { response.body = .bytes(Array(scrubbed.utf8)) }
        }
        response.headers += [
            ("X-Content-Type-Options", "nosniff"),
            ("Referrer-Policy", "no-referrer"),
            ("X-Frame-Options", "DENY"),
            (
                "Content-Security-Policy",
                "default-src 'self'; img-src 'self' blob:; media-src 'self'; style-src 'self'; script-src 'self'; "
                    + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'"
            ),
        ]
        if response.header("Cache-Control") == nil { response.headers.append(("Cache-Control", "no-store")) }
        return response
    }
}

/// A client error with its HTTP status.
struct APIFailure: Error {
    let status: Int
    let message: String
    /// Headers the answer carries besides the error (`Allow` with a 405).
    var headers: [(String, String)] = []

    init(_ status: Int, _ message: String, headers: [(String, String)] = []) {
        self.status = status
        self.message = message
        self.headers = headers
    }

    /// The error's answer: `{"error": message}` with its headers.
    var response: HTTPResponse {
        var answer = HTTPResponse.error(status, message)
        answer.headers += headers
        return answer
    }

    /// 405 for a path that exists with other methods: they are listed in `Allow` (RFC 9110), `HEAD` with `GET`.
    static func methodNotAllowed(_ method: String, allowed: [String]) -> APIFailure {
        var methods = allowed
        if methods.contains("GET") { methods.append("HEAD") }
        let list = methods.joined(separator: ", ")
        return APIFailure(405, "\(method) is not possible here: use \(list)", headers: [("Allow", list)])
    }
}
