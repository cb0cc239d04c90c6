import FoundationEssentials
import PhotodropSystem
import Synchronization

/// Creates an asset from files (`PHAssetCreationRequest`): make it with ``forAsset()``, add a `.photo` or `.video`
/// resource (and for a Live Photo a `.pairedVideo`), set properties, and use ``placeholderForCreatedAsset`` to put the
/// new asset into an album in the same block.
///
/// Content already in the library (same SHA-256 as a stored original, or as an earlier request of the same block) is
/// never stored twice: the request resolves to the existing asset, its placeholder carries that asset's identifier,
/// album additions go there, ``isDuplicate`` is true, and the source file is left alone (even with
/// ``AssetResourceCreationOptions/shouldMoveFile``). A duplicate of an asset in Recently Deleted restores that asset.
public final class AssetCreationRequest: AssetChangeRequest, @unchecked Sendable {
    // Invariant: as for AssetChangeRequest; the creation state lives in `creation` (a Mutex).
    /// A file to store.
    struct Resource {
        var type: AssetResourceType
        /// The file, named against its open folder: placing it never resolves its path again.
        var source: FileLocation
        /// The source's path, for messages and the intent log.
        var sourcePath: String
        var shouldMove: Bool
        var sha256: String
        var byteCount: Int64
        var device: UInt64
        var inode: UInt64
        var modificationDate: Date
        /// What the caller's `fstat` said about links, owner, group and mode, when it vouches for them
        /// (``ResourceFileStatus``): the placement then does not look at the file again.
        var vouched: ResourceFileStatus?
        var mimeType: String?
        var uniformTypeIdentifier: String?
        var fileExtension: String
        var originalFilename: String
        /// A secondary resource whose content is already stored elsewhere: not stored again.
        var isSkipped = false
        /// Where it goes, relative to the library folder (set when the block commits).
        var destination: String?
    }

    /// What the request turned out to be.
    enum Resolution {
        /// New content: a new asset.
        case new
        /// The content of a stored asset.
        case existing(rowID: Int64, uuid: String, isDeleted: Bool)
        /// The content of an earlier creation request of the same block.
        case sameAs(AssetCreationRequest)
        /// Not a new asset: files added to the stored asset with ``uuid`` (``AssetChangeRequest/addResource(with:file:options:primaryBecomes:)``).
        case addition
    }

    struct CreationState {
        var resources: [Resource] = []
        var resolution = Resolution.new
        /// For a duplicate whose stored original is missing, of another size or known to be damaged: the stored
        /// original this request's file replaces (the damaged file is kept under `damaged/`).
        var repair: StoredOriginal?
        /// The row of the asset after the block applied (new or existing).
        var rowID: Int64?
        /// The photo carries its own movie (a Google or Samsung motion photo).
        var isMotionPhoto = false
        /// For an addition that brings a new primary file: the type the asset's current primary file takes.
        var demotedPrimary: AssetResourceType?
    }

    /// The UUID the new asset gets when it is not a duplicate.
    let uuid: String
    private let placeholder: ObjectPlaceholder
    let creation = Mutex(CreationState())

    private init(blockSerial: UInt64, uuid: String = LocalIdentifier.newUUID()) {
        self.uuid = uuid
        placeholder = ObjectPlaceholder(localIdentifier: LocalIdentifier.asset(uuid: uuid))
        super.init(blockSerial: blockSerial, target: nil, properties: Properties())
        placeholder.attach(assetRequest: self)
    }

    /// The request that gathers the files added to the stored asset `uuid` in this block.
    static func makeAddition(toAssetWithUUID uuid: String, _ context: ChangeContext) -> AssetCreationRequest {
        let request = AssetCreationRequest(blockSerial: context.serial, uuid: uuid)
        request.creation.withLock { $0.resolution = .addition }
        context.resourceAdditions.append(request)
        return request
    }

    /// Adds a file to a stored asset (for ``AssetChangeRequest/addResource(with:file:options:primaryBecomes:)``).
    func addToStoredAsset(
        type: AssetResourceType, file: FileLocation, options: AssetResourceCreationOptions?,
        primaryBecomes demoted: AssetResourceType?, _ context: ChangeContext
    ) {
        if type.isPrimary {
            guard let demoted, !demoted.isPrimary else {
                context.record(
                    PhotosError.invalidParameter(
                        "A new .\(type.name) file for a stored asset needs primaryBecomes: the type its current primary "
                            + "file takes (.pairedVideo for a video that becomes a Live Photo's movie, .alternatePhoto "
                            + "for a RAW beside its new JPEG)."))
                return
            }
            creation.withLock { $0.demotedPrimary = demoted }
        }
        addResource(with: type, file: file, options: options, context)
    }

    static func make(what: String) throws -> AssetCreationRequest {
        let context = try ChangeContext.active(for: what)
        let request = AssetCreationRequest(blockSerial: context.serial)
        context.assetCreations.append(request)
        context.creationByUUID[request.uuid] = request
        return request
    }

    /// A request for a new asset, to which resources are added (`forAsset()`).
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block.
    public class func forAsset() throws -> AssetCreationRequest {
        try make(what: "AssetCreationRequest.forAsset()")
    }

