import FoundationEssentials

/// What one transaction changed, per object, for the change log and for observers.
struct ChangeSet: Sendable {
    /// Asset UUID → net change.
    var assets: [String: ObjectChangeKind] = [:]
    /// Album UUID → net change.
    var collections: [String: ObjectChangeKind] = [:]
    /// Folder UUID → net change.
    var collectionLists: [String: ObjectChangeKind] = [:]
    /// Whether album memberships or their order changed.
    var membershipsChanged = false

    var isEmpty: Bool { assets.isEmpty && collections.isEmpty && collectionLists.isEmpty && !membershipsChanged }

    mutating func note(asset uuid: String, _ kind: ObjectChangeKind) {
        ChangeSet.note(&assets, uuid, kind)
    }

    mutating func note(collection uuid: String, _ kind: ObjectChangeKind) {
        ChangeSet.note(&collections, uuid, kind)
    }

    mutating func note(collectionList uuid: String, _ kind: ObjectChangeKind) {
        ChangeSet.note(&collectionLists, uuid, kind)
    }

    private static func note(_ map: inout [String: ObjectChangeKind], _ uuid: String, _ kind: ObjectChangeKind) {
        if let earlier = map[uuid] {
            map[uuid] = earlier.followed(by: kind)
        } else {
            map[uuid] = kind
        }
    }
}

/// Applies the requests of one block inside the writer's open transaction: asset creations first (in request
/// order), then album creations, then every other change in the order it was made.
///
/// Keeps per-block caches only (album append positions and count deltas, flushed once at the end); nothing survives
/// the block.
final class ChangeApplier {
    private let writer: WriterConnection
    let database: Database
    let now: Double
    /// What the block changed (folder operations in `ChangeApplier+Folders.swift` note theirs too).
    var changes = ChangeSet()
    /// Rows of the folders created in this block, by UUID.
    var createdListRows: [String: Int64] = [:]
    /// Album row → (next append position, change of the visible-asset count), written back by ``flushAlbums()``.
    private var albums: [Int64: (nextPosition: Int64, countDelta: Int64)] = [:]
    /// Albums created in this block that turned out to be another's already (see ``createCollection(_:)``): the
    /// request's UUID → the album's.
    private var albumRedirects: [String: String] = [:]
    /// Rows of the albums created in this block, by UUID.
    private var createdAlbumRows: [String: Int64] = [:]
    /// Files of purged assets, removed after the commit.
    private(set) var purgedPaths: [String] = []
    /// Assets whose hidden or deleted state an operation of this block changed.
    private var visibilityChanged: Set<Int64> = []
    /// Creation requests that restored an asset from Recently Deleted.
    private(set) var restoredRequests: Set<ObjectIdentifier> = []
    /// PostgreSQL: the block's new assets and their resources, gathered for one COPY each (``flushCreations()``), under
    /// row ids reserved from the table's sequence; nil on SQLite, where a statement costs no round trip.
    private var bulkAssets: PostgresCopyRows?
    private var bulkResources: PostgresCopyRows?
    /// PostgreSQL: the row ids reserved for the block's new assets, the next one last.
    private var reservedAssetIDs: [Int64] = []
    /// PostgreSQL: the (album, asset) memberships this block inserted in bulk.
    private var bulkMembers: Set<[Int64]> = []

    init(writer: WriterConnection, now: Date) {
        self.writer = writer
        self.database = writer.database
        self.now = now.timeIntervalSince1970
        if database.isPostgres {
            bulkAssets = PostgresCopyRows(table: "assets", columns: ["id"] + Self.assetColumns)
            bulkResources = PostgresCopyRows(table: "resources", columns: Self.resourceColumns)
        }
    }

    /// The columns of ``WriterStatements/SQL/insertAsset``, in its order.
    static let assetColumns = [
        "uuid", "media_type", "media_subtypes", "playback_style", "creation_date", "creation_date_source", "added_date",
        "modification_date", "pixel_width", "pixel_height", "duration", "latitude", "longitude", "altitude",
        "is_favorite", "is_hidden", "content_identifier", "creation_time_zone_offset", "creation_date_is_floating",
        "title", "caption", "keywords", "rating", "pairing_key", "awaits_partner", "camera_make", "camera_model",
        "capture_details",
    ]
    /// The columns of ``WriterStatements/SQL/insertResource``, in its order.
    static let resourceColumns = [
        "asset_id", "type", "sha256", "byte_count", "mime_type", "uniform_type_identifier", "original_filename", "path",
    ]

