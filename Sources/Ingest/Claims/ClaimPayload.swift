import PhotodropSystem

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
    /// What the probe found when it judged the file incomplete (see ``IncompleteVerdict``), if it did.
    public var incompleteVerdict: IncompleteVerdict?

    /// A payload.
    public init(
        source: String, album: String?, identity: FileIdentity, graceExpired: Bool = false,
        incompleteVerdict: IncompleteVerdict? = nil
    ) {
        self.source = source
        self.album = album
        self.identity = identity
        self.graceExpired = graceExpired
        self.incompleteVerdict = incompleteVerdict
    }

    /// The file's name as it arrived.
    public var originalName: String { Path.lastComponent(of: source) }

    /// The JSON bytes stored in the journal.
    public var encoded: [UInt8] {
        var text = "{\"source\":" + JSONText.quoted(source)
        text += ",\"album\":" + (album.map(JSONText.quoted) ?? "null")
        text += ",\"device\":" + String(identity.device)
        text += ",\"inode\":" + String(identity.inode)
        text += ",\"size\":" + String(identity.size)
        text += ",\"mtime\":" + String(identity.modificationTime.seconds)
        text += ",\"mtimeNanoseconds\":" + String(identity.modificationTime.nanoseconds)
        text += ",\"graceExpired\":" + (graceExpired ? "true" : "false")
        if let verdict = incompleteVerdict {
            text += ",\"incomplete\":{\"code\":" + JSONText.quoted(verdict.code)
            text += ",\"message\":" + JSONText.quoted(verdict.message)
            text += ",\"mime\":" + (verdict.mime.map(JSONText.quoted) ?? "null") + "}"
        }
        text += "}"
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
        let identity = FileIdentity(
            device: device, inode: inode, size: size,
            modificationTime: UTCTimestamp(seconds: seconds, nanoseconds: nanoseconds))
        var verdict: IncompleteVerdict?
        if case .object(let members)? = fields["incomplete"] {
            var parts: [String: JSONValue.Kind] = [:]
            for member in members { parts[member.key] = member.value.kind }
            if case .string(let code)? = parts["code"], case .string(let message)? = parts["message"] {
                var mime: String?
                if case .string(let text)? = parts["mime"] { mime = text }
                verdict = IncompleteVerdict(identity: identity, code: code, message: message, mime: mime)
            }
        }
        self.init(source: source, album: album, identity: identity, graceExpired: grace, incompleteVerdict: verdict)
    }

    private static func number(_ kind: JSONValue.Kind?) -> String? {
        if case .number(let text)? = kind { return text }
        return nil
    }
}
