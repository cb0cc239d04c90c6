import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem
import Synchronization

/// Files whose partner was stored before they came: they join that asset (``StoredPartners``) through
/// `AssetChangeRequest.addResource(with:file:options:primaryBecomes:)`, in one change block per batch.
extension Committer {
    /// Takes out of `groups` and `unpaired` the files that join stored assets, and returns those as attachments;
    /// nothing is copied when nothing matches, the common case.
    func matchStoredPartners(_ groups: inout [StoreGroup], _ unpaired: inout [StoreItem]) -> [StoredPartners.Attachment] {
        var lookups: [StoredPartners.Lookup] = []
        var lookedGroups = IndexSet()
        var lookedItems = IndexSet()
        // Most files of a batch are photos without a content identifier, which could only join an asset that awaits
        // a photo (a RAW or a movie stored alone): when the library has none, which one indexed row answers, they
        // are not looked up at all.
        var someAssetAwaits: Bool?
        func wanted(_ lookup: StoredPartners.Lookup) -> Bool {
            guard case .awaitingPhoto = lookup.route else { return true }
            if someAssetAwaits == nil { someAssetAwaits = StoredPartners.someAssetAwaitsPartner(in: library) }
            return someAssetAwaits ?? true
        }
        for index in groups.indices {
            guard let lookup = StoredPartners.lookup(for: groups[index]), wanted(lookup) else { continue }
            lookedGroups.insert(index)
            lookups.append(lookup)
        }
        for index in unpaired.indices {
            guard let lookup = StoredPartners.lookup(for: StoreGroup(primary: unpaired[index])), wanted(lookup) else {
                continue
            }
            lookedItems.insert(index)
            lookups.append(lookup)
        }
        guard !lookups.isEmpty else { return [] }
        var partners: StoredPartners
        do {
            partners = try StoredPartners(
                library: library, pairsRawAndJpeg: settings.pairing?.pairsRawAndJpeg ?? false, lookups: lookups)
        } catch {
            logger.warning(
                "cannot look for stored partners of this batch's files; they are stored on their own",
                metadata: ["error": .string(IngestFailure(error).description)])
            return []
        }
        guard !partners.isEmpty else { return [] }
        var attachments: [StoredPartners.Attachment] = []
        func take(_ attachment: StoredPartners.Attachment) {
            // One change request per asset: files of one batch that join the same asset travel together.
            if let same = attachments.firstIndex(where: { $0.asset.localIdentifier == attachment.asset.localIdentifier }) {
                attachments[same].files += attachment.files
                attachments[same].primaryBecomes = attachments[same].primaryBecomes ?? attachment.primaryBecomes
            } else {
                attachments.append(attachment)
            }
        }
        var matchedGroups = IndexSet()
        for index in lookedGroups {
            guard case .attach(let attachment) = partners.match(groups[index]) else { continue }
            take(attachment)
            matchedGroups.insert(index)
        }
        var matchedItems = IndexSet()
        for index in lookedItems {
            guard case .attach(let attachment) = partners.match(StoreGroup(primary: unpaired[index])) else { continue }
            take(attachment)
            matchedItems.insert(index)
        }
        if !matchedGroups.isEmpty { groups = groups.indices.filter { !matchedGroups.contains($0) }.map { groups[$0] } }
        if !matchedItems.isEmpty { unpaired = unpaired.indices.filter { !matchedItems.contains($0) }.map { unpaired[$0] } }
        return attachments
    }

    /// Adds files to their stored assets; a failed block is retried asset by asset.
    func attach(_ attachments: [StoredPartners.Attachment]) async {
        await commitOneByOneOnFailure(attachments, files: { $0.files.map(\.item) }) { committer, attachments in
            committer.deliver(attachments, alreadyStored: try await committer.attachBlock(attachments))
        }
    }