    /// Inserts the new assets and resources gathered on PostgreSQL (one COPY each); call after the creations and
    /// before anything reads those rows. Nothing on SQLite.
    private func flushCreations() throws {
        try bulkAssets?.flush(into: database)
        try bulkResources?.flush(into: database)
    }

    /// A row id for a new asset on PostgreSQL, from those ``createAll(_:)`` reserved for the block.
    private func nextAssetID() throws -> Int64 {
        guard let id = reservedAssetIDs.popLast() else {
            throw PhotosError(.internalError, title: "No row id", message: "The assets sequence returned no value.")
        }
        return id
    }

    /// Creates the block's assets (in request order) and inserts them. On PostgreSQL the row ids of the block's new
    /// assets are reserved from the table's sequence in one round trip (unused ones are gaps, as a rolled-back insert
    /// leaves), and the rows go in one COPY per table.
    func createAll(_ requests: [AssetCreationRequest]) throws {
        if database.isPostgres {
            let count = requests.count { request in
                if case .new = request.state.resolution { true } else { false }
            }
            if count > 0 {
                reservedAssetIDs = try database.rows(
                    "SELECT nextval(pg_get_serial_sequence('assets', 'id')) FROM generate_series(1, ?)",
                    [.integer(Int64(count))]
                ) { $0.int64(0) }.reversed()
            }
        }
        for request in requests { try create(request) }
        try flushCreations()
    }

    /// The fencing check of a block that consumes journal entries (``JournalChangeRequest/consumeEntries(_:kind:)``),
    /// first thing in its transaction: every entry must still be there with its kind. On PostgreSQL the rows are
    /// locked until the commit, so a node taking them over waits for this one and then finds them gone.
    func holdConsumedJournalEntries(_ operations: [ChangeOperation]) throws {
        var wanted: [String: [Int64]] = [:]
        for case .consumeJournalEntries(let ids, let kind) in operations { wanted[kind, default: []] += ids }
        for (kind, ids) in wanted where !ids.isEmpty {
            let sql =
                "SELECT id FROM journal WHERE kind = ? AND id IN (SELECT CAST(value AS BIGINT) FROM json_each(?))"
                + (database.isPostgres ? " FOR UPDATE" : "")
            let held = Set(
                try database.rows(sql, [.text(kind), .text("[" + ids.map(String.init).joined(separator: ",") + "]")]) {
                    $0.int64(0)
                })
            let gone = ids.filter { !held.contains($0) }
            if !gone.isEmpty { throw PhotosError.journalEntriesGone(gone, kind: kind) }
        }
    }

    // MARK: Creations

    /// Inserts the asset of a creation request (or resolves it to the existing one).
    private func create(_ request: AssetCreationRequest) throws {
        let state = request.state
        switch state.resolution {
        case .sameAs(let earlier):
            guard let rowID = earlier.state.rowID else {
                throw PhotosError(.internalError, title: "Creation order", message: "A duplicate was applied first.")
            }
            request.creation.withLock { $0.rowID = rowID }
        case .existing(let rowID, let uuid, let isDeleted):
            if isDeleted, try restore(rowID: rowID, uuid: uuid) { restoredRequests.insert(ObjectIdentifier(request)) }
            if let repair = state.repair {
                // The request's file replaced a missing or damaged stored original: whatever verify recorded is gone.
                try database.run("UPDATE resources SET damage = NULL WHERE id = ?", [.integer(repair.resourceID)])
                changes.note(asset: uuid, .updated)
            }
            request.creation.withLock { $0.rowID = rowID }
        case .new:
            try insertAsset(request, state)
        case .addition:
            break  // additions are applied after the creations (``addResources(_:)``)
        }
    }

