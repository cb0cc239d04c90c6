import FoundationEssentials
import PhotodropSystem
import PhotodropTelemetry

/// What the claim journal remembers about a file taken out of the inbox: where it came from, its album, and the
/// identity the settle step saw. Stored as a small JSON object in a `claim` entry of the library's journal.
struct ClaimPayload: Sendable, Hashable {
    /// The file's path relative to the inbox when it was claimed (`Trip/2024/IMG_1.jpg`).
    public var source: String
    /// The album title (NFC), or nil for a file directly in the inbox.
    public var album: String?
    /// Device, inode, size and mtime at the claim; the staged file keeps them (a rename changes none).
    public var identity: FileIdentity
    /// Whether the file had already waited out the incomplete-file grace period (a truncated file is rejected now).
    var graceExpired: Bool
    /// What the probe found when it judged the file incomplete (see ``IncompleteVerdict``), if it did.
    var incompleteVerdict: IncompleteVerdict?
    /// Whether the file's folder held a same-stem partner when it was claimed (``IngestJob/hasSameStemSibling``), so
    /// that a file recovered after a crash waits for its partner again. Absent in older entries (false).
    var hasSameStemSibling: Bool
    /// How many files of the folder had the file's pairing stem at the claim, the file among them (``IngestJob``'s
    /// ``IngestJob/sameStemCount``). Absent in older entries (0: not known).
    var sameStemCount: Int
    /// Where the staged file lay, relative to the inbox, under the node this claim was taken over from
    /// (`.photodrop/claimed/<node>/<entry>`): until the file is moved into this node's staging folder, that is where it
    /// is. Nil for a claim made here.
    var takenOverFrom: String?
    /// The claim batch the entry was written in (a random number per batch): when the journal write of a batch
    /// failed as far as the claimer could tell (a database connection lost at the commit), entries it may still have
    /// written are found by it and removed (``ClaimJournal/settleLeftovers()``). Nil in entries of older versions.
    var batch: UInt64?

    /// A payload.
    public init(
        source: String, album: String?, identity: FileIdentity, graceExpired: Bool = false,
        incompleteVerdict: IncompleteVerdict? = nil, hasSameStemSibling: Bool = false, sameStemCount: Int = 0
    ) {
        self.hasSameStemSibling = hasSameStemSibling
        self.sameStemCount = sameStemCount
        self.source = source
        self.album = album
        self.identity = identity
        self.graceExpired = graceExpired
        self.incompleteVerdict = incompleteVerdict
    }

    /// What the journal keeps of a job being claimed (its ``IngestJob/expectedIdentity`` is the settle step's look).
    init(claiming job: IngestJob) {
        self.init(
            source: job.displayPath, album: job.album, identity: job.expectedIdentity!, graceExpired: job.graceExpired,
            incompleteVerdict: job.incompleteVerdict, hasSameStemSibling: job.hasSameStemSibling,
            sameStemCount: job.sameStemCount)
    }

    /// The file's name as it arrived.
    var originalName: String { Path.lastComponent(of: source) }

    /// The JSON bytes stored in the journal (``Codable``).
    public var encoded: [UInt8] {
        // Encoding these strings and integers cannot fail.
        Array(try! JSONEncoder().encode(self))
    }

    /// Decodes a journal entry: JSON written by ``encoded``, or by photodrop before it used `Codable` (which wrote a
    /// name's stray bytes as lone `\udcXX` surrogates that Foundation's decoder refuses); nil for anything else (a
    /// foreign or damaged entry).
    public init?(decoding bytes: [UInt8]) {
        if let decoded = try? JSONDecoder().decode(ClaimPayload.self, from: Data(bytes)) {
            self = decoded
        } else if let legacy = ClaimPayload(legacyJSON: bytes) {
            self = legacy
        } else {
            return nil
        }
    }

    /// Decodes the hand-written JSON of photodrop before `Codable` payloads; nil for anything else.
    init?(legacyJSON bytes: [UInt8]) {
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

extension ClaimPayload: Codable {
    private enum CodingKeys: String, CodingKey {
        case source, album, device, inode, size, mtime, mtimeNanoseconds, graceExpired, incomplete, sibling, siblings
        case takenOverFrom = "from"
        case batch
    }

    /// What the probe said when it judged the file incomplete; its identity is the payload's.
    private struct Incomplete: Codable {
        var code: String
        var message: String
        var mime: String?
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let source = try container.decode(String.self, forKey: .source)
        guard !source.isEmpty else {
            throw DecodingError.dataCorruptedError(forKey: .source, in: container, debugDescription: "empty source")
        }
        let identity = FileIdentity(
            device: try container.decode(UInt64.self, forKey: .device),
            inode: try container.decode(UInt64.self, forKey: .inode),
            size: try container.decode(Int64.self, forKey: .size),
            modificationTime: UTCTimestamp(
                seconds: try container.decode(Int64.self, forKey: .mtime),
                nanoseconds: try container.decode(Int32.self, forKey: .mtimeNanoseconds)))
        let incomplete = try container.decodeIfPresent(Incomplete.self, forKey: .incomplete)
        self.init(
            source: source, album: try container.decodeIfPresent(String.self, forKey: .album), identity: identity,
            graceExpired: try container.decodeIfPresent(Bool.self, forKey: .graceExpired) ?? false,
            incompleteVerdict: incomplete.map {
                IncompleteVerdict(identity: identity, code: $0.code, message: $0.message, mime: $0.mime)
            },
            hasSameStemSibling: try container.decodeIfPresent(Bool.self, forKey: .sibling) ?? false,
            sameStemCount: try container.decodeIfPresent(Int.self, forKey: .siblings) ?? 0)
        takenOverFrom = try container.decodeIfPresent(String.self, forKey: .takenOverFrom)
        batch = try container.decodeIfPresent(UInt64.self, forKey: .batch)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(source, forKey: .source)
        try container.encode(album, forKey: .album)
        try container.encode(identity.device, forKey: .device)
        try container.encode(identity.inode, forKey: .inode)
        try container.encode(identity.size, forKey: .size)
        try container.encode(identity.modificationTime.seconds, forKey: .mtime)
        try container.encode(identity.modificationTime.nanoseconds, forKey: .mtimeNanoseconds)
        try container.encode(graceExpired, forKey: .graceExpired)
        if hasSameStemSibling { try container.encode(true, forKey: .sibling) }
        if sameStemCount > 1 { try container.encode(sameStemCount, forKey: .siblings) }
        if let takenOverFrom { try container.encode(takenOverFrom, forKey: .takenOverFrom) }
        if let batch { try container.encode(batch, forKey: .batch) }
        if let verdict = incompleteVerdict {
            try container.encode(
                Incomplete(code: verdict.code, message: verdict.message, mime: verdict.mime), forKey: .incomplete)
        }
    }
}
