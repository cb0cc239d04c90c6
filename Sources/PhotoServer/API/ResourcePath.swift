import Foundation

/// What a request path under `/api/assets/` or `/api/albums/` names: an object's UUID (or a smart album's name) and
/// the action after it.
///
/// Identifiers in paths are bare UUIDs (`/api/assets/1E73…/thumbnail`); a full identifier's PhotoKit suffix
/// (`/L0/001`) is accepted too. Anything else — `..`, an empty or extra segment, a NUL, an identifier that is not a
/// UUID, more than a few hundred bytes — is not a resource: 404, never a file path.
struct ResourcePath: Equatable {
    let uuid: String
    let action: String?

    static let maximumLength = 256

    init?(_ rest: Substring) {
        guard rest.utf8.count <= Self.maximumLength, !rest.utf8.contains(0) else { return nil }
        var segments = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard let first = segments.first, Self.isUUID(first) || Self.isSmartAlbum(first) else { return nil }
        segments.removeFirst()
        if segments.count >= 2, segments[0] == "L0", ["001", "040", "050"].contains(segments[1]) {
            segments.removeFirst(2)
        }
        guard segments.count <= 1, segments.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isLetter } }) else {
            return nil
        }
        uuid = Self.isSmartAlbum(first) ? String(first) : first.uppercased()
        action = segments.first.map(String.init)
    }

    /// A smart album's fixed name (`SmartAlbum-Favorites`).
    static func isSmartAlbum(_ text: Substring) -> Bool {
        text.hasPrefix("SmartAlbum-") && text.count <= 48 && text.dropFirst(11).allSatisfy { $0.isASCII && $0.isLetter }
            && text.count > 11
    }

    /// 8-4-4-4-12 hexadecimal digits (Foundation's UUID parser, as the catalog's identifiers are read).
    static func isUUID(_ text: Substring) -> Bool { UUID(uuidString: String(text)) != nil }
}