    private func insertAsset(_ request: AssetCreationRequest, _ state: AssetCreationRequest.CreationState) throws {
        guard
            let primary = state.resources.first(where: { $0.type == .photo })
                ?? state.resources.first(where: { $0.type == .video })
        else {
            throw PhotosError(
                .invalidResource, title: "Nothing to store",
                message: "A creation request has no .photo or .video resource; call addResource(with:fileURL:options:) "
                    + "with one before performChanges returns.")
        }
        let properties = request.properties.withLock { $0 }
        try ChangeApplier.validate(properties)
        let isPhoto = primary.type == .photo
        if let misfit = state.resources.first(where: { $0.type.requiredPrimary.map { $0 != primary.type } ?? false }) {
            throw PhotosError(
                .invalidResource, title: "Resource without its primary",
                message:
                    "A .\(misfit.type.name) resource ('\(misfit.sourcePath)') needs a .\(misfit.type.requiredPrimary!.name) "
                    + "resource in the same request.")
        }
        let (mediaType, subtypes, style) = ChangeApplier.kind(
            primary: primary.type, types: state.resources.map(\.type), isAnimated: primary.mimeType == "image/gif",
            subtypes: state.isMotionPhoto && isPhoto ? [.photoMotion] : [])
        let dateGiven = properties.changed.contains(.creationDate)
        let creationDate = dateGiven ? properties.creationDate : primary.modificationDate
        let creationDateSource =
            properties.changed.contains(.creationDateSource)
            ? properties.creationDateSource : (dateGiven ? nil : "fileModificationDate")

        let values: [SQLValue] = [
            .text(request.uuid), .integer(Int64(mediaType.rawValue)), .integer(Int64(subtypes.rawValue)),
            .integer(Int64(style.rawValue)), .optional(creationDate?.timeIntervalSince1970), .optional(creationDateSource),
            .real(now), .real(now), .integer(Int64(properties.pixelWidth)), .integer(Int64(properties.pixelHeight)),
            .real(properties.duration), .optional(properties.location?.latitude),
            .optional(properties.location?.longitude), .optional(properties.location?.altitude),
            .bool(properties.isFavorite), .bool(properties.isHidden), .optional(properties.contentIdentifier),
            dateGiven ? (properties.creationTimeZoneOffset.map { .integer(Int64($0)) } ?? .null) : .null,
            .bool(dateGiven && properties.isCreationDateFloating), .optional(properties.title),
            .optional(properties.caption), .optional(AssetQuery.encodeKeywords(properties.keywords)),
            properties.rating.map { .integer(Int64($0)) } ?? .null, .optional(properties.pairingKey),
            .bool(properties.awaitsPartner), .optional(properties.cameraMake), .optional(properties.cameraModel),
            .optional(properties.captureDetailsJSON),
        ]
        let rowID: Int64
        if bulkAssets != nil {
            // PostgreSQL: gathered for the block's one insert, under a reserved id (``flushCreations()``).
            rowID = try nextAssetID()
            bulkAssets?.append([.integer(rowID)] + values)
            for resource in state.resources where !resource.isSkipped {
                bulkResources?.append(try resourceValues(resource, of: rowID))
            }
            request.creation.withLock { $0.rowID = rowID }
            changes.note(asset: request.uuid, .inserted)
            return
        }
        let insert = writer.statements.insertAsset
        try insert.bind(values)
        // The row's id comes back with the insert (RETURNING).
        guard try insert.step() else {
            insert.reset()
            throw PhotosError(.internalError, title: "Insert returned no row", message: "An asset row was not made.")
        }
        rowID = insert.int64(0)
        insert.reset()

        for resource in state.resources where !resource.isSkipped { try insertResource(resource, of: rowID) }
        request.creation.withLock { $0.rowID = rowID }
        changes.note(asset: request.uuid, .inserted)
    }

    /// What an asset's files make it: its media type from the primary file, and the subtypes and playback style its
    /// other files give it (a `.pairedVideo` makes a Live Photo, an `.alternatePhoto` a RAW+JPEG pair, a
    /// `.fullSizePhoto`/`.fullSizeVideo` an edited asset), keeping the other bits of `subtypes` (a motion photo's).
    static func kind(
        primary: AssetResourceType, types: [AssetResourceType], isAnimated: Bool, subtypes: AssetMediaSubtypes
    ) -> (AssetMediaType, AssetMediaSubtypes, AssetPlaybackStyle) {
        var subtypes = subtypes
        if types.contains(.alternatePhoto) { subtypes.insert(.photoRAWAndJPEG) }
        if types.contains(.fullSizePhoto) || types.contains(.fullSizeVideo) { subtypes.insert(.edited) }
        let style: AssetPlaybackStyle
        if primary == .video {
            style = .video
            subtypes.remove(.photoLive)
        } else if isAnimated {
            style = .imageAnimated
        } else if types.contains(.pairedVideo) {
            style = .livePhoto
            subtypes.insert(.photoLive)
        } else {
            style = .image
        }
        return (primary == .photo ? .image : .video, subtypes, style)
    }

    /// Inserts the row of a placed resource of the asset `rowID`.
    func insertResource(_ resource: AssetCreationRequest.Resource, of rowID: Int64) throws {
        let insert = writer.statements.insertResource
        try insert.bind(try resourceValues(resource, of: rowID))
        _ = try insert.step()
        insert.reset()
    }