    /// One change block: each asset gets its files, the metadata of a new primary file and of sidecars (through the
    /// capture-date precedence), and joins the albums of the folders its new files came from when those exist.
    /// Returns, per attachment, the source paths of files the library already stored.
    private func attachBlock(_ attachments: [StoredPartners.Attachment]) async throws -> [Set<String>] {
        var albumsByKey: [String: AssetCollection] = [:]
        for key in Set(attachments.flatMap { $0.files.compactMap(\.item.job.album) }) {
            if let album = try album(forKey: key) { albumsByKey[key] = album }
        }
        let knownAlbums = albumsByKey
        let move = settings.placement == .move
        let readings = attachments.map { readSidecars($0.files.map(\.item)) }
        let notes = BlockNotes(fencedKind: fencedClaimKind)
        let requests = Mutex<[AssetChangeRequest]>([])
        try await library.performChanges {
            for (attachment, fileReadings) in zip(attachments, readings) {
                let change = try AssetChangeRequest(for: attachment.asset)
                for (item, type) in attachment.files {
                    change.addResource(
                        with: type, file: item.job.source, options: item.resourceOptions(move: move),
                        primaryBecomes: type.isPrimary ? attachment.primaryBecomes : nil)
                    notes.finished(
                        item,
                        item.outcomeRecord(
                            .attached, asset: attachment.asset.localIdentifier,
                            message: "stored with \(attachment.asset.localIdentifier) as its \(type.name)"))
                }
                let sidecars = fileReadings.filter { $0.xmp != nil || $0.takeout != nil }
                if let primary = attachment.newPrimary, var metadata = primary.probe?.metadata {
                    SidecarReading.apply(fileReadings, to: &metadata)
                    AssetMetadata.apply(metadata, to: change)
                } else if !sidecars.isEmpty {
                    var metadata = AssetMetadata.recorded(of: attachment.asset)
                    SidecarReading.apply(sidecars, to: &metadata)
                    AssetMetadata.apply(metadata, to: change)
                }
                for reading in sidecars { reading.apply(to: change) }
                var joined = Set<String>()
                for key in attachment.files.compactMap(\.item.job.album) where joined.insert(key).inserted {
                    guard let album = knownAlbums[key] else { continue }
                    try AssetCollectionChangeRequest(for: album).addAssets([attachment.asset])
                }
                requests.withLock { $0.append(change) }
            }
            try notes.commitFinished()
        }
        return requests.withLock { $0.map { Set($0.alreadyStoredAddedPaths) } }
    }

    private func deliver(_ attachments: [StoredPartners.Attachment], alreadyStored: [Set<String>]) {
        let now = ContinuousClock.now
        for (attachment, skipped) in zip(attachments, alreadyStored) {
            let asset = attachment.asset.localIdentifier
            let storedName = attachment.asset.originalFilename ?? "file"
            for (item, type) in attachment.files {
                let wasStored = skipped.contains(item.job.source.path)
                if wasStored && settings.removesDuplicateCopies { Committer.remove(item.job.source, logger: logger) }
                let added =
                    type.isPrimary
                    ? "added to \(asset) as its photo; the stored \(storedName) became its "
                        + (attachment.primaryBecomes?.name ?? "")
                    : "added to \(asset) (stored earlier from \(storedName)) as its \(type.name)"
                hooks.finished(
                    FileOutcome(
                        path: item.job.displayPath, kind: wasStored ? .duplicate : .attached,
                        message: wasStored
                            ? "same content as a file already in the library"
                            : added,
                        mime: item.mime, assetID: asset, album: item.job.album, bytes: item.digest.size,
                        elapsed: item.job.startedAt.duration(to: now)))
            }
            if !skipped.isEmpty && skipped.count == attachment.files.count { continue }
            logger.info(
                "added files to a stored asset",
                metadata: [
                    "asset": .string(asset), "files": .count(attachment.files.count - skipped.count),
                ])
        }
    }

    /// A dry run of files that would join a stored asset.
    func dryRun(_ attachment: StoredPartners.Attachment) {
        let asset = attachment.asset.localIdentifier
        for (item, type) in attachment.files {
            hooks.finished(
                FileOutcome(
                    path: item.job.displayPath, kind: .attached,
                    message: "would be added to \(asset) as its \(type.isPrimary ? "photo" : type.name)",
                    mime: item.mime, assetID: asset, album: item.job.album, bytes: item.digest.size,
                    elapsed: item.job.startedAt.duration(to: .now)))
        }
    }
}
