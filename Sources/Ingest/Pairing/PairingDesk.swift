import FoundationEssentials
import MediaProbe
import PhotoCatalog

/// Gathers the files that belong to one asset before they are committed: a Live Photo's photo and movie, a RAW beside
/// its JPEG or HEIC, an iPhone's edited rendition and adjustments, and sidecars. Pure bookkeeping: the committer
/// offers each file it is about to store, commits what the desk hands back, and asks for what has waited long enough.
///
/// A file that can have a partner waits for it (``wait``): one that carries a Live Photo content identifier, one whose
/// folder held a file of the same stem when it was found, an edited rendition, adjustments, a sidecar. Every other
/// file is handed back at once, so ordinary drops are not delayed. Pairing rules:
/// - Live Photo: a photo and a movie with the same content identifier; never two files whose identifiers differ; with
///   neither identifier, the same folder and stem and capture times within 2 s.
/// - RAW+JPEG: a RAW and a JPEG/HEIC of the same folder and stem, capture times within 2 s where both have one, and
///   the same camera model where both say one. The JPEG/HEIC is the asset's photo, the RAW its alternate.
/// - `IMG_E0001.HEIC`/`.MOV` (edited) and `IMG_0001.AAE` (adjustments) join the asset of `IMG_0001`.
/// - A sidecar joins the media file its name points at (``SidecarName``).
struct PairingDesk<Payload> {
    /// What a file is, for pairing.
    enum Role: Equatable {
        case photo
        case raw
        case video
        case editedPhoto
        case editedVideo
        case adjustments
        case sidecar
    }

    struct Candidate {
        init(
            payload: Payload, folder: String, fileName: String, role: Role, contentIdentifier: String?,
            captureDate: Date?, model: String?, hasSameStemSibling: Bool, sameStemCount: Int = 0,
            arrived: ContinuousClock.Instant, stem: String? = nil
        ) {
            self.sameStemCount = sameStemCount
            self.payload = payload
            self.folder = folder
            self.fileName = fileName
            self.role = role
            self.contentIdentifier = contentIdentifier
            self.captureDate = captureDate
            self.model = model
            self.hasSameStemSibling = hasSameStemSibling
            self.arrived = arrived
            self.stem = stem ?? StemSiblings.pairingStem(of: fileName)
        }

        var payload: Payload
        /// The folder the file was found in (its path below the root, `""` for the root).
        var folder: String
        var fileName: String
        var role: Role
        var contentIdentifier: String?
        var captureDate: Date?
        var model: String?
        /// Whether the file's folder held another file of the same stem when it was found.
        var hasSameStemSibling: Bool
        /// How many files of its folder had its stem when it was found, itself among them (0: not known).
        var sameStemCount: Int
        var arrived: ContinuousClock.Instant

        /// The pairing stem (``StemSiblings/pairingStem(of:)``): lowercased, without extension or sidecar suffix, an
        /// edited rendition's `E` taken out (`IMG_E0001.HEIC` → `img_0001`).
        let stem: String
        /// The folder and stem, which the desk indexes its groups by.
        var key: String { folder + "/" + stem }

        /// `img_e0001` → `img_0001` (Apple's edited renditions), else nil.
        static func uneditedStem(_ stem: String) -> String? {
            guard stem.hasPrefix("img_e"), stem.count > 5, stem.dropFirst(5).allSatisfy(\.isNumber) else { return nil }
            return "img_" + stem.dropFirst(5)
        }

        /// Whether this file waits for a partner rather than being committed alone at once.
        var mayWait: Bool {
            switch role {
            case .photo, .video: contentIdentifier != nil || hasSameStemSibling
            case .raw: hasSameStemSibling
            case .editedPhoto, .editedVideo, .adjustments, .sidecar: true
            }
        }
    }

    /// Files that become one asset: the primary (a photo, a RAW without JPEG, or a video) and the others with their
    /// resource types. A group without a primary holds only files that need one (a sidecar whose media never came).
    struct Group {
        var primary: Candidate?
        var members: [(candidate: Candidate, type: AssetResourceType)] = []
        var started: ContinuousClock.Instant

        var all: [Candidate] { (primary.map { [$0] } ?? []) + members.map(\.candidate) }
    }

    /// How long a file that may have a partner waits for it (config `pairWaitSeconds`).
    let wait: Duration
    /// Whether RAW and JPEG files of one shot become one asset (config `rawAndJpeg`).
    let pairsRawAndJpeg: Bool
    /// The waiting groups by a number that grows with each new group (so that the earliest group is tried first).
    private var groups: [Int: Group] = [:]
    private var nextID = 0
    /// Group numbers by the folder and stem of each of their files, and by the content identifier of their primary:
    /// a file is checked against the few groups it can join, not every waiting group (2,000 Live Photos arriving in
    /// random order kept a thousand groups waiting; checking each made pairing quadratic).
    private var byKey: [String: [Int]] = [:]
    private var byIdentifier: [String: [Int]] = [:]