    /// The values of a placed resource's row, in ``resourceColumns``' order.
    private func resourceValues(_ resource: AssetCreationRequest.Resource, of rowID: Int64) throws -> [SQLValue] {
        guard let destination = resource.destination else {
            throw PhotosError(.internalError, title: "Unplaced resource", message: resource.sourcePath)
        }
        return [
            .integer(rowID), .integer(Int64(resource.type.rawValue)), .text(resource.sha256),
            .integer(resource.byteCount), .optional(resource.mimeType), .optional(resource.uniformTypeIdentifier),
            .text(resource.originalFilename), .text(destination),
        ]
    }

    /// Inserts the album of a creation request.
    ///
    /// A key given to the new album moves here from the album that holds it. A find-or-create request instead
    /// resolves to the album that holds its key (another node or process made the same folder's album since the
    /// caller looked, and committed first), as a duplicate asset resolves to the stored one: no second album is made.
    func createCollection(_ request: AssetCollectionChangeRequest) throws {
        guard let uuid = request.uuid else { return }
        if let key = request.currentBindingKey {
            if request.joinsBoundAlbum {
                // Never takes the key from another album: one that holds it now, or commits it before this insert
                // (below), is the one meant.
                if try redirect(uuid, request, toHolderOf: key) { return }
            } else {
                try database.run("UPDATE albums SET binding_key = NULL WHERE binding_key = ?", [.text(key)])
            }
        }
        // On PostgreSQL, an album of the same key inserted by a transaction still running is invisible to the UPDATE
        // above; the unique index waits for it, and the insert then does nothing: that album is the folder's too.
        try database.run(
            """
            INSERT INTO albums(uuid, title, creation_date, binding_key, summary) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (binding_key) WHERE binding_key IS NOT NULL DO NOTHING
            """,
            [
                .text(uuid), .text(request.currentTitle), .real(now), .optional(request.currentBindingKey),
                .optional(request.currentSummary),
            ])
        if database.changes == 0, let key = request.currentBindingKey, try redirect(uuid, request, toHolderOf: key) {
            return
        }
        let rowID = try database.lastInsertRowID
        createdAlbumRows[uuid] = rowID
        albums[rowID] = (0, 0)
        changes.note(collection: uuid, .inserted)
    }

    /// Resolves the album request `uuid` to the album that holds `key`, if one does; whether it did.
    private func redirect(_ uuid: String, _ request: AssetCollectionChangeRequest, toHolderOf key: String) throws -> Bool {
        guard
            let (row, bound) = try database.firstRow(
                "SELECT id, uuid FROM albums WHERE binding_key = ?", [.text(key)], row: { ($0.int64(0), $0.string(1)) })
        else { return false }
        createdAlbumRows[uuid] = row
        albumRedirects[uuid] = bound
        request.placeholderForCreatedAssetCollection?.resolve(to: LocalIdentifier.collection(uuid: bound))
        return true
    }

    // MARK: Operations

