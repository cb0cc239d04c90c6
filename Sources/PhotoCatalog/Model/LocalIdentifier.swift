import Foundation

/// Builds and parses the opaque identifiers of objects: `<UUID>/L0/001` for assets and `<UUID>/L0/040` for albums,
/// PhotoKit's shape. The UUID is what the database stores.
enum LocalIdentifier {
    static let assetSuffix = "/L0/001"
    static let collectionSuffix = "/L0/040"

    static func asset(uuid: String) -> String { uuid + assetSuffix }
    static func collection(uuid: String) -> String { uuid + collectionSuffix }

    /// A fresh upper-case UUID string.
    static func newUUID() -> String { UUID().uuidString }

    /// The UUID of an asset identifier (also accepts a bare UUID), or nil when it cannot be one.
    static func assetUUID(_ identifier: String) -> String? { uuid(identifier, suffix: assetSuffix) }

    /// The UUID of an album identifier (also accepts a bare UUID), or nil when it cannot be one.
    static func collectionUUID(_ identifier: String) -> String? { uuid(identifier, suffix: collectionSuffix) }

    private static func uuid(_ identifier: String, suffix: String) -> String? {
        var text = Substring(identifier)
        if text.hasSuffix(suffix) { text = text.dropLast(suffix.count) }
        guard let uuid = UUID(uuidString: String(text)) else { return nil }
        return uuid.uuidString
    }
}
