import FoundationEssentials

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
        // Byte by byte: a picture's request parses one of these, and Character-level splitting and tests cost a
        // twentieth of its time.
        let bytes = rest.utf8
        guard bytes.count <= Self.maximumLength, !bytes.contains(0) else { return nil }
        var segments = bytes.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
        guard let first = segments.first else { return nil }
        let isSmart = Self.isSmartAlbum(first)
        guard isSmart || Self.isUUID(first) else { return nil }
        segments.removeFirst()
        if segments.count >= 2, segments[0].elementsEqual("L0".utf8),
            ["001", "040", "050"].contains(where: { segments[1].elementsEqual($0.utf8) })
        {
            segments.removeFirst(2)
        }
        guard segments.count <= 1, segments.allSatisfy({ !$0.isEmpty && $0.allSatisfy(Self.isASCIILetter) }) else {
            return nil
        }
        uuid = isSmart ? String(Substring(first)) : String(decoding: first.map(Self.uppercased), as: UTF8.self)
        action = segments.first.map { String(Substring($0)) }
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || ((byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x66)
    }

    private static func uppercased(_ byte: UInt8) -> UInt8 { (0x61...0x7A).contains(byte) ? byte - 0x20 : byte }

    /// A smart album's fixed name (`SmartAlbum-Favorites`).
    static func isSmartAlbum(_ text: Substring.UTF8View) -> Bool {
        text.count > 11 && text.count <= 48 && text.starts(with: "SmartAlbum-".utf8)
            && text.dropFirst(11).allSatisfy(isASCIILetter)
    }

    /// 8-4-4-4-12 hexadecimal digits, either case (what Foundation's UUID parser accepts).
    static func isUUID(_ text: Substring.UTF8View) -> Bool {
        guard text.count == 36 else { return false }
        for (offset, byte) in text.enumerated() {
            let isDash = offset == 8 || offset == 13 || offset == 18 || offset == 23
            if isDash ? byte != UInt8(ascii: "-") : !isHexDigit(byte) { return false }
        }
        return true
    }

    /// ``isUUID(_:)`` of a substring.
    static func isUUID(_ text: Substring) -> Bool { isUUID(text.utf8) }
}