    func apply(_ operation: ChangeOperation) throws {
        switch operation {
        case .updateAsset(let request):
            try update(request)
        case .deleteAssets(let targets):
            for target in targets {
                let (rowID, uuid) = try resolve(target)
                let (hidden, deleted) = try assetState(rowID)
                guard !deleted else { continue }
                try database.run(
                    "UPDATE assets SET deleted_date = ?, modification_date = ? WHERE id = ?",
                    [.real(now), .real(now), .integer(rowID)])
                visibilityChanged.insert(rowID)
                if !hidden { try adjustAlbumCounts(containing: rowID, by: -1) }
                changes.note(asset: uuid, .deleted)
            }
        case .restoreAssets(let targets):
            for target in targets {
                let (rowID, uuid) = try resolve(target)
                _ = try restore(rowID: rowID, uuid: uuid)
            }
        case .purgeAssets(let targets):
            for target in targets {
                let (rowID, uuid) = try resolve(target)
                try purge(rowID: rowID, uuid: uuid)
            }
        case .purgeDeletedAssets(let targets, let cutoff):
            for target in targets {
                guard let (rowID, uuid) = try? resolve(target) else { continue }  // purged meanwhile
                let deletedDate = try database.rows(
                    "SELECT deleted_date FROM assets WHERE id = ?", [.integer(rowID)]
                ) { $0.isNull(0) ? nil : $0.double(0) }.first ?? nil
                guard let deletedDate, deletedDate < (cutoff ?? .infinity) else { continue }
                try purge(rowID: rowID, uuid: uuid)
            }
        case .describeCollection(let request):
            let (rowID, uuid) = try resolve(request.target)
            try database.run(
                "UPDATE albums SET summary = ? WHERE id = ?", [.optional(request.currentSummary), .integer(rowID)])
            changes.note(collection: uuid, .updated)
        case .renameCollection(let request):
            let (rowID, uuid) = try resolve(request.target)
            try database.run(
                "UPDATE albums SET title = ? WHERE id = ?", [.text(request.currentTitle), .integer(rowID)])
            changes.note(collection: uuid, .updated)
        case .addAssets(let request, let targets):
            let (album, albumUUID) = try resolve(request.target)
            var state = try albumState(album)
            if let added = try addNewAssetsInBulk(targets, to: album, state: &state) {
                albums[album] = state
                if added > 0 { membershipChanged(albumUUID) }
                return
            }
            var changed = false
            let insert = writer.statements.insertMembership
            for target in targets {
                let (asset, _) = try resolve(target)
                try insert.bind(album, at: 1)
                try insert.bind(asset, at: 2)
                try insert.bind(state.nextPosition, at: 3)
                _ = try insert.step()
                insert.reset()
                if database.changes == 1 {
                    state.nextPosition += 1
                    if try isVisible(asset, target: target) { state.countDelta += 1 }
                    changed = true
                }
            }
            albums[album] = state
            if changed { membershipChanged(albumUUID) }
        case .insertAssets(let request, let targets, let indexes):
            guard indexes.count == targets.count else {
                throw PhotosError.invalidParameter(
                    "insertAssets got \(targets.count) assets but \(indexes.count) indexes; give one index per asset.")
            }
            let (album, albumUUID) = try resolve(request.target)
            let rows = try targets.map { try resolve($0).0 }
            try reorder(album: album, albumUUID: albumUUID) { visible in
                let moving = Set(rows)
                visible.removeAll { moving.contains($0) }
                for (row, index) in zip(rows, indexes.sorted()) {
                    guard index <= visible.count else {
                        throw PhotosError.invalidParameter(
                            "Insert index \(index) is beyond the end of the album (\(visible.count) assets).")
                    }
                    visible.insert(row, at: index)
                }
            }
        case .removeAssets(let request, let targets):
            let (album, albumUUID) = try resolve(request.target)
            var state = try albumState(album)
            var changed = false
            for target in targets {
                let (asset, _) = try resolve(target)
                try database.run(
                    "DELETE FROM album_assets WHERE album_id = ? AND asset_id = ?", [.integer(album), .integer(asset)])
                if database.changes == 1 {
                    if try isVisible(asset) { state.countDelta -= 1 }
                    changed = true
                }
            }
            albums[album] = state
            if changed { membershipChanged(albumUUID) }
        case .removeAssetsAt(let request, let indexes):
            let (album, albumUUID) = try resolve(request.target)
            try reorder(album: album, albumUUID: albumUUID) { visible in
                if let last = indexes.last, last >= visible.count {
                    throw PhotosError.invalidParameter(
                        "Remove index \(last) is beyond the end of the album (\(visible.count) assets).")
                }
                for index in indexes.reversed() { visible.remove(at: index) }
            }
        case .moveAssets(let request, let indexes, let destination):
            let (album, albumUUID) = try resolve(request.target)
            try reorder(album: album, albumUUID: albumUUID) { visible in
                if let last = indexes.last, last >= visible.count {
                    throw PhotosError.invalidParameter(
                        "Move index \(last) is beyond the end of the album (\(visible.count) assets).")
                }
                let moving = indexes.map { visible[$0] }
                for index in indexes.reversed() { visible.remove(at: index) }
                guard destination >= 0, destination <= visible.count else {
                    throw PhotosError.invalidParameter(
                        "Move destination \(destination) is outside the album (0…\(visible.count)).")
                }
                visible.insert(contentsOf: moving, at: destination)
            }
        case .deleteCollections(let targets):
            for target in targets {
                let (album, uuid) = try resolve(target)
                try noteParentFolderChanged(albumRow: album)
                try database.run("DELETE FROM albums WHERE id = ?", [.integer(album)])
                albums[album] = nil
                changes.note(collection: uuid, .deleted)
            }
        case .bindCollectionKey, .renameCollectionList, .bindCollectionListKey, .addChildCollections,
            .removeChildCollections, .deleteCollectionLists:
            try applyFolderOperation(operation)
        case .removeJournalEntries(let ids), .consumeJournalEntries(let ids, _):
            try writer.deleteJournalRows(ids)
        case .appendFileRecords(let records):
            _ = try writer.insertFileRecords(records)
        }
    }

    /// Writes the album caches back (append positions, visible counts).
    func flushAlbums() throws {
        let update = try database.cachedStatement(
            "UPDATE albums SET next_position = ?, asset_count = asset_count + ? WHERE id = ?")
        for (album, state) in albums {
            try update.bind(state.nextPosition, at: 1)
            try update.bind(state.countDelta, at: 2)
            try update.bind(album, at: 3)
            _ = try update.step()
            update.reset()
        }
        albums.removeAll()
    }

