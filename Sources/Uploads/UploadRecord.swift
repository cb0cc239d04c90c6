import FoundationEssentials
import PhotoCatalog
import PhotodropSystem

/// What `serve` records in the catalog for a file uploaded into the inbox (file record kind ``kind``), found by
/// the record's id, which is the upload's id in `/api/outcomes/{id}`.
public struct UploadRecord: Codable, Sendable, Hashable {
    /// The file record kind.
    public static let kind = "upload"

    /// The file's path relative to the inbox (`Trip/IMG_1.jpg`).
    public var path: String
    /// The catalog identifier of the album it was uploaded for.
    public var album: String
    /// Its name as uploaded (NFC).
    public var name: String
    public var bytes: Int64
    /// The SHA-256 of the body received, lowercase hex.
    public var sha256: String

    public init(path: String, album: String, name: String, bytes: Int64, sha256: String) {
        self.path = path
        self.album = album
        self.name = name
        self.bytes = bytes
        self.sha256 = sha256
    }

    /// The file record to append for the uploaded file `node`.
    public func draft(for node: FileNode) -> FileRecord.Draft {
        // Encoding strings and integers cannot fail.
        FileRecord.Draft(
            kind: Self.kind, device: node.device, inode: node.inode, payload: try! JSONEncoder().encode(self))
    }

    /// The record in `payload`, or nil when it is not one.
    public init?(payload: Data) {
        guard let decoded = try? JSONDecoder().decode(UploadRecord.self, from: payload) else { return nil }
        self = decoded
    }
}
