import FoundationEssentials
import PhotoCatalog
import PhotoImageManager
import PhotodropSystem

/// Answers for an asset's media: its stored thumbnail and preview (made on demand when missing), its original and a
/// video a browser plays, each with `ETag`/`If-None-Match` (304), `Range` (206, for seeking) and the right
/// `Content-Type`. Files are opened beneath the library, never by a path from the client.
struct MediaResponder {
    let request: HTTPRequest
    let library: PhotoLibrary
    let images: ImageManager
    let maker: DerivativeMaker

    /// A stored picture; with `?v=` naming its current hash, cacheable for good.
    func picture(of asset: Asset, kind: DerivativeKind) throws -> HTTPResponse {
        guard let source = try library.derivativeSource(ofAsset: asset.localIdentifier) else {
            throw APIFailure(404, "the asset has no picture to show")
        }
        func current() throws -> Derivative? {
            try library.derivatives(ofAsset: asset.localIdentifier).first {
                $0.kind == kind && $0.sourceSHA256 == source.sha256
            }
        }
        var derivative = try current()
        if derivative?.file.flatMap(library.openDerivative) == nil && derivative?.failure == nil {
            // Missing or damaged: made now through the render helper, recorded like any other.
            _ = try maker.makeAndWait([source])
            derivative = try current()
        }
        guard let derivative else { throw APIFailure(503, "the \(kind.name) could not be made; try again later") }
        guard let file = derivative.file, let descriptor = library.openDerivative(file) else {
            throw APIFailure(
                422, "no \(kind.name) can be made of this asset: \(derivative.failure ?? "its file is missing")")
        }
        let versioned = request.argument("v").map { !$0.isEmpty && file.sha256.hasPrefix($0) } ?? false
        return respond(
            with: descriptor, size: UInt64(file.byteCount), type: file.mimeType, etag: file.sha256,
            cache: versioned ? "private, max-age=31536000, immutable" : "private, no-cache")
    }

    /// The stored picture whose hash starts with `version`, or nil when the asset has no such picture any more (the
    /// caller then answers with the current one). Remembered in `cache`: the next request for it reads no database,
    /// and a small one is kept whole as an answer (`secured` adds the headers every answer carries) that the next
    /// plain request (no `Range`, no `If-None-Match`) gets as it is while the library has not changed (`generation`).
    func versionedPicture(
        of identifier: String, kind: DerivativeKind, version: String, cache: PictureCache, generation: UInt64,
        secured: (HTTPResponse) -> HTTPResponse
    ) throws -> HTTPResponse? {
        let key = CachingImageManager.storedPictureKey(of: identifier, kind: kind, version: version)
        let plain = request.header("Range") == nil && request.header("If-None-Match") == nil
        var known = cache.entry(key)
        if let entry = known, plain, entry.checked == generation {
            if let answer = entry.answer as? KeptResponse {
                return HTTPResponse(status: answer.status, body: .kept(answer))
            }
            // Read ahead by the image manager (the pictures beside the one in the viewer): its bytes become the
            // answer, kept in their place, without opening the file.
            if let warmed = entry.answer as? KeptImage, let file = entry.file,
                let answer = keptAnswer(file, bytes: Array(warmed.result.data), secured: secured)
            {
                cache.keep(answer, for: key, replacing: true)
                return HTTPResponse(status: answer.status, body: .kept(answer))
            }
        }
        var descriptor = known?.file.flatMap { library.openDerivative($0) }
        if known != nil && descriptor == nil {
            cache.forget(key)
            known = nil
        }
        if known == nil {
            guard
                let file = try library.derivatives(ofAsset: identifier).first(where: {
                    $0.kind == kind && $0.file?.sha256.hasPrefix(version) == true
                })?.file,
                let opened = library.openDerivative(file)
            else { return nil }
            known = PictureCache.Entry(file: file, answer: nil, checked: generation)
            descriptor = opened
        }
        guard let entry = known, let file = entry.file, let descriptor else { return nil }
        cache.remember(file, as: key, checked: generation)
        if plain, let answer = (entry.answer as? KeptResponse) ?? keptAnswer(file, descriptor, cache: cache, secured: secured) {
            if !(entry.answer is KeptResponse) { cache.keep(answer, for: key, replacing: true) }
            return HTTPResponse(status: answer.status, body: .kept(answer))
        }
        return respond(
            with: descriptor, size: UInt64(file.byteCount), type: file.mimeType, etag: file.sha256,
            cache: Self.immutable)
    }

    static let immutable = "private, max-age=31536000, immutable"

    /// The whole answer for a small picture, read from its open file; nil for a large one (sent from its file).
    private func keptAnswer(
        _ file: Derivative.File, _ descriptor: FileDescriptor, cache: PictureCache,
        secured: (HTTPResponse) -> HTTPResponse
    ) -> KeptResponse? {
        guard cache.keeps(byteCount: Int(file.byteCount)) else { return nil }
        var bytes = [UInt8](repeating: 0, count: Int(file.byteCount))
        let done = bytes.withUnsafeMutableBytes { (try? descriptor.readFully(into: $0, at: 0)) ?? 0 }
        guard done == bytes.count else { return nil }
        return keptAnswer(file, bytes: bytes, secured: secured)
    }

