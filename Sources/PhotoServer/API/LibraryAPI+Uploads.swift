import FoundationEssentials

import LibraryJSON
import PhotoCatalog
import PhotodropSystem
import PhotodropConfiguration
import Uploads

/// Where uploads go: the inbox, the names `watch` never takes, and the largest body accepted.
struct UploadSettings: Sendable {
    public let inbox: FolderRoot
    /// The rejected folder's path: outcomes name a rejected file relative to it (never a server path).
    public let rejected: String
    public let ignore: IgnoreRules
    public let maximumBytes: Int64

    public init(inbox: FolderRoot, rejected: String, ignore: IgnoreRules, maximumBytes: Int64) {
        self.inbox = inbox
        self.rejected = rejected
        self.ignore = ignore
        self.maximumBytes = maximumBytes
    }
}

/// Serialises the binding of inbox folders to albums (``LibraryAPI/inboxFolder(for:)``).
private let inboxBinding = ConditionLock()

extension LibraryAPI {
    /// `PUT /api/upload/{album}/{name}` streams into the inbox (``UploadReceiver``); every other body is collected.
    /// Decided from the headers, so that a bad name, an unknown album or a body announced too large is refused before
    /// a byte of it is read.
    func bodyHandling(_ request: HTTPRequest) -> BodyHandling {
        guard request.path.hasPrefix("/api/upload/") else { return .collect }
        do {
            guard request.method == "PUT" else { throw APIFailure.methodNotAllowed(request.method, allowed: ["PUT"]) }
            guard let uploads else { throw APIFailure(503, "this server takes no uploads") }
            let (album, name) = try uploadTarget(request.path.dropFirst(12))
            let folder = try inboxFolder(for: album)
            let relative = folder + "/" + name
            if let reason = uploads.ignore.reason(forFile: relative) {
                throw APIFailure(
                    400, "photodrop never takes '\(relative)' (\(reason)): upload it under another name")
            }
            if let length = request.header("Content-Length").flatMap(Int64.init), length > uploads.maximumBytes {
                throw APIFailure(
                    413, "the file is \(length) bytes, more than serve.maxUploadBytes (\(uploads.maximumBytes))")
            }
            let expected = try contentDigest(request.header("Content-Digest"))
            let upload: InboxUpload
            do {
                upload = try InboxUpload(
                    inbox: uploads.inbox, folder: folder, name: name, albumID: album.localIdentifier,
                    maximumBytes: uploads.maximumBytes)
            } catch {
                throw APIFailure(500, error.description)
            }
            return .stream(
                UploadReceiver(
                    upload: upload, expectedSHA256: expected, library: library, respond: { [self] in secured($0) }))
        } catch let failure as APIFailure {
            return .refuse(secured(failure.response))
        } catch {
            return .refuse(secured(.error(500, "\(error)")))
        }
    }

    /// The album and the file name of `/api/upload/{album}/{name}`.
    private func uploadTarget(_ rest: Substring) throws -> (AssetCollection, String) {
        let parts = rest.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, parts[0].utf8.count <= 64, ResourcePath.isUUID(parts[0]) else {
            throw APIFailure(404, "upload to /api/upload/{album id}/{file name}")
        }
        let name: String
        switch UploadName.validated(String(parts[1])) {
        case .success(let valid): name = valid
        case .failure(let problem): throw APIFailure(400, "'\(parts[1])' cannot be uploaded: \(problem)")
        }
        guard
            let album = try AssetCollection.fetchAssetCollections(
                withLocalIdentifiers: [parts[0].uppercased() + "/L0/040"], library: library
            ).firstObject
        else { throw APIFailure(404, "no album \(parts[0])") }
        guard album.assetCollectionType == .album else {
            throw APIFailure(400, "'\(album.localizedTitle ?? "")' is a smart album: upload into an album")
        }
        return (album, name)
    }

    /// The inbox folder an album's files go to: the one bound to it; for an album made by hand, a folder named
    /// after its title, bound to it now, before a byte is written (bound when the upload completed instead, two
    /// uploads at once into two albums of one title both wrote into the folder of that title, and the second album's
    /// files were filed into the first). A title whose folder belongs to another album or folder gets the first free
    /// of `Title (2)`, `Title (3)`, …; the API shows it as the album's `inboxFolder`.
    private func inboxFolder(for album: AssetCollection) throws -> String {
        if let key = album.bindingKey { return key }
        // One binding at a time in this process: two first uploads into one album at once each saw it unbound, the
        // second found the title's folder taken (by that same album) and bound the album again to `Title (2)`,
        // leaving the first upload's file in a folder its album no longer had. Across processes the catalog keeps
        // one album per folder.
        inboxBinding.lock()
        defer { inboxBinding.unlock() }
        let title = album.localizedTitle ?? ""
        switch UploadName.validated(title) {
        case .success: break
        case .failure(let problem):
            throw APIFailure(409, "the album's title cannot name its inbox folder (\(problem)): rename the album")
        }
        for number in 1...100 {
            // Bound meanwhile (another upload into this album got there first): that folder, then.
            if let current = try AssetCollection.fetchAssetCollections(
                withLocalIdentifiers: [album.localIdentifier], library: library
            ).firstObject, let key = current.bindingKey {
                return key
            }
            let candidate = number == 1 ? title : "\(title) (\(number))"
            guard case .success(let key) = UploadName.validated(candidate) else { break }
            if let holder = try AssetCollection.fetchAlbum(forBindingKey: key, library: library) {
                if holder.localIdentifier == album.localIdentifier { return key }
                continue
            }
            if try CollectionList.fetchCollectionList(forBindingKey: key, library: library) != nil { continue }
            do {
                _ = try library.performChangesAndWait { try AssetCollectionChangeRequest(for: album).bindingKey = key }
                events.noteChange()
                return key
            } catch {
                // Another album took this folder between the look and the change (the catalog keeps one album per
                // folder): the next name.
                continue
            }
        }
        throw APIFailure(
            409, "no inbox folder could be bound to the album '\(title)' (its title's folders are all taken): rename it")
    }

