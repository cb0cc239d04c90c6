import FoundationEssentials
import Synchronization

/// Creates, changes or deletes assets (`PHAssetChangeRequest`). Make requests only inside
/// ``PhotoLibrary/performChanges(_:)``; they are applied together, in one transaction, when the block returns.
///
/// Properties set on a request after its block returned change nothing.
public class AssetChangeRequest: @unchecked Sendable {
    // Invariant: the mutable state lives in `state` (a Mutex); the other stored properties are immutable. Subclasses
    // keep the same rule.

    /// The settable properties of an asset and which of them a request changed.
    struct Properties: Sendable {
        enum Field: Int, Sendable {
            case creationDate, creationDateSource, location, isFavorite, isHidden, pixelWidth, pixelHeight, duration
            case contentIdentifier, creationTimeZoneOffset, isCreationDateFloating, title, caption, keywords, rating
            case pairingKey, awaitsPartner, cameraMake, cameraModel, captureDetails
        }

        /// The fields a request set, as bits: a `Set` cost every creation request a heap allocation and each
        /// property a hash.
        struct Fields: Sendable, Equatable {
            private var bits: UInt32 = 0
            var isEmpty: Bool { bits == 0 }
            func contains(_ field: Field) -> Bool { bits & (1 << field.rawValue) != 0 }
            mutating func insert(_ field: Field) { bits |= 1 << field.rawValue }
        }

        var creationDate: Date?
        var creationDateSource: String?
        var creationTimeZoneOffset: Int?
        var isCreationDateFloating = false
        var location: Location?
        var isFavorite = false
        var isHidden = false
        var pixelWidth = 0
        var pixelHeight = 0
        var duration = 0.0
        var contentIdentifier: String?
        var title: String?
        var caption: String?
        var keywords: [String] = []
        var rating: Int?
        var pairingKey: String?
        var awaitsPartner = false
        var cameraMake: String?
        var cameraModel: String?
        /// ``CaptureDetails`` in their stored form (a request is held by every file of a group commit in flight: the
        /// text is smaller than the struct).
        var captureDetailsJSON: String?
        var changed = Fields()
    }

    let blockSerial: UInt64
    /// The asset changed by this request; nil for a creation request.
    let target: AssetTarget?
    let properties: Mutex<Properties>
    /// The files this request adds to its stored asset, gathered as a creation request of that asset
    /// (``addResource(with:file:options:primaryBecomes:)``); nil until the first.
    let addition = Mutex<AssetCreationRequest?>(nil)

    init(blockSerial: UInt64, target: AssetTarget?, properties: Properties) {
        self.blockSerial = blockSerial
        self.target = target
        self.properties = Mutex(properties)
    }

    /// A request to change `asset` (`init(for:)`).
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block.
    public convenience init(for asset: Asset) throws {
        let context = try ChangeContext.active(for: "AssetChangeRequest(for:)")
        let record = asset.record
        self.init(
            blockSerial: context.serial, target: .existing(uuid: record.uuid, identifier: asset.localIdentifier),
            properties: Properties(
                creationDate: record.creationDate, creationDateSource: record.creationDateSource,
                creationTimeZoneOffset: record.creationTimeZoneOffset,
                isCreationDateFloating: record.isCreationDateFloating,
                location: record.location, isFavorite: record.isFavorite, isHidden: record.isHidden,
                pixelWidth: record.pixelWidth, pixelHeight: record.pixelHeight, duration: record.duration,
                contentIdentifier: record.contentIdentifier, title: record.title, caption: record.caption,
                keywords: record.keywords, rating: record.rating, pairingKey: record.pairingKey, awaitsPartner: record.awaitsPartner,
                cameraMake: record.cameraMake, cameraModel: record.cameraModel,
                captureDetailsJSON: record.captureDetailsJSON))
        context.operations.append(.updateAsset(self))
    }

    private func set<Value>(_ field: Properties.Field, _ keyPath: WritableKeyPath<Properties, Value>, _ value: Value) {
        guard ChangeContext.active(serial: blockSerial) != nil else { return }
        properties.withLock {
            $0[keyPath: keyPath] = value
            $0.changed.insert(field)
        }
    }