    /// The whole answer for a small picture of `file` whose bytes are `bytes`.
    private func keptAnswer(_ file: Derivative.File, bytes: [UInt8], secured: (HTTPResponse) -> HTTPResponse)
        -> KeptResponse?
    {
        guard bytes.count == Int(file.byteCount) else { return nil }
        let answer = secured(
            HTTPResponse(
                status: 200,
                headers: [
                    ("Content-Type", file.mimeType), ("Cache-Control", Self.immutable), ("Accept-Ranges", "bytes"),
                    ("ETag", "\"\(file.sha256)\""),
                ]))
        return KeptResponse(status: 200, headers: answer.headers, body: bytes)
    }

    /// The original as stored (its primary resource).
    func original(of asset: Asset) throws -> HTTPResponse {
        guard let resource = asset.primaryResource else { throw APIFailure(404, "the asset has no original") }
        let descriptor: FileDescriptor
        do { descriptor = try library.openResource(resource) } catch {
            throw APIFailure(410, "the original cannot be opened: \(error)")
        }
        var response = respond(
            with: descriptor, size: UInt64(resource.byteCount), type: resource.mimeType ?? "application/octet-stream",
            etag: resource.sha256, cache: "private, no-cache")
        response.headers.append(
            ("Content-Disposition", "inline; filename*=UTF-8''" + Self.percentEncoded(resource.originalFilename)))
        return response
    }

    /// A video a browser plays: H.264 as it is, anything else (HEVC, ProRes, Motion JPEG) through its playable
    /// version, made the first time it is asked for.
    func video(of asset: Asset) throws -> HTTPResponse {
        let video: VideoFile
        do { video = try images.playableVideo(of: asset.localIdentifier, livePhotoMotion: asset.mediaType != .video) }
        catch { throw APIFailure(422, "no playable video: \(error)") }
        // A path the library handed out (its original or a derivative), opened without following a link.
        guard let descriptor = try? FileSystem.open(video.fileURL.path, [.readOnly, .noFollow]) else {
            throw APIFailure(410, "the video cannot be opened")
        }
        guard let info = try? descriptor.status(), info.isRegularFile else {
            throw APIFailure(410, "the video is not a file")
        }
        return respond(
            with: descriptor, size: UInt64(info.size), type: video.mimeType ?? "video/mp4",
            etag: "\(info.size)-\(info.modification.seconds)-\(info.node.inode)", cache: "private, no-cache")
    }

    /// The file, or the part the `Range` header asks for; 304 when the client's `If-None-Match` names it.
    private func respond(
        with descriptor: FileDescriptor, size: UInt64, type: String, etag: String?, cache: String
    ) -> HTTPResponse {
        var headers: [(String, String)] = [("Content-Type", type), ("Cache-Control", cache), ("Accept-Ranges", "bytes")]
        if let etag {
            let quoted = "\"\(etag)\""
            headers.append(("ETag", quoted))
            if let match = request.header("If-None-Match"), Self.matches(match, quoted) {
                return HTTPResponse(status: 304, headers: headers)
            }
        }
        let range = ByteRange(header: request.header("Range"), size: size)
        if case .unsatisfiable = range {
            var answer = HTTPResponse.error(416, "the range asked for lies past the end of the file (\(size) bytes)")
            answer.headers.append(("Content-Range", "bytes */\(size)"))
            return answer
        }
        // libmicrohttpd closes the descriptor it is given: it gets a duplicate of the library's.
        guard let copy = descriptor.duplicateForHandOver() else {
            return .error(503, "out of file descriptors; try again")
        }
        switch range {
        case .whole, .unsatisfiable:
            return HTTPResponse(status: 200, headers: headers, body: .file(descriptor: copy, offset: 0, length: size))
        case .part(let offset, let length):
            headers.append(("Content-Range", "bytes \(offset)-\(offset + length - 1)/\(size)"))
            return HTTPResponse(
                status: 206, headers: headers, body: .file(descriptor: copy, offset: offset, length: length))
        }
    }

    /// Whether an `If-None-Match` list names `etag` (weak comparison, `*` for any).
    static func matches(_ header: String, _ etag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            var tag = candidate.trimmingCharacters(in: " ")
            if tag.hasPrefix("W/") { tag = tag.dropFirst(2) }
            return tag == "*" || tag == etag
        }
    }

    /// RFC 5987 percent-encoding for a file name in `Content-Disposition`.
    static func percentEncoded(_ name: String) -> String {
        var out = ""
        for byte in name.utf8 {
            let safe =
                (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
                || "-._~".utf8.contains(byte)
            out += safe ? String(UnicodeScalar(byte)) : "%" + NumberText.hex(byte, width: 2, uppercase: true)
        }
        return out
    }
}
