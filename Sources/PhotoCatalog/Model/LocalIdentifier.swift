import FoundationEssentials
import PhotodropSystem

/// Builds and parses the opaque identifiers of objects: `<UUID>/L0/001` for assets, `<UUID>/L0/040` for albums and
/// `<UUID>/L0/050` for folders, PhotoKit's shape. The UUID is what the database stores.
enum LocalIdentifier {
    static let assetSuffix = "/L0/001"
    static let collectionSuffix = "/L0/040"
    static let collectionListSuffix = "/L0/050"

    static func asset(uuid: String) -> String { uuid + assetSuffix }
    static func collection(uuid: String) -> String { uuid + collectionSuffix }
    static func collectionList(uuid: String) -> String { uuid + collectionListSuffix }

    /// A fresh random (version 4) UUID as an upper-case string, the shape of `UUID().uuidString`.
    ///
    /// From ``RandomPool`` (one `getrandom` per 256 UUIDs): Foundation's `UUID()` cost more than inserting the asset's
    /// row, and glibc 2.36's `arc4random_buf` makes a system call for every UUID.
    static func newUUID() -> String {
        var bytes: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &bytes) { raw in
            RandomPool.shared.fill(raw)
            raw[6] = (raw[6] & 0x0F) | 0x40  // version 4
            raw[8] = (raw[8] & 0x3F) | 0x80  // RFC 4122 variant
        }
        return withUnsafeBytes(of: &bytes) { raw in
            let digits = Array("0123456789ABCDEF".utf8)
            return String(unsafeUninitializedCapacity: 36) { text in
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = digits[Int(raw[index] >> 4)]
                    text[position + 1] = digits[Int(raw[index] & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    /// The UUID of an asset identifier (also accepts a bare UUID), or nil when it cannot be one.
    static func assetUUID(_ identifier: String) -> String? { uuid(identifier, suffix: assetSuffix) }

    /// The UUID of an album identifier (also accepts a bare UUID), or nil when it cannot be one.
    static func collectionUUID(_ identifier: String) -> String? { uuid(identifier, suffix: collectionSuffix) }

    /// The UUID of a folder identifier (also accepts a bare UUID), or nil when it cannot be one.
    static func collectionListUUID(_ identifier: String) -> String? { uuid(identifier, suffix: collectionListSuffix) }

    private static func uuid(_ identifier: String, suffix: String) -> String? {
        var text = Substring(identifier)
        if text.hasSuffix(suffix) { text = text.dropLast(suffix.count) }
        guard let uuid = UUID(uuidString: String(text)) else { return nil }
        return uuid.uuidString
    }
}