    /// Looks up, with one query, whether the library stores content with these SHA-256s (lowercase hex), for the
    /// creation requests this block is about to make with them (``AssetResourceCreationOptions/contentSHA256``): each
    /// request's duplicate check then needs no lookup of its own (a photodrop addition). On PostgreSQL, where every
    /// lookup is a round trip to the server, a block of a hundred files saves a hundred of them; on SQLite it does
    /// nothing. The answers hold for this block only.
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block, or when the catalog cannot be
    ///   read.
    public class func lookUpStoredContent(sha256: [String]) throws {
        let context = try ChangeContext.active(for: "AssetCreationRequest.lookUpStoredContent(sha256:)")
        try context.writer.prefetchContent(sha256)
    }

    /// Whether the photo carries its own short movie in the same file (a Google Pixel or Samsung motion photo): the
    /// asset gets the subtype ``AssetMediaSubtypes/photoMotion`` (photodrop).
    public var isMotionPhoto: Bool {
        get { creation.withLock { $0.isMotionPhoto } }
        set { creation.withLock { $0.isMotionPhoto = newValue } }
    }

    /// Whether an asset can be made of these resource types: one `.photo` or one `.video`, each type at most once
    /// (sidecars excepted: an XMP and a Takeout JSON may both describe a photo), with the secondary types that go with
    /// it: a photo's `.pairedVideo`, `.alternatePhoto`, `.fullSizePhoto`; a video's `.fullSizeVideo`;
    /// `.adjustmentData` and `.sidecar` with either.
    public class func supportsAssetResourceTypes(_ types: [AssetResourceType]) -> Bool {
        let single = types.filter { $0 != .sidecar }
        guard Set(single).count == single.count else { return false }
        let primaries = types.filter(\.isPrimary)
        guard primaries.count == 1, let primary = primaries.first else { return false }
        return types.allSatisfy { $0.requiredPrimary == nil || $0.requiredPrimary == primary }
    }

    /// Adds the file at `fileURL` as a resource (`addResource(with:fileURL:options:)`).
    ///
    /// The file is checked (and hashed, unless ``AssetResourceCreationOptions/contentSHA256`` is given) right away;
    /// duplicates are recognised here, so the placeholder's identifier is final after this call. A problem (a missing
    /// file, a second resource of the same type, a malformed hash) fails the whole `performChanges` block with a
    /// ``PhotosError`` naming the file.
    public func addResource(with type: AssetResourceType, fileURL: URL, options: AssetResourceCreationOptions?) {
        guard let context = ChangeContext.active(serial: blockSerial) else { return }
        guard fileURL.isFileURL else {
            context.record(
                PhotosError.invalidParameter("'\(fileURL)' is not a file URL; resources come from local files."))
            return
        }
        addResource(with: type, filePath: fileURL.path, options: options)
    }

    /// Adds the file at `filePath` as a resource: ``addResource(with:fileURL:options:)`` for a caller that holds a
    /// path (it spares building a `URL` per file, which a batch of thousands notices).
    public func addResource(with type: AssetResourceType, filePath: String, options: AssetResourceCreationOptions?) {
        guard let context = ChangeContext.active(serial: blockSerial) else { return }
        let location: FileLocation
        do {
            location = try FileLocation(path: filePath)
        } catch {
            context.record(
                SystemError(code: error.code, call: error.call, path: filePath).photosError(
                    action: "add '\(filePath)' to the library"))
            return
        }
        addResource(with: type, file: location, options: options, context)
    }

    /// Adds the file at `file` (a name below an open folder) as a resource: a photodrop addition for callers that
    /// took the file from a folder others may write (an inbox). The library opens, moves or copies it only through
    /// that folder's descriptor and never follows a symbolic link, so a folder swapped for a link after the caller
    /// looked cannot redirect it.
    public func addResource(with type: AssetResourceType, file: FileLocation, options: AssetResourceCreationOptions?) {
        guard let context = ChangeContext.active(serial: blockSerial) else { return }
        addResource(with: type, file: file, options: options, context)
    }

    private func addResource(
        with type: AssetResourceType, file: FileLocation, options: AssetResourceCreationOptions?,
        _ context: ChangeContext
    ) {
        do {
            try addResource(type: type, file: file, options: options ?? AssetResourceCreationOptions(), context)
        } catch let error as PhotosError {
            context.record(error)
        } catch {
            context.record(
                PhotosError(
                    .invalidResource, title: "Resource not added",
                    message: "Could not add '\(file.path)': \(error)", cause: .other("\(error)")))
        }
    }