    // MARK: Helpers

    private func update(_ request: AssetChangeRequest) throws {
        guard let target = request.target else { return }
        let properties = request.properties.withLock { $0 }
        guard !properties.changed.isEmpty else { return }
        try ChangeApplier.validate(properties)
        let (rowID, uuid) = try resolve(target)
        var sql = SQLBuilder()
        sql.append("UPDATE assets SET modification_date = ")
        sql.bind(.real(now))
        let zoneOffset: SQLValue = properties.creationTimeZoneOffset.map { .integer(Int64($0)) } ?? .null
        // A fixed field order keeps the statement text (and the cached statement) stable.
        let fields: [(AssetChangeRequest.Properties.Field, String, SQLValue)] = [
            (.creationDate, "creation_date", .optional(properties.creationDate?.timeIntervalSince1970)),
            (.creationDateSource, "creation_date_source", .optional(properties.creationDateSource)),
            (.location, "latitude", .optional(properties.location?.latitude)),
            (.location, "longitude", .optional(properties.location?.longitude)),
            (.location, "altitude", .optional(properties.location?.altitude)),
            (.isFavorite, "is_favorite", .bool(properties.isFavorite)),
            (.pixelWidth, "pixel_width", .integer(Int64(properties.pixelWidth))),
            (.pixelHeight, "pixel_height", .integer(Int64(properties.pixelHeight))),
            (.duration, "duration", .real(properties.duration)),
            (.contentIdentifier, "content_identifier", .optional(properties.contentIdentifier)),
            (.creationTimeZoneOffset, "creation_time_zone_offset", zoneOffset),
            (.isCreationDateFloating, "creation_date_is_floating", .bool(properties.isCreationDateFloating)),
            (.title, "title", .optional(properties.title)),
            (.caption, "caption", .optional(properties.caption)),
            (.keywords, "keywords", .optional(AssetQuery.encodeKeywords(properties.keywords))),
            (.rating, "rating", properties.rating.map { .integer(Int64($0)) } ?? .null),
            (.pairingKey, "pairing_key", .optional(properties.pairingKey)),
            (.awaitsPartner, "awaits_partner", .bool(properties.awaitsPartner)),
            (.cameraMake, "camera_make", .optional(properties.cameraMake)),
            (.cameraModel, "camera_model", .optional(properties.cameraModel)),
            (.captureDetails, "capture_details", .optional(properties.captureDetailsJSON)),
        ]
        for (field, column, value) in fields where properties.changed.contains(field) {
            sql.append(", \(column) = ")
            sql.bind(value)
        }
        let zoneFields: [AssetChangeRequest.Properties.Field] = [
            .creationDate, .creationTimeZoneOffset, .isCreationDateFloating,
        ]
        if zoneFields.contains(where: { properties.changed.contains($0) }) {
            sql.append(", creation_zone_pending = 0")
        }
        if properties.changed.contains(.captureDetails) { sql.append(", details_pending = 0") }
        if properties.changed.contains(.isHidden) {
            let (hidden, deleted) = try assetState(rowID)
            if hidden != properties.isHidden {
                sql.append(", is_hidden = ")
                sql.bind(.bool(properties.isHidden))
                if !deleted { try adjustAlbumCounts(containing: rowID, by: properties.isHidden ? -1 : 1) }
                visibilityChanged.insert(rowID)
            }
        }
        sql.append(" WHERE id = ")
        sql.bind(.integer(rowID))
        try database.run(sql.sql, sql.values)
        changes.note(asset: uuid, .updated)
    }

    /// Brings an asset back from Recently Deleted; returns whether it was deleted.
    private func restore(rowID: Int64, uuid: String) throws -> Bool {
        let (hidden, deleted) = try assetState(rowID)
        guard deleted else { return false }
        try database.run(
            "UPDATE assets SET deleted_date = NULL, modification_date = ? WHERE id = ?", [.real(now), .integer(rowID)])
        visibilityChanged.insert(rowID)
        if !hidden { try adjustAlbumCounts(containing: rowID, by: 1) }
        changes.note(asset: uuid, .inserted)
        return true
    }