    /// When the photo or video was taken.
    public var creationDate: Date? {
        get { properties.withLock { $0.creationDate } }
        set { set(.creationDate, \.creationDate, newValue) }
    }
    /// Where ``creationDate`` came from (photodrop: e.g. `"exif"`, `"quicktime"`, `"fileModificationDate"`).
    public var creationDateSource: String? {
        get { properties.withLock { $0.creationDateSource } }
        set { set(.creationDateSource, \.creationDateSource, newValue) }
    }

    /// The capture time zone, seconds east of UTC, or nil when unknown (photodrop). Setting it (or
    /// ``isCreationDateFloating``) also marks the asset's zone as settled for the background re-read that follows the
    /// v6 migration.
    public var creationTimeZoneOffset: Int? {
        get { properties.withLock { $0.creationTimeZoneOffset } }
        set { set(.creationTimeZoneOffset, \.creationTimeZoneOffset, newValue) }
    }

    /// Whether ``creationDate`` is a local wall-clock time whose zone is unknown (photodrop).
    public var isCreationDateFloating: Bool {
        get { properties.withLock { $0.isCreationDateFloating } }
        set { set(.isCreationDateFloating, \.isCreationDateFloating, newValue) }
    }

    /// The title (photodrop).
    public var title: String? {
        get { properties.withLock { $0.title } }
        set { set(.title, \.title, newValue) }
    }

    /// The caption (photodrop).
    public var caption: String? {
        get { properties.withLock { $0.caption } }
        set { set(.caption, \.caption, newValue) }
    }

    /// The camera's maker (photodrop).
    public var cameraMake: String? {
        get { properties.withLock { $0.cameraMake } }
        set { set(.cameraMake, \.cameraMake, newValue) }
    }

    /// The camera's model (photodrop).
    public var cameraModel: String? {
        get { properties.withLock { $0.cameraModel } }
        set { set(.cameraModel, \.cameraModel, newValue) }
    }

    /// How it was made (photodrop). Setting it (even to the same or empty details) also takes the asset off the
    /// list of those stored before photodrop kept these (``PhotoLibrary/assetsAwaitingCaptureDetails(limit:)``).
    public var captureDetails: CaptureDetails {
        get { properties.withLock { $0.captureDetailsJSON }.map(CaptureDetails.init(json:)) ?? CaptureDetails() }
        set { set(.captureDetails, \.captureDetailsJSON, newValue.json) }
    }

    /// Keywords, in order (photodrop).
    public var keywords: [String] {
        get { properties.withLock { $0.keywords } }
        set { set(.keywords, \.keywords, newValue) }
    }

    /// A key that the files of one asset share, chosen by the caller, so that a file arriving after the asset was
    /// stored can find it (``FetchPredicate/pairingKey(in:)``; photodrop: its ingest uses the inbox folder and the
    /// file's stem). Not shown anywhere; nil when not set.
    public var pairingKey: String? {
        get { properties.withLock { $0.pairingKey } }
        set { set(.pairingKey, \.pairingKey, newValue) }
    }

    /// Whether a file that arrives later may become this asset's primary file (photodrop: a RAW or a movie stored
    /// alone, whose JPEG or Live Photo still may follow): such assets are found by key through an index of their own
    /// (``FetchPredicate/awaitingPartner(in:)``). Adding a primary file clears it.
    public var awaitsPartner: Bool {
        get { properties.withLock { $0.awaitsPartner } }
        set { set(.awaitsPartner, \.awaitsPartner, newValue) }
    }

