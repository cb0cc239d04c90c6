import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem

/// Finds, for files whose partner did not come within the wait, the asset that partner was stored as earlier: a Live
/// Photo's movie whose photo is in the library (by content identifier), a RAW whose JPEG is (same folder and stem,
/// capture times within 2 s), a sidecar, adjustments or an edited rendition whose asset is. One or two fetches per
/// batch (``init(library:pairsRawAndJpeg:lookups:)``), by content identifier, capture time and
/// ``IngestJob/pairingKey`` (the inbox folder and the file's pairing stem, which every stored asset records).
struct StoredPartners {
    /// Files that join a stored asset.
    struct Attachment {
        var asset: Asset
        var files: [(item: StoreItem, type: AssetResourceType)]
        /// Set when one of the files becomes the asset's primary file: the type the current primary takes.
        var primaryBecomes: AssetResourceType?
        /// The new primary file (its metadata becomes the asset's).
        var newPrimary: StoreItem? { primaryBecomes == nil ? nil : files.first { $0.type.isPrimary }?.item }
    }

    /// What a file or group left over from pairing turned out to be.
    enum Match {
        case attach(Attachment)
        case none
    }

    let library: PhotoLibrary
    let pairsRawAndJpeg: Bool
    /// The assets found, with what later matches of this batch added to them.
    private var found: [Asset] = []
    private var byKey: [String: [Int]] = [:]
    private var byIdentifier: [String: [Int]] = [:]
    /// Resource types an earlier match of this batch gave each asset, by index into ``found``.
    private var added: [Int: [AssetResourceType]] = [:]

    /// Looks up the stored assets that the files of `lookups` could join, through indexes wherever it can: by content
    /// identifier; a photo by the key of the assets that await one (a RAW or a movie stored alone); a dated file (a
    /// RAW, a movie, an edit) by its capture time ±2 s, then its key; a sidecar or adjustments file, which has no date
    /// of its own, by key alone (a scan, for what is rare: a sidecar whose media was stored before it came).
    init(library: PhotoLibrary, pairsRawAndJpeg: Bool, lookups: [Lookup]) throws {
        self.library = library
        self.pairsRawAndJpeg = pairsRawAndJpeg
        var indexed: [FetchPredicate] = []
        var awaiting = Set<String>()
        var scanned = Set<String>()
        // The creation-date range is half-open: widened by a millisecond so that 2 s apart still matches.
        let window = PairingRules.maximumSecondsApart + 0.001
        for lookup in lookups {
            switch lookup.route {
            case .identifier(let identifier): indexed.append(.contentIdentifier(identifier))
            case .awaitingPhoto: awaiting.insert(lookup.key)
            case .captureTime(let date):
                indexed.append(
                    .and([
                        .creationDate(from: date.addingTimeInterval(-window), to: date.addingTimeInterval(window)),
                        .pairingKey(in: [lookup.key]),
                    ]))
            case .key: scanned.insert(lookup.key)
            }
        }
        if !awaiting.isEmpty { indexed.append(.awaitingPartner(in: Array(awaiting))) }
        var assets: [Asset] = []
        var seen = Set<String>()
        for predicate in [indexed.isEmpty ? nil : FetchPredicate.or(indexed), scanned.isEmpty ? nil : .pairingKey(in: Array(scanned))] {
            guard let predicate else { continue }
            for asset in try Asset.fetchAssets(
                with: FetchOptions(predicate: predicate, includeHiddenAssets: true), library: library)
            where seen.insert(asset.localIdentifier).inserted {
                assets.append(asset)
            }
        }
        // The most recently added first: a late sidecar whose stem names two stored assets joins the newer one.
        found = assets.sorted { $0.addedDate > $1.addedDate }
        for (index, asset) in found.enumerated() {
            if let key = asset.pairingKey { byKey[key, default: []].append(index) }
            if let identifier = asset.contentIdentifier { byIdentifier[identifier, default: []].append(index) }
        }
    }