    init(wait: Duration, pairsRawAndJpeg: Bool = true) {
        self.wait = wait
        self.pairsRawAndJpeg = pairsRawAndJpeg
    }

    var isEmpty: Bool { groups.isEmpty }
    /// How many groups wait.
    var count: Int { groups.count }
    /// How many files wait.
    var fileCount: Int { groups.values.reduce(0) { $0 + $1.all.count } }

    /// Takes a file; returns the groups ready now (the file alone when it cannot pair, or a group it completed).
    mutating func offer(_ candidate: Candidate) -> [Group] {
        let nearby = numbers(near: candidate)
        if let id = nearby.first(where: { groups[$0]?.primary != nil && accepts(groups[$0]!, candidate) }) {
            var group = remove(id)
            add(candidate, to: &group)
            if candidate.role.isPrimaryCapable { absorbWaitingMembers(into: &group) }
            if isComplete(group) { return [group] }
            insert(group, as: id)
            return []
        }
        var group = Group(started: candidate.arrived)
        if candidate.role.isPrimaryCapable {
            add(candidate, to: &group)
            absorbWaitingMembers(into: &group)
        } else if let id = nearby.first(where: {
            groups[$0]?.primary == nil && groups[$0]?.all.first?.key == candidate.key
        }) {
            var joined = remove(id)
            add(candidate, to: &joined)
            insert(joined, as: id)
            return []
        } else {
            add(candidate, to: &group)
        }
        if !group.all.contains(where: \.mayWait) || isComplete(group) { return [group] }
        insert(group, as: nextID)
        nextID += 1
        return []
    }

    /// The numbers of the groups `candidate` may join: those with a file of its folder and stem, or whose primary
    /// has its content identifier; earliest first.
    private func numbers(near candidate: Candidate) -> [Int] {
        var found = byKey[candidate.key] ?? []
        if let identifier = candidate.contentIdentifier, let more = byIdentifier[identifier] {
            found += more
            found = Array(Set(found))
        }
        return found.count > 1 ? found.sorted() : found
    }

    private mutating func insert(_ group: Group, as id: Int) {
        groups[id] = group
        for key in Set(group.all.map(\.key)) { byKey[key, default: []].append(id) }
        if let identifier = group.primary?.contentIdentifier { byIdentifier[identifier, default: []].append(id) }
    }

    private mutating func remove(_ id: Int) -> Group {
        let group = groups.removeValue(forKey: id)!
        for key in Set(group.all.map(\.key)) { Self.drop(id, from: &byKey, at: key) }
        if let identifier = group.primary?.contentIdentifier { Self.drop(id, from: &byIdentifier, at: identifier) }
        return group
    }

    private static func drop(_ id: Int, from index: inout [String: [Int]], at key: String) {
        index[key]?.removeAll { $0 == id }
        if index[key]?.isEmpty == true { index[key] = nil }
    }

    /// Moves the sidecars and edits that came first, and wait without a primary, into `group` when they belong to it.
    private mutating func absorbWaitingMembers(into group: inout Group) {
        guard let primary = group.primary else { return }
        for id in byKey[primary.key]?.sorted() ?? [] {
            guard let waiting = groups[id], waiting.primary == nil, waiting.all.first?.folder == primary.folder else {
                continue
            }
            // Each file that belongs moves; the others (`IMG_0001.CR2.xmp` before its CR2 came) wait on.
            var rest = Group(started: waiting.started)
            for member in waiting.all {
                if belongs(member, to: group) { add(member, to: &group) } else { add(member, to: &rest) }
            }
            guard rest.members.count < waiting.members.count else { continue }
            group.started = min(group.started, waiting.started)
            _ = remove(id)
            if !rest.members.isEmpty { insert(rest, as: id) }
        }
    }

    /// The groups that waited ``wait`` or longer by `now`.
    mutating func expired(at now: ContinuousClock.Instant) -> [Group] {
        let due = groups.filter { $0.value.started.advanced(by: wait) <= now }.keys.sorted()
        return due.map { remove($0) }
    }

    /// Everything still waiting (nothing more will come).
    mutating func drain() -> [Group] {
        defer {
            groups.removeAll()
            byKey.removeAll()
            byIdentifier.removeAll()
        }
        return groups.keys.sorted().map { groups[$0]! }
    }

    /// When the next group's wait ends.
    var nextDeadline: ContinuousClock.Instant? { groups.values.map { $0.started.advanced(by: wait) }.min() }

    // MARK: Rules

    /// Whether `candidate` can join `group`, whose primary is set.
    private func accepts(_ group: Group, _ candidate: Candidate) -> Bool {
        guard let primary = group.primary, primary.folder == candidate.folder else { return false }
        let taken = Set(group.members.map(\.type))
        switch candidate.role {
        case .photo:
            // A photo displaces a RAW (which becomes the alternate) or a Live Photo's movie (the paired video).
            if primary.role == .raw { return pairsRawAndJpeg && shotTogether(candidate, primary) }
            if primary.role == .video { return livePartners(candidate, primary) }
            return false
        case .video:
            return primary.role == .photo && !taken.contains(.pairedVideo) && livePartners(primary, candidate)
        case .raw:
            return pairsRawAndJpeg && primary.role == .photo && !taken.contains(.alternatePhoto)
                && shotTogether(primary, candidate)
        default:
            return belongs(candidate, to: group)
        }
    }

