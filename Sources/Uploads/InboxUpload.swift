import FoundationEssentials
import PhotoCatalog
import PhotodropSystem
import PhotodropConfiguration

/// One file arriving over the network (`PUT /api/upload/{album}/{name}`) and put into the inbox the way a careful
/// upload client would: its bytes go to a hidden file in the inbox's own `.photodrop/uploads/` folder (same file
/// system, skipped by the watcher, mode 0700), are synced, and only a complete file is renamed into the album's inbox
/// folder, never replacing a file there, through open folders that never follow a link (``PhotodropSystem/Directory``).
/// `watch` then takes it like any other drop. Before the rename the upload is recorded in the catalog
/// (``UploadRecord``) with the file's device and inode, which the file keeps through the rename and the claim, so
/// that its outcome can be found (``UploadStatus``).
///
/// Not thread-safe: one connection's thread writes it, then finishes or abandons it.
public final class InboxUpload {
    /// The folder below the inbox that holds uploads while they arrive.
    public static let uploadsFolder = ".photodrop/uploads"

    /// The album key (inbox folder, ``AlbumRule``) and the file's name in it.
    public let folder: String
    public let name: String
    /// The catalog identifier of the album it is for.
    public let albumID: String
    public let maximumBytes: Int64
    public private(set) var byteCount: Int64 = 0

    private let uploads: Directory
    private let inbox: Directory
    private let temporaryName: String
    private var descriptor: FileDescriptor?
    private var hasher: SHA256

    /// Starts an upload: makes its temporary file.
    public init(inbox root: FolderRoot, folder: String, name: String, albumID: String, maximumBytes: Int64) throws(
        UploadError
    ) {
        self.folder = folder
        self.name = name
        self.albumID = albumID
        self.maximumBytes = maximumBytes
        do {
            inbox = try root.directory()
            uploads = try inbox.directory(Self.uploadsFolder, creating: true, mode: 0o700)
        } catch {
            throw UploadError.inbox(error)
        }
        temporaryName = "upload-" + UUID().uuidString.lowercased()
        do throws(SystemError) {
            descriptor = try uploads.open(temporaryName, flags: [.writeOnly, .create, .exclusive], mode: 0o640)
        } catch {
            throw UploadError.inbox(error)
        }
        do { hasher = try SHA256() } catch {
            descriptor = nil
            try? uploads.remove(temporaryName)
            throw UploadError.internal("\(error)")
        }
    }

    deinit { abandon() }

    /// The file's path relative to the inbox once it is there.
    public var relativePath: String { folder.isEmpty ? name : folder + "/" + name }

    /// Appends a piece of the body.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(UploadError) {
        guard let descriptor else { throw UploadError.internal("the upload was already finished") }
        guard byteCount + Int64(bytes.count) <= maximumBytes else { throw UploadError.tooLarge(maximumBytes) }
        do throws(SystemError) {
            try descriptor.writeAll(bytes, path: Path.join(uploads.path, temporaryName))
        } catch {
            throw UploadError.write(error)
        }
        byteCount += Int64(bytes.count)
        do { try hasher.update(bytes) } catch { throw UploadError.internal("\(error)") }
    }

    /// Completes the upload: syncs the file, records it in `library`, and renames it into the album's inbox folder
    /// (made when missing). `expectedSHA256`: the digest the client announced; a different body is refused.
    public func finish(library: PhotoLibrary, expectedSHA256: SHA256Digest? = nil) throws(UploadError) -> UploadReceipt {
        defer { abandon() }
        guard let descriptor else { throw UploadError.internal("the upload was already finished") }
        let digest: SHA256Digest
        do { digest = try hasher.finalize() } catch { throw UploadError.internal("\(error)") }
        if let expectedSHA256, expectedSHA256 != digest {
            throw UploadError.digestMismatch(expected: expectedSHA256, received: digest)
        }
        let info: FileStatus
        do throws(SystemError) {
            let path = Path.join(uploads.path, temporaryName)
            try descriptor.sync(path: path)
            info = try descriptor.status(path: path)
        } catch {
            throw UploadError.write(error)
        }
        let target: Directory
        do {
            target = folder.isEmpty ? try inbox.directory("") : try inbox.directory(folder, creating: true)
        } catch {
            throw UploadError.inbox(error)
        }
        if (try? target.status(name)) ?? nil != nil { throw UploadError.nameTaken(relativePath) }
        let record = UploadRecord(
            path: relativePath, album: albumID, name: name, bytes: byteCount, sha256: digest.hex)
        let id: Int64
        do {
            id = try library.appendFileRecordsAndWait([record.draft(for: info.node)])[0]
        } catch {
            throw UploadError.catalog("\(error)")
        }
        do {
            guard try uploads.rename(temporaryName, to: target, as: name) else {
                throw UploadError.nameTaken(relativePath)
            }
            try target.sync()
        } catch let error as UploadError {
            throw error
        } catch {
            throw UploadError.inbox(error as! SystemError)
        }
        return UploadReceipt(id: id, record: record)
    }

    /// Gives the upload up: closes and removes the temporary file (nothing when it was finished).
    public func abandon() {
        guard descriptor != nil else { return }
        descriptor = nil
        try? uploads.remove(temporaryName)
    }

    /// Removes what uploads interrupted by a crash left in `.photodrop/uploads/` (files not written to for
    /// `age`); returns how many.
    @discardableResult
    public static func removeAbandoned(in root: FolderRoot, olderThan age: TimeInterval = 600) -> Int {
        guard let inbox = try? root.directory(), let uploads = try? inbox.directory(uploadsFolder),
            let stream = try? uploads.entries()
        else { return 0 }
        var removed = 0
        let cutoff = Date().timeIntervalSince1970 - age
        while let entry = try? stream.next() {
            guard entry.name.hasPrefix("upload-"), entry.type == .regular,
                let info = (try? uploads.status(entry.name)) ?? nil, Double(info.modification.seconds) < cutoff
            else { continue }
            if (try? uploads.remove(entry.name)) != nil { removed += 1 }
        }
        return removed
    }
}

/// An upload that reached the inbox: its record's id (the outcome's address) and what was recorded.
public struct UploadReceipt: Sendable {
    public let id: Int64
    public let record: UploadRecord
}