    private func addResource(
        type: AssetResourceType, file location: FileLocation, options: AssetResourceCreationOptions,
        _ context: ChangeContext
    ) throws {
        let path = location.path
        // Only for errors: built when one happens, not for every file of a batch.
        var action: String { "add '\(path)' to the library" }
        if type != .sidecar, creation.withLock({ state in state.resources.contains { $0.type == type } }) {
            throw PhotosError.invalidParameter(
                "The creation request already has a \(type) resource; '\(path)' cannot be a second one.")
        }
        let file: ResourceFileStatus
        if let given = options.fileStatus {
            file = given
        } else {
            let found: FileStatus?
            do { found = try location.status() } catch {
                throw SystemError(code: error.code, call: error.call, path: path).photosError(action: action)
            }
            guard let info = found else {
                throw SystemError(code: Errno.noSuchFileOrDirectory, call: "stat", path: path).photosError(action: action)
            }
            guard info.isRegularFile else {
                throw PhotosError(
                    .invalidResource, title: "Not a regular file",
                    message: "Could not \(action): it is not a regular file (a folder, device or socket?).",
                    cause: .io(operation: "stat", path: path, errno: Errno.invalidArgument))
            }
            file = ResourceFileStatus(
                byteCount: Int64(info.size), device: UInt64(info.node.device), inode: UInt64(info.node.inode),
                modificationDate: Date(
                    timeIntervalSince1970: Double(info.modification.seconds) + Double(info.modification.nanoseconds) / 1e9))
        }
        let sha256: String
        if let given = options.contentSHA256 {
            guard SHA256Digest.isLowercaseHex(given) else {
                throw PhotosError.invalidParameter(
                    "contentSHA256 for '\(path)' must be 64 lowercase hex characters, not '\(given)'.")
            }
            sha256 = given
        } else {
            do { sha256 = try context.writer.hashFile(location).0 } catch let error as SystemError {
                throw error.photosError(action: action)
            }
        }
        let pathExtension = Path.pathExtension(of: path)
        let mime =
            options.mimeType?.lowercased() ?? options.uniformTypeIdentifier.flatMap(MediaTypes.mime(forUTI:))
            ?? MediaTypes.mime(forExtension: pathExtension)
        let uti = options.uniformTypeIdentifier ?? mime.flatMap(MediaTypes.uti(forMIME:))
        let ext = AssetCreationRequest.storedExtension(
            options.fileExtension ?? (pathExtension.isEmpty ? nil : pathExtension)
                ?? mime.flatMap(MediaTypes.preferredExtension(forMIME:)))
        var resource = Resource(
            type: type, source: location, sourcePath: path, shouldMove: options.shouldMoveFile, sha256: sha256,
            byteCount: file.byteCount, device: file.device, inode: file.inode, modificationDate: file.modificationDate,
            vouched: file.links != nil && file.owner != nil && file.group != nil && file.mode != nil ? file : nil,
            mimeType: mime, uniformTypeIdentifier: uti, fileExtension: ext,
            originalFilename: options.originalFilename ?? Path.lastComponent(of: path))

        let isPrimary = type == .photo || type == .video
        if case .addition = creation.withLock({ $0.resolution }) {
            // A file added to a stored asset is not added again when its content is stored already (or added earlier
            // in the block).
            let isNewInBlock = context.additionSHA256.insert(sha256).inserted
            let isStored = try context.writer.asset(withSHA256: sha256) != nil
            if !isNewInBlock || context.creationBySHA256[sha256] != nil || isStored { resource.isSkipped = true }
        } else if isPrimary {
            let resolution: Resolution
            if let earlier = context.creationBySHA256[sha256] {
                resolution = .sameAs(earlier)
                placeholder.resolve(to: earlier.placeholderForCreatedAsset?.localIdentifier ?? earlier.uuid)
            } else if let existing = try context.writer.asset(withSHA256: sha256) {
                resolution = .existing(rowID: existing.rowID, uuid: existing.uuid, isDeleted: existing.isDeleted)
                placeholder.resolve(to: LocalIdentifier.asset(uuid: existing.uuid))
                let repair = context.writer.originalNeedingRepair(existing.original)
                creation.withLock { $0.repair = repair }
            } else {
                resolution = .new
                context.creationBySHA256[sha256] = self
            }
            creation.withLock { $0.resolution = resolution }
        } else if context.creationBySHA256[sha256] != nil {
            resource.isSkipped = true
        } else if try context.writer.asset(withSHA256: sha256) != nil {
            resource.isSkipped = true
        }
        creation.withLock { $0.resources.append(resource) }
    }

    /// A safe extension for a stored file: letters and digits only, at most 16, lowercased; "" when there is none.
    static func storedExtension(_ candidate: String?) -> String {
        guard var text = candidate?.lowercased() else { return "" }
        while text.hasPrefix(".") { text.removeFirst() }
        guard !text.isEmpty, text.count <= 16,
            text.unicodeScalars.allSatisfy({ ("a"..."z").contains($0) || ("0"..."9").contains($0) })
        else { return "" }
        return text
    }

    /// The placeholder of the new asset (or, for a duplicate, of the existing one).
    public override var placeholderForCreatedAsset: ObjectPlaceholder? { placeholder }

    /// Whether the content was already in the library (or in an earlier request of the same block). Valid once
    /// `performChanges` returned.
    public override var isDuplicate: Bool {
        creation.withLock {
            switch $0.resolution {
            case .new, .addition: false
            case .existing, .sameAs: true
            }
        }
    }

    /// The resolution, resources and row (for the writer).
    var state: CreationState { creation.withLock { $0 } }
}
