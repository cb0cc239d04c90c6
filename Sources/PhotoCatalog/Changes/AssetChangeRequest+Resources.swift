import PhotodropSystem

extension AssetChangeRequest {
    /// Adds a file to the stored asset this request changes (photodrop: PhotoKit adds resources only when it creates
    /// an asset, or through content editing). Made for files that belong to an asset but arrive after it was stored:
    /// a Live Photo's movie, the RAW of a RAW+JPEG pair, an XMP sidecar, an iPhone's edited rendition or adjustments.
    ///
    /// The file is placed in the library like a creation request's (moved or copied as `options` say, crash-safe, in
    /// the same transaction as the rest of the block), and the asset's kind follows its files: a `.pairedVideo` makes
    /// it a Live Photo, an `.alternatePhoto` a RAW+JPEG pair, a `.fullSizePhoto` or `.fullSizeVideo` an edited asset.
    /// The change history reports the asset as updated.
    ///
    /// - Parameters:
    ///   - type: the new file's role. A `.photo` (or `.video`) replaces the asset's primary file, which then takes the
    ///     type `primaryBecomes`: a Live Photo whose movie was stored first gets its photo
    ///     (`.photo`, `primaryBecomes: .pairedVideo`); a RAW stored alone gets its JPEG (`.photo`,
    ///     `primaryBecomes: .alternatePhoto`).
    ///   - file: the file to add, an open location (its folder held open, so that a link swapped in cannot redirect it).
    ///   - options: how it is placed (moved or copied) and its MIME type and extension; nil for the defaults.
    ///   - primaryBecomes: required for a `.photo` or `.video` file, ignored otherwise.
    ///
    /// A file whose content the library already stores (as any asset's resource) is not added again: it is listed in
    /// ``alreadyStoredAddedPaths`` after the block, and the asset is left as it was for it. A second resource of a
    /// type the asset has (sidecars excepted), or a secondary type that does not go with the asset's primary type,
    /// fails the block with a ``PhotosError`` naming the file.
    public func addResource(
        with type: AssetResourceType, file: FileLocation, options: AssetResourceCreationOptions?,
        primaryBecomes: AssetResourceType?
    ) {
        guard let context = ChangeContext.active(serial: blockSerial) else { return }
        guard case .existing(let uuid, _)? = target else {
            context.record(
                PhotosError.invalidParameter(
                    "addResource(with:file:options:primaryBecomes:) adds to a stored asset; a creation request takes "
                        + "its files with addResource(with:file:options:)."))
            return
        }
        let request = addition.withLock { current in
            if let current { return current }
            let made = AssetCreationRequest.makeAddition(toAssetWithUUID: uuid, context)
            current = made
            return made
        }
        request.addToStoredAsset(type: type, file: file, options: options, primaryBecomes: primaryBecomes, context)
    }

    /// The source paths of files given to ``addResource(with:file:options:primaryBecomes:)`` that the library
    /// already stored and therefore did not add. Valid once `performChanges` returned.
    public var alreadyStoredAddedPaths: [String] {
        guard let request = addition.withLock({ $0 }) else { return [] }
        return request.state.resources.filter(\.isSkipped).map(\.sourcePath)
    }
}