    /// How a group's primary file looks for a stored asset to join.
    struct Lookup {
        enum Route {
            /// By content identifier (a Live Photo half).
            case identifier(String)
            /// A photo without identifier: among the assets awaiting a photo (a RAW or a movie stored alone).
            case awaitingPhoto
            /// A RAW, a movie or an edit: its capture time ±2 s, then its key.
            case captureTime(Date)
            /// By key alone (sidecars and adjustments, which carry no capture time of their own).
            case key
        }

        var key: String
        var route: Route
    }

    /// How a group's primary file could find a stored asset to join; nil when it cannot (a file that never pairs, a
    /// photo that already has its movie or RAW, a movie without identifier or capture time).
    static func lookup(for group: StoreGroup) -> Lookup? {
        guard let role = group.primary.role else { return nil }
        if role == .photo, group.members.contains(where: { $0.type == .pairedVideo || $0.type == .alternatePhoto }) {
            return nil
        }
        let key = group.primary.job.pairingKey
        let metadata = group.primary.probe?.metadata
        if let identifier = metadata?.contentIdentifier, role == .photo || role == .video {
            return Lookup(key: key, route: .identifier(identifier))
        }
        switch role {
        case .photo:
            return Lookup(key: key, route: .awaitingPhoto)
        case .video:
            return metadata?.captureDate.map { Lookup(key: key, route: .captureTime($0)) }
        case .raw, .editedPhoto, .editedVideo:
            return Lookup(key: key, route: metadata?.captureDate.map { .captureTime($0) } ?? .key)
        case .adjustments, .sidecar:
            return Lookup(key: key, route: .key)
        }
    }

    /// Whether a group stored as a new asset may later get its primary file from a partner: a RAW or a movie without
    /// content identifier stored alone (its JPEG or Live Photo still may follow).
    static func awaitsPartner(_ group: StoreGroup) -> Bool {
        guard let role = group.primary.role, role == .raw || role == .video else { return false }
        return group.primary.probe?.metadata.contentIdentifier == nil
    }

    /// Whether any asset of the library awaits a partner (one row of an index); true when that cannot be asked, so
    /// that the lookup itself runs and says what went wrong.
    static func someAssetAwaitsPartner(in library: PhotoLibrary) -> Bool {
        let options = FetchOptions(predicate: .awaitingPartner(in: nil), fetchLimit: 1, includeHiddenAssets: true)
        guard let found = try? Asset.fetchAssets(with: options, library: library) else { return true }
        return found.count > 0
    }

    /// Whether the lookup found no asset at all.
    var isEmpty: Bool { found.isEmpty }