    /// Whether a file that needs a primary (edit, adjustments, sidecar) belongs to the asset `group` makes.
    private func belongs(_ member: Candidate, to group: Group) -> Bool {
        guard let primary = group.primary, member.folder == primary.folder else { return false }
        let taken = Set(group.members.map(\.type))
        switch member.role {
        case .sidecar:
            // `IMG_0001.CR2.xmp` belongs to the pair whose alternate is `IMG_0001.CR2`.
            let names = group.all.filter { $0.role != .sidecar }.map(\.fileName)
            return SidecarName.media(forSidecar: member.fileName, among: names) != nil
        case .adjustments:
            return !taken.contains(.adjustmentData) && member.stem == primary.stem
        case .editedPhoto:
            return primary.role == .photo && !taken.contains(.fullSizePhoto) && member.stem == primary.stem
        case .editedVideo:
            return primary.role == .video && !taken.contains(.fullSizeVideo) && member.stem == primary.stem
        case .photo, .raw, .video:
            return false
        }
    }

    private func livePartners(_ photo: Candidate, _ movie: Candidate) -> Bool {
        // Without identifiers the rule needs the same stem; the folder is already the same.
        if photo.contentIdentifier == nil, movie.contentIdentifier == nil, photo.stem != movie.stem { return false }
        return PairingRules.livePartners(
            (photo.contentIdentifier, photo.captureDate), (movie.contentIdentifier, movie.captureDate))
    }

    private func shotTogether(_ photo: Candidate, _ raw: Candidate) -> Bool {
        guard photo.stem == raw.stem,
            PairingRules.closeInTime(photo.captureDate, raw.captureDate, requireBoth: false)
        else {
            return false
        }
        if let a = photo.model, let b = raw.model, !a.isEmpty, !b.isEmpty { return a == b }
        return true
    }

    /// Adds a file to a group in its role: a primary-capable file without a primary becomes it; a photo displaces a
    /// RAW (which becomes the alternate) or a Live Photo's movie (which becomes the paired video).
    private func add(_ candidate: Candidate, to group: inout Group) {
        if candidate.role.isPrimaryCapable {
            guard let current = group.primary else {
                group.primary = candidate
                return
            }
            if candidate.role == .photo, current.role == .raw || current.role == .video {
                group.primary = candidate
                group.members.append((current, current.role == .raw ? .alternatePhoto : .pairedVideo))
                return
            }
        }
        let type: AssetResourceType
        switch candidate.role {
        case .video: type = .pairedVideo
        case .raw: type = .alternatePhoto
        case .editedPhoto: type = .fullSizePhoto
        case .editedVideo: type = .fullSizeVideo
        case .adjustments: type = .adjustmentData
        case .sidecar, .photo: type = .sidecar
        }
        group.members.append((candidate, type))
    }

    /// Whether nothing in the group waits for anything more. When its files say how many files of their stem were in
    /// the folder, once all of them have joined (a photo and its sidecar dropped together go at once; a Live Photo's
    /// photo still waits for its movie). Otherwise by the kind of group: a Live Photo has its movie, a RAW+JPEG both
    /// halves, and no file that waits without a partner is left (edits, adjustments and sidecars wait out the time,
    /// since more may come).
    private func isComplete(_ group: Group) -> Bool {
        guard let primary = group.primary else { return false }
        let types = Set(group.members.map(\.type))
        let expected = group.all.map(\.sameStemCount).max() ?? 0
        if expected > 1 {
            // Known: complete when all of them joined. A Live Photo's half with an identifier still waits for the
            // other half, which may come after the folder was listed.
            guard group.all.count >= expected else { return false }
            switch primary.role {
            case .photo where primary.contentIdentifier != nil: return types.contains(.pairedVideo)
            case .video where primary.contentIdentifier != nil: return false
            default: return true
            }
        }
        if group.members.contains(where: { [.sidecar, .adjustmentData, .fullSizePhoto, .fullSizeVideo].contains($0.type) })
        {
            return false
        }
        switch primary.role {
        case .photo:
            let wantsMovie = primary.contentIdentifier != nil
            let wantsRaw = primary.hasSameStemSibling && pairsRawAndJpeg
            if wantsMovie && !types.contains(.pairedVideo) { return false }
            if !wantsMovie && wantsRaw && !types.contains(.alternatePhoto) && !types.contains(.pairedVideo) {
                return false
            }
            return true
        case .video:
            return false  // a Live Photo's movie waits for its photo
        case .raw:
            return !pairsRawAndJpeg  // a RAW waits for its JPEG, when they pair
        default:
            return false
        }
    }
}

extension PairingDesk.Role {
    /// Whether a file in this role can be an asset's main file.
    var isPrimaryCapable: Bool { self == .photo || self == .raw || self == .video }
}