    /// The rating, −1 … 5, or nil (photodrop).
    public var rating: Int? {
        get { properties.withLock { $0.rating } }
        set { set(.rating, \.rating, newValue) }
    }
    /// Where it was taken.
    public var location: Location? {
        get { properties.withLock { $0.location } }
        set { set(.location, \.location, newValue) }
    }
    /// Whether it is a favourite.
    public var isFavorite: Bool {
        get { properties.withLock { $0.isFavorite } }
        set { set(.isFavorite, \.isFavorite, newValue) }
    }
    /// Whether it is hidden.
    public var isHidden: Bool {
        get { properties.withLock { $0.isHidden } }
        set { set(.isHidden, \.isHidden, newValue) }
    }
    /// Width in pixels (photodrop: set by whoever probed the file).
    public var pixelWidth: Int {
        get { properties.withLock { $0.pixelWidth } }
        set { set(.pixelWidth, \.pixelWidth, newValue) }
    }
    /// Height in pixels.
    public var pixelHeight: Int {
        get { properties.withLock { $0.pixelHeight } }
        set { set(.pixelHeight, \.pixelHeight, newValue) }
    }
    /// Length in seconds (videos).
    public var duration: Double {
        get { properties.withLock { $0.duration } }
        set { set(.duration, \.duration, newValue) }
    }
    /// The Live Photo content identifier.
    public var contentIdentifier: String? {
        get { properties.withLock { $0.contentIdentifier } }
        set { set(.contentIdentifier, \.contentIdentifier, newValue) }
    }

    /// The placeholder of the asset a creation request makes; nil for requests that change an existing asset.
    public var placeholderForCreatedAsset: ObjectPlaceholder? { nil }

    /// Whether a creation request resolved to an asset already in the library (same SHA-256). Valid once
    /// `performChanges` returned; always false for requests that change an existing asset.
    public var isDuplicate: Bool { false }

    // MARK: Creating

    /// A request to add the image at `fileURL` as a new photo (a copy; the source stays).
    ///
    /// - Throws: ``PhotosError`` (`.invalidParameter`) outside a `performChanges` block. Problems with the file are
    ///   reported by `performChanges`.
    public class func creationRequestForAssetFromImage(atFileURL fileURL: URL) throws -> AssetChangeRequest {
        let request = try AssetCreationRequest.make(what: "creationRequestForAssetFromImage(atFileURL:)")
        request.addResource(with: .photo, fileURL: fileURL, options: nil)
        return request
    }

    /// A request to add the video at `fileURL` as a new video asset (a copy; the source stays).
    public class func creationRequestForAssetFromVideo(atFileURL fileURL: URL) throws -> AssetChangeRequest {
        let request = try AssetCreationRequest.make(what: "creationRequestForAssetFromVideo(atFileURL:)")
        request.addResource(with: .video, fileURL: fileURL, options: nil)
        return request
    }

    // MARK: Deleting

    /// Moves assets to Recently Deleted (`deleteAssets(_:)`); they keep their album memberships and can be restored.
    public class func deleteAssets<S: Sequence>(_ assets: S) throws where S.Element: AssetReference {
        let context = try ChangeContext.active(for: "AssetChangeRequest.deleteAssets(_:)")
        context.operations.append(.deleteAssets(try assets.map { try AssetTarget($0, in: context) }))
    }

    /// Brings assets back from Recently Deleted (photodrop; PhotoKit leaves this to the Photos app).
    public class func restoreAssets<S: Sequence>(_ assets: S) throws where S.Element: AssetReference {
        let context = try ChangeContext.active(for: "AssetChangeRequest.restoreAssets(_:)")
        context.operations.append(.restoreAssets(try assets.map { try AssetTarget($0, in: context) }))
    }

    /// Removes assets for good: their rows, album memberships and stored originals (photodrop; PhotoKit's "Delete
    /// from Recently Deleted"). The files are removed after the commit.
    public class func purgeAssets<S: Sequence>(_ assets: S) throws where S.Element: AssetReference {
        let context = try ChangeContext.active(for: "AssetChangeRequest.purgeAssets(_:)")
        context.operations.append(.purgeAssets(try assets.map { try AssetTarget($0, in: context) }))
    }

    /// Purges those of `assets` that are still in Recently Deleted when the change is applied, and, with `cutoff`,
    /// were deleted before it (photodrop: emptying the trash). An asset restored meanwhile (a drop of the same content,
    /// `restore`) is kept; one already gone is skipped.
    public class func purgeDeletedAssets<S: Sequence>(_ assets: S, deletedBefore cutoff: Date? = nil) throws
    where S.Element: AssetReference {
        let context = try ChangeContext.active(for: "AssetChangeRequest.purgeDeletedAssets(_:deletedBefore:)")
        context.operations.append(
            .purgeDeletedAssets(
                try assets.map { try AssetTarget($0, in: context) }, deletedBefore: cutoff?.timeIntervalSince1970))
    }
}
