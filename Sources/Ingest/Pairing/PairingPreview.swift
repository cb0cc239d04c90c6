import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem

/// What pairing would make of files probed together (`photodrop probe`): the files that would join another file's
/// asset, with their resource type, and each primary file's partners. The same rules as `watch` and `import`
/// (``PairingDesk``), over the files given: a partner that is not among them is not looked for.
public struct PairingPreview: Sendable {
    /// A file that would be stored as a resource of another file's asset.
    public struct Link: Sendable, Equatable {
        /// The index of the asset's primary file.
        public var primary: Int
        public var type: AssetResourceType
    }

    /// File index → the primary file it would join.
    public private(set) var joins: [Int: Link] = [:]
    /// Primary file index → its partners, in the order they were given.
    public private(set) var partners: [Int: [(index: Int, type: AssetResourceType)]] = [:]

    /// Pairs `paths` (probed as `results`; nil for a file that could not be read).
    public init(paths: [String], results: [ProbeResult?], pairsRawAndJpeg: Bool = true) {
        var byFolder: [String: [String]] = [:]
        for path in paths { byFolder[Path.parent(of: path), default: []].append(Path.lastComponent(of: path)) }
        let siblings = byFolder.mapValues { StemSiblings(names: $0) }
        var desk = PairingDesk<Int>(wait: .seconds(1), pairsRawAndJpeg: pairsRawAndJpeg)
        var groups: [PairingDesk<Int>.Group] = []
        let now = ContinuousClock.now
        for (index, path) in paths.enumerated() {
            guard let probe = results[index] else { continue }
            let name = Path.lastComponent(of: path)
            let folder = Path.parent(of: path)
            guard let role: PairingDesk<Int>.Role = PairingStage.role(name: name, probe: probe) else { continue }
            let sameStem = siblings[folder]?.count(name) ?? 0
            groups += desk.offer(
                PairingDesk<Int>.Candidate(
                    payload: index, folder: folder, fileName: name, role: role,
                    contentIdentifier: probe.metadata.contentIdentifier, captureDate: probe.metadata.captureDate,
                    model: probe.metadata.model, hasSameStemSibling: sameStem > 1, sameStemCount: sameStem,
                    arrived: now))
        }
        groups += desk.drain()
        for group in groups {
            guard let primary = group.primary, !group.members.isEmpty else { continue }
            partners[primary.payload] = group.members.map { ($0.candidate.payload, $0.type) }
            for member in group.members {
                joins[member.candidate.payload] = Link(primary: primary.payload, type: member.type)
            }
        }
    }
}