    private static func validate(_ properties: AssetChangeRequest.Properties) throws {
        if let location = properties.location, !location.isValid {
            throw PhotosError.invalidParameter(
                "Location \(location.latitude), \(location.longitude) is outside −90…90 / −180…180 or not finite.")
        }
        if properties.pixelWidth < 0 || properties.pixelHeight < 0 {
            throw PhotosError.invalidParameter("Pixel sizes cannot be negative.")
        }
        if !(properties.duration >= 0) || !properties.duration.isFinite {
            throw PhotosError.invalidParameter("A duration must be a finite number of seconds ≥ 0.")
        }
        if let date = properties.creationDate, !date.timeIntervalSince1970.isFinite {
            throw PhotosError.invalidParameter("The creation date is not a finite date.")
        }
        if let rating = properties.rating, !(-1...5).contains(rating) {
            throw PhotosError.invalidParameter("A rating is −1 (rejected) to 5, not \(rating).")
        }
        if let offset = properties.creationTimeZoneOffset, abs(offset) > 18 * 3600 {
            throw PhotosError.invalidParameter(
                "A time-zone offset of \(offset) seconds is outside ±18 hours; give seconds east of UTC.")
        }
    }

    /// The row and UUID of an asset named in a change.
    private func resolve(_ target: AssetTarget) throws -> (Int64, String) {
        switch target {
        case .created(let request):
            let state = request.state
            guard let rowID = state.rowID else {
                throw PhotosError(
                    .internalError, title: "Creation order", message: "An asset was used before it existed.")
            }
            switch state.resolution {
            case .new: return (rowID, request.uuid)
            case .existing(_, let uuid, _): return (rowID, uuid)
            case .sameAs(let earlier): return (rowID, earlier.uuid)
            case .addition: return (rowID, request.uuid)
            }
        case .existing(let uuid, let identifier):
            let lookup = writer.statements.assetByUUID
            defer { lookup.reset() }
            try lookup.bind(uuid, at: 1)
            guard try lookup.step() else {
                throw PhotosError.notFound("Asset", identifier: identifier)
            }
            return (lookup.int64(0), uuid)
        }
    }

    /// The row and UUID of an album named in a change.
    func resolve(_ target: CollectionTarget) throws -> (Int64, String) {
        switch target {
        case .created(let request):
            guard let uuid = request.uuid, let rowID = createdAlbumRows[uuid] else {
                throw PhotosError(
                    .internalError, title: "Creation order", message: "An album was used before it existed.")
            }
            return (rowID, albumRedirects[uuid] ?? uuid)
        case .existing(let uuid, let identifier):
            guard let rowID = try database.int64("SELECT id FROM albums WHERE uuid = ?", [.text(uuid)]) else {
                throw PhotosError(
                    .identifierNotFound, title: "Album not found",
                    message: "The album '\(identifier)' does not exist (any more); fetch or create it again.")
            }
            return (rowID, uuid)
        }
    }

    /// Removes an asset's row (memberships, resources and derivatives follow by foreign key); its files after the commit.
    private func purge(rowID: Int64, uuid: String) throws {
        let (hidden, deleted) = try assetState(rowID)
        if !hidden && !deleted { try adjustAlbumCounts(containing: rowID, by: -1) }
        purgedPaths += try database.rows("SELECT path FROM resources WHERE asset_id = ?", [.integer(rowID)]) {
            $0.string(0)
        }
        purgedPaths += try database.rows(
            "SELECT path FROM derivatives WHERE asset_id = ? AND path IS NOT NULL", [.integer(rowID)]
        ) { $0.string(0) }
        try database.run("DELETE FROM assets WHERE id = ?", [.integer(rowID)])
        visibilityChanged.insert(rowID)
        changes.note(asset: uuid, .deleted)
    }

    private func assetState(_ rowID: Int64) throws -> (hidden: Bool, deleted: Bool) {
        let query = writer.statements.assetState
        defer { query.reset() }
        try query.bind(rowID, at: 1)
        guard try query.step() else { return (false, true) }
        return (query.bool(0), query.bool(1))
    }

    /// PostgreSQL: adds assets this block created to `album` with one COPY (the ingest's case: a block's new files into
    /// their folder's album) and returns how many were added; nil, with nothing done, when any target is not such an
    /// asset (then each is added on its own). Positions follow on from `state`. No other session can have a membership
    /// of these assets: their rows are this transaction's own, under ids reserved from the sequence, until it commits.
    private func addNewAssetsInBulk(
        _ targets: [AssetTarget], to album: Int64, state: inout (nextPosition: Int64, countDelta: Int64)
    ) throws -> Int? {
        guard database.isPostgres, targets.count > 1 else { return nil }
        var members: [(rowID: Int64, visible: Bool)] = []
        var seen = Set<Int64>()
        for target in targets {
            guard case .created(let request) = target, case .new = request.state.resolution,
                let rowID = request.state.rowID, !visibilityChanged.contains(rowID),
                !bulkMembers.contains([album, rowID]), seen.insert(rowID).inserted
            else { return nil }
            members.append((rowID, !request.isHidden))
        }
        var rows = PostgresCopyRows(table: "album_assets", columns: ["album_id", "asset_id", "position"])
        for member in members {
            rows.append([.integer(album), .integer(member.rowID), .integer(state.nextPosition)])
            state.nextPosition += 1
            bulkMembers.insert([album, member.rowID])
        }
        try rows.flush(into: database)
        state.countDelta += Int64(members.filter(\.visible).count)
        return members.count
    }