    /// A path below the rejected folder relative to it (`Trip/bad.jpg`); anything else as its name alone.
    private func relativeToRejected(_ path: String) -> String {
        if let root = uploads?.rejected, path.hasPrefix(root + "/") { return String(path.dropFirst(root.count + 1)) }
        return Path.lastComponent(of: path)
    }

    /// The SHA-256 a `Content-Digest: sha-256=:BASE64:` header (RFC 9530) announces, if any.
    private func contentDigest(_ header: String?) throws -> SHA256Digest? {
        guard let header else { return nil }
        for member in header.split(separator: ",") {
            let pair = member.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: " ").lowercased() == "sha-256" else { continue }
            let value = pair[1].trimmingCharacters(in: " ")
            guard value.hasPrefix(":"), value.hasSuffix(":"), value.count > 2,
                let bytes = Data(base64Encoded: String(value.dropFirst().dropLast())),
                let digest = SHA256Digest(bytes: bytes)
            else { throw APIFailure(400, "Content-Digest: sha-256 must be :BASE64: of 32 bytes") }
            return digest
        }
        return nil
    }

    /// `GET /api/outcomes/{id}`.
    func outcome(_ rest: Substring) throws -> HTTPResponse {
        guard rest.utf8.count <= 19, rest.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let id = Int64(rest) else {
            throw APIFailure(404, "no such upload")
        }
        guard let status = try UploadStatus.find(id, in: library) else {
            throw APIFailure(404, "no upload \(id) (uploads are remembered for 30 days)")
        }
        return .json(200, json(status))
    }

    private func json(_ status: UploadStatus) -> JSONNode {
        var fields: [(String, JSONNode)] = [
            ("id", .string(String(status.id))), ("state", .string(status.state)),
            ("path", .string(status.upload.path)), ("album", .string(status.upload.album)),
            ("name", .string(status.upload.name)), ("bytes", .int(Int(status.upload.bytes))),
            ("sha256", .string(status.upload.sha256)), ("receivedAt", CatalogJSON.date(status.receivedAt)),
        ]
        if let outcome = status.outcome {
            fields += [
                ("outcome", .string(outcome.outcome)), ("asset", outcome.asset.map { .string($0) } ?? .null),
                ("reason", outcome.reason.map { .string($0) } ?? .null),
                ("message", outcome.message.map { .string($0) } ?? .null),
                ("rejectedPath", outcome.rejectedPath.map { .string(relativeToRejected($0)) } ?? .null),
                ("finishedAt", CatalogJSON.date(status.finishedAt)),
            ]
        }
        return .object(fields)
    }
}

/// The body of one `PUT /api/upload/…`, written into the inbox as it arrives (``Ingest/InboxUpload``).
final class UploadReceiver: BodyReceiver, @unchecked Sendable {
    // @unchecked: one thread at a time calls it (see BodyReceiver); InboxUpload is used the same way.
    private let upload: InboxUpload
    private let expectedSHA256: SHA256Digest?
    private let library: PhotoLibrary
    private let respond: @Sendable (HTTPResponse) -> HTTPResponse

    init(
        upload: InboxUpload, expectedSHA256: SHA256Digest?, library: PhotoLibrary,
        respond: @escaping @Sendable (HTTPResponse) -> HTTPResponse
    ) {
        self.upload = upload
        self.expectedSHA256 = expectedSHA256
        self.library = library
        self.respond = respond
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> HTTPResponse? {
        do throws(UploadError) {
            try upload.write(bytes)
            return nil
        } catch {
            return respond(.error(Self.status(of: error), error.description))
        }
    }

    func finish() -> HTTPResponse {
        do throws(UploadError) {
            let receipt = try upload.finish(library: library, expectedSHA256: expectedSHA256)
            let address = "/api/outcomes/\(receipt.id)"
            return respond(
                .json(
                    201,
                    .object([
                        ("id", .string(String(receipt.id))), ("outcome", .string(address)),
                        ("path", .string(receipt.record.path)), ("album", .string(receipt.record.album)),
                        ("bytes", .int(Int(receipt.record.bytes))), ("sha256", .string(receipt.record.sha256)),
                    ]), headers: [("Location", address)]))
        } catch {
            return respond(.error(Self.status(of: error), error.description))
        }
    }

    func abandon() { upload.abandon() }

    static func status(of error: UploadError) -> Int {
        switch error {
        case .tooLarge: return 413
        case .nameTaken: return 409
        case .digestMismatch: return 400
        case .write(let cause) where cause.code == Errno.noSpace || cause.code == Errno.diskQuotaExceeded: return 507
        case .inbox, .write, .catalog, .internal: return 500
        }
    }
}
