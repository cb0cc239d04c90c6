import FoundationEssentials

extension ChangeApplier {
    /// Adds the files of an ``AssetChangeRequest/addResource(with:file:options:primaryBecomes:)`` request to their
    /// stored asset: a new primary file demotes the current one, every file is checked against the asset's other
    /// files, and the asset's media type, subtypes and playback style follow its files.
    func addResources(_ request: AssetCreationRequest) throws {
        let state = request.state
        let added = state.resources.filter { !$0.isSkipped }
        guard !added.isEmpty else { return }
        let found = try database.rows(
            "SELECT id, media_subtypes, playback_style FROM assets WHERE uuid = ?", [.text(request.uuid)]
        ) { ($0.int64(0), $0.int(1), $0.int(2)) }
        guard let (rowID, subtypeBits, styleValue) = found.first else {
            throw PhotosError(
                .invalidParameter, title: "Asset not found",
                message: "Cannot add '\(added[0].sourcePath)' to asset \(request.uuid): it is not in the library "
                    + "(purged meanwhile?).")
        }
        var types: [AssetResourceType] = try database.rows(
            "SELECT type FROM resources WHERE asset_id = ?", [.integer(rowID)]
        ) { AssetResourceType(rawValue: $0.int(0)) }.compactMap { $0 }
        guard var primary = types.first(where: \.isPrimary) else {
            throw PhotosError(
                .internalError, title: "Asset without its main file",
                message: "Asset \(request.uuid) has no .photo or .video resource; run photodrop verify.")
        }
        if let newPrimary = added.first(where: { $0.type.isPrimary }) {
            guard let demoted = state.demotedPrimary, demoted.requiredPrimary.map({ $0 == newPrimary.type }) ?? true,
                !types.contains(demoted) || demoted == .sidecar
            else {
                throw PhotosError.invalidParameter(
                    "'\(newPrimary.sourcePath)' cannot become the .\(newPrimary.type.name) of asset \(request.uuid): its "
                        + "current .\(primary.name) cannot become a .\(state.demotedPrimary?.name ?? "nil") resource.")
            }
            try database.run(
                "UPDATE resources SET type = ? WHERE asset_id = ? AND type = ?",
                [.integer(Int64(demoted.rawValue)), .integer(rowID), .integer(Int64(primary.rawValue))])
            types.removeAll { $0 == primary }
            types.append(demoted)
            primary = newPrimary.type
            types.append(primary)
        }
        for resource in added where !resource.type.isPrimary {
            if resource.type != .sidecar && types.contains(resource.type) {
                throw PhotosError.invalidParameter(
                    "Asset \(request.uuid) already has a .\(resource.type.name) resource; '\(resource.sourcePath)' "
                        + "cannot be a second one.")
            }
            if let required = resource.type.requiredPrimary, required != primary {
                throw PhotosError.invalidParameter(
                    "A .\(resource.type.name) resource ('\(resource.sourcePath)') goes with a .\(required.name), and "
                        + "asset \(request.uuid) is a .\(primary.name).")
            }
            types.append(resource.type)
        }
        for resource in added { try insertResource(resource, of: rowID) }
        // A new primary file says itself whether it is animated; else the stored asset's style does.
        let isAnimated =
            added.first(where: { $0.type.isPrimary }).map { $0.mimeType == "image/gif" }
            ?? (AssetPlaybackStyle(rawValue: styleValue) == .imageAnimated)
        let (mediaType, subtypes, style) = ChangeApplier.kind(
            primary: primary, types: types, isAnimated: isAnimated,
            subtypes: AssetMediaSubtypes(rawValue: subtypeBits))
        try database.run(
            """
            UPDATE assets SET media_type = ?, media_subtypes = ?, playback_style = ?, modification_date = ?,
                awaits_partner = awaits_partner & ?
            WHERE id = ?
            """,
            [
                .integer(Int64(mediaType.rawValue)), .integer(Int64(subtypes.rawValue)),
                .integer(Int64(style.rawValue)), .real(now),
                .bool(!(types.contains(.pairedVideo) || types.contains(.alternatePhoto))), .integer(rowID),
            ])
        changes.note(asset: request.uuid, .updated)
    }
}