    private func isVisible(_ rowID: Int64) throws -> Bool {
        let (hidden, deleted) = try assetState(rowID)
        return !hidden && !deleted
    }

    /// Visibility without a query for assets this block created: they are not deleted, and hidden only if the request
    /// said so, unless an operation of this block changed that (then the row is asked).
    private func isVisible(_ rowID: Int64, target: AssetTarget) throws -> Bool {
        if case .created(let request) = target, case .new = request.state.resolution,
            !visibilityChanged.contains(rowID)
        {
            return !request.isHidden
        }
        return try isVisible(rowID)
    }

    private func adjustAlbumCounts(containing asset: Int64, by delta: Int64) throws {
        try database.run(
            "UPDATE albums SET asset_count = asset_count + ? WHERE id IN (SELECT album_id FROM album_assets WHERE asset_id = ?)",
            [.integer(delta), .integer(asset)])
    }

    private func albumState(_ album: Int64) throws -> (nextPosition: Int64, countDelta: Int64) {
        if let state = albums[album] { return state }
        let next = try database.int64("SELECT next_position FROM albums WHERE id = ?", [.integer(album)]) ?? 0
        return (next, 0)
    }

    private func membershipChanged(_ albumUUID: String) {
        changes.membershipsChanged = true
        changes.note(collection: albumUUID, .updated)
    }

    /// Rewrites an album's order after `transform` changed the list of its visible assets (hidden and deleted members
    /// keep their place before the visible asset that followed them).
    private func reorder(album: Int64, albumUUID: String, _ transform: (inout [Int64]) throws -> Void) throws {
        let members = try database.rows(
            """
            SELECT m.asset_id, m.position, a.is_hidden = 0 AND a.deleted_date IS NULL
            FROM album_assets m JOIN assets a ON a.id = m.asset_id WHERE m.album_id = ? ORDER BY m.position, m.asset_id
            """, [.integer(album)]
        ) { (id: $0.int64(0), position: $0.int64(1), visible: $0.bool(2)) }
        var visible = members.filter(\.visible).map(\.id)
        let oldVisible = visible
        try transform(&visible)
        guard visible != oldVisible else { return }
        let remaining = Set(visible)
        // Invisible members ride along with the next remaining visible member (or stay at the end).
        var anchored: [Int64: [Int64]] = [:]
        var pending: [Int64] = []
        for member in members {
            if remaining.contains(member.id) {
                if !pending.isEmpty {
                    anchored[member.id, default: []] += pending
                    pending.removeAll()
                }
            } else if !member.visible {
                pending.append(member.id)
            }
        }
        var final: [Int64] = []
        final.reserveCapacity(members.count + visible.count)
        for id in visible {
            final += anchored[id] ?? []
            final.append(id)
        }
        final += pending
        var state = try albumState(album)
        let old = Dictionary(
            members.map { ($0.id, ($0.position, $0.visible)) }, uniquingKeysWith: { first, _ in first })
        let kept = Set(final)
        for member in members where !kept.contains(member.id) {
            try database.run(
                "DELETE FROM album_assets WHERE album_id = ? AND asset_id = ?", [.integer(album), .integer(member.id)])
            if member.visible { state.countDelta -= 1 }
        }
        for (position, id) in final.enumerated() {
            if let (oldPosition, _) = old[id] {
                if oldPosition != Int64(position) {
                    try database.run(
                        "UPDATE album_assets SET position = ? WHERE album_id = ? AND asset_id = ?",
                        [.integer(Int64(position)), .integer(album), .integer(id)])
                }
            } else {
                try database.run(
                    "INSERT INTO album_assets(album_id, asset_id, position) VALUES (?, ?, ?)",
                    [.integer(album), .integer(id), .integer(Int64(position))])
                if try isVisible(id) { state.countDelta += 1 }
            }
        }
        state.nextPosition = Int64(final.count)
        albums[album] = state
        membershipChanged(albumUUID)
    }
}