    /// The stored asset a group joins, if any.
    mutating func match(_ group: StoreGroup) -> Match {
        guard let role = group.primary.role else { return .none }
        let primary = group.primary
        let metadata = primary.probe?.metadata
        let identifier = metadata?.contentIdentifier
        let candidates =
            identifier.map { byIdentifier[$0] ?? [] } ?? byKey[primary.job.pairingKey] ?? []
        for index in candidates {
            let asset = found[index]
            let types = asset.resources.map(\.type) + (added[index] ?? [])
            guard let stored = types.first(where: \.isPrimary) else { continue }
            let storedIsRaw = Self.isRaw(asset)
            var attachment: Attachment?
            switch role {
            case .photo:
                if stored == .video, !types.contains(.pairedVideo), livePartners(identifier, asset, metadata) {
                    attachment = Attachment(asset: asset, files: [(primary, .photo)], primaryBecomes: .pairedVideo)
                } else if identifier == nil, pairsRawAndJpeg, stored == .photo, storedIsRaw,
                    !types.contains(.alternatePhoto),
                    PairingRules.closeInTime(metadata?.captureDate, asset.creationDate, requireBoth: false)
                {
                    attachment = Attachment(asset: asset, files: [(primary, .photo)], primaryBecomes: .alternatePhoto)
                }
            case .video:
                if stored == .photo, !storedIsRaw, !types.contains(.pairedVideo), asset.playbackStyle != .imageAnimated,
                    livePartners(identifier, asset, metadata)
                {
                    attachment = Attachment(asset: asset, files: [(primary, .pairedVideo)])
                }
            case .raw:
                if pairsRawAndJpeg, identifier == nil, stored == .photo, !storedIsRaw, !types.contains(.alternatePhoto),
                    asset.playbackStyle != .imageAnimated,
                    PairingRules.closeInTime(metadata?.captureDate, asset.creationDate, requireBoth: false)
                {
                    attachment = Attachment(asset: asset, files: [(primary, .alternatePhoto)])
                }
            case .editedPhoto, .editedVideo, .adjustments, .sidecar:
                if let type = Self.memberType(role, of: primary, joining: asset, types: types, stored: stored) {
                    attachment = Attachment(asset: asset, files: [(primary, type)])
                }
            }
            guard var attachment else { continue }
            // The group's other files come along when they fit the asset as it will be.
            let primaryAfter: AssetResourceType = attachment.primaryBecomes == nil ? stored : .photo
            var typesAfter = types + attachment.files.map(\.type)
            if let demoted = attachment.primaryBecomes { typesAfter.append(demoted) }
            for member in group.members {
                guard Self.fits(member.type, primary: primaryAfter, types: typesAfter) else { return .none }
                attachment.files.append((member.item, member.type))
                typesAfter.append(member.type)
            }
            added[index, default: []] += attachment.files.map(\.type) + (attachment.primaryBecomes.map { [$0] } ?? [])
            return .attach(attachment)
        }
        return .none
    }

    /// Whether a secondary file of `type` fits `asset` with the types `planned` already added to it: no second file
    /// of a type (sidecars excepted), and a type that goes with the asset's primary type.
    static func fits(_ type: AssetResourceType, asset: Asset, adding planned: [AssetResourceType]) -> Bool {
        let types = asset.resources.map(\.type) + planned
        guard let primary = types.first(where: \.isPrimary) else { return false }
        return fits(type, primary: primary, types: types)
    }

    /// Whether a secondary file of `type` fits an asset whose primary type is `primary` and whose files have `types`.
    static func fits(_ type: AssetResourceType, primary: AssetResourceType, types: [AssetResourceType]) -> Bool {
        guard !type.isPrimary else { return false }
        if type != .sidecar && types.contains(type) { return false }
        return type.requiredPrimary.map { $0 == primary } ?? true
    }

    /// The type a file that needs a primary takes in `asset`, or nil when it does not belong there.
    private static func memberType(
        _ role: PairingDesk<StoreItem>.Role, of item: StoreItem, joining asset: Asset, types: [AssetResourceType],
        stored: AssetResourceType
    ) -> AssetResourceType? {
        switch role {
        case .sidecar:
            let names = asset.resources.filter { $0.type != .sidecar }.map(\.originalFilename)
            return SidecarName.media(forSidecar: item.job.originalName, among: names) != nil ? .sidecar : nil
        case .adjustments:
            return types.contains(.adjustmentData) ? nil : .adjustmentData
        case .editedPhoto:
            return stored == .photo && !types.contains(.fullSizePhoto) ? .fullSizePhoto : nil
        case .editedVideo:
            return stored == .video && !types.contains(.fullSizeVideo) ? .fullSizeVideo : nil
        case .photo, .video, .raw:
            return nil
        }
    }

    /// Whether the asset's primary file is a camera RAW (by the extension of its original name, or its type).
    static func isRaw(_ asset: Asset) -> Bool {
        guard let resource = asset.resources.first(where: { $0.type.isPrimary }) else { return false }
        let ext = Path.pathExtension(of: resource.originalFilename).lowercased()
        return PairingStage.rawExtensions.contains(ext)
    }

    /// The Live Photo rule against a stored half (the key already matched folder and stem).
    private func livePartners(_ identifier: String?, _ asset: Asset, _ metadata: MediaMetadata?) -> Bool {
        PairingRules.livePartners((identifier, metadata?.captureDate), (asset.contentIdentifier, asset.creationDate))
    }
}
