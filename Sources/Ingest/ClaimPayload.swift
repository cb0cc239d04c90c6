/// What the claim journal remembers about a file taken out of the inbox: where it came from, its album, and the
/// identity the settle step saw. Stored as a small JSON object in a `claim` entry of the library's journal.
public struct ClaimPayload: Sendable, Hashable {
    /// The file's path relative to the inbox when it was claimed (`Trip/2024/IMG_1.jpg`).
    public var source: String
    /// The album title (NFC), or nil for a file directly in the inbox.
    public var album: String?
    /// Device, inode, size and mtime at the claim; the staged file keeps them (a rename changes none).
    public var identity: FileIdentity
    /// Whether the file had already waited out the incomplete-file grace period (a truncated file is rejected now).
    public var graceExpired: Bool

    /// A payload.
    public init(source: String, album: String?, identity: FileIdentity, graceExpired: Bool = false) {
        self.source = source
        self.album = album
        self.identity = identity
        self.graceExpired = graceExpired
    }

    /// The file's name as it arrived.
    public var originalName: String { PathResolution.lastComponent(of: source) }

    /// The JSON bytes stored in the journal.
    public var encoded: [UInt8] {
        var text = "{\"source\":" + JSONText.quoted(source)
        text += ",\"album\":" + (album.map(JSONText.quoted) ?? "null")
        text += ",\"device\":" + String(identity.device)
        text += ",\"inode\":" + String(identity.inode)
        text += ",\"size\":" + String(identity.size)
        text += ",\"mtime\":" + String(identity.modificationTime.seconds)
        text += ",\"mtimeNanoseconds\":" + String(identity.modificationTime.nanoseconds)
        text += ",\"graceExpired\":" + (graceExpired ? "true" : "false") + "}"
        return Array(text.utf8)
    }

    /// Decodes a payload written by ``encoded``; nil for anything else (a foreign or damaged entry).
    public init?(decoding bytes: [UInt8]) {
        guard let value = try? JSONParser.parse(bytes), case .object(let members) = value.kind else { return nil }
        var fields: [String: JSONValue.Kind] = [:]
        for member in members { fields[member.key] = member.value.kind }
        guard case .string(let source)? = fields["source"], !source.isEmpty,
            let device = ClaimPayload.number(fields["device"]).flatMap(UInt64.init),
            let inode = ClaimPayload.number(fields["inode"]).flatMap(UInt64.init),
            let size = ClaimPayload.number(fields["size"]).flatMap(Int64.init),
            let seconds = ClaimPayload.number(fields["mtime"]).flatMap(Int64.init),
            let nanoseconds = ClaimPayload.number(fields["mtimeNanoseconds"]).flatMap(Int32.init)
        else { return nil }
        let album: String?
        switch fields["album"] {
        case .string(let title)?: album = title
        default: album = nil
        }
        var grace = false
        if case .bool(let flag)? = fields["graceExpired"] { grace = flag }
        self.init(
            source: source, album: album,
            identity: FileIdentity(
                device: device, inode: inode, size: size,
                modificationTime: UTCTimestamp(seconds: seconds, nanoseconds: nanoseconds)),
            graceExpired: grace)
    }

    private static func number(_ kind: JSONValue.Kind?) -> String? {
        if case .number(let text)? = kind { return text }
        return nil
    }
}
