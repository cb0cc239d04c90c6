import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem

/// The committer's side of pairing: decides each file's role (``PairingDesk/Role``) from its probe and name, knows
/// which folders hold several files of one stem (so that a file waits only where a partner can come), and turns the
/// desk's groups into what the committer stores or rejects.
struct PairingStage {
    private(set) var desk: PairingDesk<StoreItem>
    /// Whether the stage lists a file's folder itself (an import, whose sources stay put); a watched inbox's claims
    /// say which files have siblings, since the folder was listed before its files left it.
    let listsFolders: Bool
    /// An import's folders, each listed once.
    private var listings: [String: StemSiblings] = [:]
    /// The folder (as ``IngestJob/displayPath`` names it) whose listing answered last.
    private var lastListing: (folder: String, siblings: StemSiblings)?

    /// What the committer does with a group the desk handed back.
    enum Outcome {
        /// Store as one asset.
        case store(StoreGroup)
        /// A file that needs a primary (a sidecar, adjustments, an edited rendition) whose primary did not come within
        /// the wait: it may join a stored asset (``StoredPartners``); else an edited rendition is stored alone and a
        /// sidecar or adjustments file is rejected (`orphanSidecar`).
        case unpaired(StoreItem)
    }

    init(_ pairing: CommitSettings.Pairing, listsFolders: Bool) {
        desk = PairingDesk(wait: pairing.wait, pairsRawAndJpeg: pairing.pairsRawAndJpeg)
        self.listsFolders = listsFolders
    }

    /// Camera RAW formats, by the extension the probe gives from content.
    static let rawExtensions: Set<String> = ["cr2", "cr3", "dng", "nef", "arw", "raf", "orf", "rw2"]

    /// Whether a file the probe rejected is one pairing takes instead: an XMP or Takeout sidecar, an iPhone's `.AAE`.
    static func takesRejected(named name: String) -> Bool {
        let kind = SidecarName.kind(of: name)
        return kind == .xmp || kind == .takeout || name.lowercased().hasSuffix(".aae")
    }

    /// The role of a file named `name` that the probe judged `probe`, or nil when it never pairs.
    static func role<Payload>(name: String, probe: ProbeResult) -> PairingDesk<Payload>.Role? {
        if !probe.isAccepted {
            if name.lowercased().hasSuffix(".aae") { return .adjustments }
            return takesRejected(named: name) ? .sidecar : nil
        }
        // `IMG_E0001.HEIC`: the prefix is checked on bytes first, since this runs for every file.
        let edited =
            hasEditedPrefix(name)
            && PairingDesk<Payload>.Candidate.uneditedStem(SidecarName.stem(of: name.lowercased())) != nil
        switch probe.kind {
        case .photo?:
            if rawExtensions.contains(probe.fileExtension.lowercased()) { return .raw }
            return edited ? .editedPhoto : .photo
        case .video?: return edited ? .editedVideo : .video
        default: return nil
        }
    }

    /// Whether `name` starts with `IMG_E`, in any case, looked at without allocating.
    static func hasEditedPrefix(_ name: String) -> Bool {
        var bytes = name.utf8.makeIterator()
        for expected in "img_e".utf8 {
            guard var byte = bytes.next() else { return false }
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            if byte != expected { return false }
        }
        return true
    }

    /// Takes the files of one batch; returns what is ready now (a file at once when it cannot pair).
    mutating func take(_ items: [StoreItem], now: ContinuousClock.Instant = .now) -> [Outcome] {
        var ready: [Outcome] = []
        for item in items {
            guard let role = item.role else {
                ready.append(.store(StoreGroup(primary: item)))
                continue
            }
            let metadata = item.probe?.metadata
            let folder = item.job.folder
            let (hasSibling, siblingCount) = sameStemSiblings(item)
            // The common case, a photo or video that no other file can join, skips the desk.
            if (role == .photo || role == .video) && metadata?.contentIdentifier == nil && !hasSibling
                && desk.isEmpty
            {
                ready.append(.store(StoreGroup(primary: item)))
                continue
            }
            let candidate = PairingDesk<StoreItem>.Candidate(
                payload: item, folder: folder, fileName: item.job.originalName, role: role,
                contentIdentifier: metadata?.contentIdentifier, captureDate: metadata?.captureDate,
                model: metadata?.model, hasSameStemSibling: hasSibling, sameStemCount: siblingCount, arrived: now,
                stem: item.job.pairingStem)
            ready += desk.offer(candidate).flatMap(Self.outcomes)
        }
        return ready
    }

    mutating func expired(at now: ContinuousClock.Instant = .now) -> [Outcome] {
        desk.expired(at: now).flatMap(Self.outcomes)
    }

    mutating func drain() -> [Outcome] { desk.drain().flatMap(Self.outcomes) }

    var isEmpty: Bool { desk.isEmpty }

    private static func outcomes(_ group: PairingDesk<StoreItem>.Group) -> [Outcome] {
        if let primary = group.primary {
            return [.store(StoreGroup(primary: primary.payload, members: group.members.map { ($0.candidate.payload, $0.type) }))]
        }
        return group.members.map { .unpaired($0.candidate.payload) }
    }

    /// Whether the file's folder holds another file of the same stem (`IMG_0001.CR2` beside `IMG_0001.JPG`, an edit
    /// or adjustments of it, a sidecar of it), and how many files have that stem, the file among them (0: not known).
    /// A watched inbox's claims already say (the folder was listed before its files left it); an import's sources
    /// stay where they are, so their folder is listed once.
    private mutating func sameStemSiblings(_ item: StoreItem) -> (any: Bool, count: Int) {
        if item.job.hasSameStemSibling || !listsFolders { return (item.job.hasSameStemSibling, item.job.sameStemCount) }
        // An import sends a folder's files one after another: the last folder's listing answers without a lookup.
        let displayPath = item.job.displayPath
        let stem = item.job.pairingStem
        if let last = lastListing, Self.isDirectly(displayPath, in: last.folder) {
            let count = last.siblings.count(stem: stem)
            return (count > 1, count)
        }
        let folder = Path.parent(of: displayPath)
        let path = folder.isEmpty ? "." : folder
        let siblings: StemSiblings
        if let listed = listings[path] {
            siblings = listed
        } else {
            if listings.count > 4096 { listings.removeAll() }
            siblings = StemSiblings(listing: try? Directory.open(atPath: path))
            listings[path] = siblings
        }
        lastListing = (folder, siblings)
        let count = siblings.count(stem: stem)
        return (count > 1, count)
    }

    /// Whether `path` names an entry of `folder` itself (`folder/name`, or `name` for the empty folder), compared
    /// without allocating.
    static func isDirectly(_ path: String, in folder: String) -> Bool {
        let path = path.utf8
        let folder = folder.utf8
        var rest = path[...]
        if !folder.isEmpty {
            guard path.count > folder.count + 1, path.starts(with: folder) else { return false }
            rest = path[path.index(path.startIndex, offsetBy: folder.count)...]
            guard rest.first == UInt8(ascii: "/") else { return false }
            rest = rest.dropFirst()
        }
        return !rest.isEmpty && !rest.contains(UInt8(ascii: "/"))
    }

}
