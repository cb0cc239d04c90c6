import Dispatch
import FoundationEssentials
import PhotoCatalog
import Rendering
import Synchronization

/// A picture an image request made, kept whole in the ``PictureCache``.
public final class KeptImage: KeptPicture {
    public let result: ImageResult
    public var byteCount: Int { result.data.count }

    public init(_ result: ImageResult) { self.result = result }
}

/// An image manager that prepares pictures ahead of time and keeps them in memory (`PHCachingImageManager`): a grid
/// that is about to scroll asks for the next screenful with ``startCachingImages(for:targetSize:contentMode:options:)``,
/// and the requests that follow are answered from memory. `serve` is its other user: its versioned pictures live in
/// the same ``pictures`` cache, and the previews beside the one open in the viewer are read into it ahead of time
/// (``startCachingStoredPictures(_:of:generation:)``). The cache holds at most ``memoryLimit`` bytes of encoded
/// pictures; the oldest go first.
public final class CachingImageManager: ImageManager, @unchecked Sendable {
    /// What identifies a cached picture: the asset and everything in the request that changes the picture.
    struct Key: Hashable, Sendable {
        var asset: String
        var size: PixelSize
        var fill: Bool
        var resize: ImageRequestOptions.ResizeMode
        var version: ImageRequestOptions.Version
        var crop: NormalizedRect?
        var format: ImageFormat
        var fast: Bool

        init(_ asset: String, _ size: PixelSize, _ mode: ContentMode, _ options: ImageRequestOptions) {
            self.asset = asset
            self.size = size
            fill = mode == .aspectFill
            resize = options.resizeMode
            version = options.version
            crop = options.normalizedCropRect
            format = options.format
            fast = options.deliveryMode == .fastFormat
        }

        /// The key in the picture cache (a request's pictures never collide with `serve`'s, which start with an
        /// asset identifier).
        var text: String { "request \(self)" }
    }

    private struct Work {
        var pending: [(Key, ContentMode, ImageRequestOptions)] = []
        var storedPending: [(identifier: String, kind: DerivativeKind, generation: UInt64)] = []
        var working = false
        var allowsHighQuality = true
    }

    /// The most bytes of encoded pictures kept in memory.
    public let memoryLimit: Int
    /// The cache itself.
    public let pictures: PictureCache
    private let work = Mutex(Work())
    private let worker = DispatchQueue(label: "photodrop.image-cache", qos: .utility)

    /// A manager whose cache keeps at most `memoryLimit` bytes, no picture larger than `largestPicture` (nil: as large
    /// as one shard of the cache may hold).
    public init(library: PhotoLibrary, pool: RenderPool, memoryLimit: Int = 64 << 20, largestPicture: Int? = nil) {
        self.memoryLimit = max(0, memoryLimit)
        // One shard per MiB (up to 64): many threads rarely wait for one lock, and a shard still holds large pictures.
        let shards = min(64, max(1, memoryLimit >> 20))
        pictures = PictureCache(
            answerBudget: self.memoryLimit, shards: shards, largestPicture: largestPicture ?? self.memoryLimit / shards)
        super.init(library: library, pool: pool)
    }

    /// Whether pictures prepared ahead of time are made at the requested quality (`true`, the default) or only the
    /// fast way (the nearest stored picture, as with ``ImageRequestOptions/DeliveryMode/fastFormat``), which costs
    /// no decoding at all.
    public var allowsCachingHighQualityImages: Bool {
        get { work.withLock { $0.allowsHighQuality } }
        set { work.withLock { $0.allowsHighQuality = newValue } }
    }

    /// How many pictures and bytes are cached now.
    public var cachedCount: (pictures: Int, bytes: Int) { pictures.keptCount }

    /// Prepares the pictures of `assets` for these request parameters in the background, at low priority.
    public func startCachingImages(
        for assets: [Asset], targetSize: PixelSize, contentMode: ContentMode, options: ImageRequestOptions? = nil
    ) {
        var options = options ?? ImageRequestOptions()
        let start = work.withLock { work -> Bool in
            if !work.allowsHighQuality { options.deliveryMode = .fastFormat }
            for asset in assets {
                let key = Key(asset.localIdentifier, targetSize, contentMode, options)
                if pictures.entry(key.text)?.answer == nil, !work.pending.contains(where: { $0.0 == key }) {
                    work.pending.append((key, contentMode, options))
                }
            }
            return begin(&work)
        }
        if start { worker.async { self.drain() } }
    }

    /// Reads the stored `kind` of each asset (made first when it is missing) into the cache, in the background, under
    /// the key ``storedPictureKey(of:kind:version:)`` names; `generation` is the caller's count of library changes
    /// when it asked (a picture is trusted for it, as ``PictureCache`` describes).
    public func startCachingStoredPictures(_ kind: DerivativeKind, of identifiers: [String], generation: UInt64) {
        let start = work.withLock { work -> Bool in
            for identifier in identifiers where !work.storedPending.contains(where: {
                $0.identifier == identifier && $0.kind == kind
            }) {
                work.storedPending.append((identifier, kind, generation))
            }
            return begin(&work)
        }
        if start { worker.async { self.drain() } }
    }

    /// The cache key of an asset's stored picture of `kind` whose hash starts with `version`.
    public static func storedPictureKey(of identifier: String, kind: DerivativeKind, version: String) -> String {
        identifier + "/" + kind.name + "/" + version
    }

    /// How many hexadecimal digits of a picture's hash name its version: `serve`'s `?v=` and the key
    /// ``startCachingStoredPictures(_:of:generation:)`` keeps it under, which must be the same.
    public static let storedVersionLength = 16

    /// Stops preparing, and forgets, the pictures of `assets` for these request parameters.
    public func stopCachingImages(
        for assets: [Asset], targetSize: PixelSize, contentMode: ContentMode, options: ImageRequestOptions? = nil
    ) {
        var options = options ?? ImageRequestOptions()
        let keys = work.withLock { work -> Set<Key> in
            if !work.allowsHighQuality { options.deliveryMode = .fastFormat }
            let keys = Set(assets.map { Key($0.localIdentifier, targetSize, contentMode, options) })
            work.pending.removeAll { keys.contains($0.0) }
            return keys
        }
        for key in keys { pictures.forget(key.text) }
    }

    /// Stops all preparation and empties the cache.
    public func stopCachingImagesForAllAssets() {
        work.withLock { work in
            work.pending.removeAll()
            work.storedPending.removeAll()
        }
        pictures.removeAll()
    }

    /// Answers from the cache when it can; a picture made for a request is cached too.
    public override func image(
        for identifier: String, targetSize: PixelSize, contentMode: ContentMode,
        options: ImageRequestOptions = ImageRequestOptions(), degraded: (ImageResult) -> Void = { _ in }
    ) throws(ImageManagerError) -> ImageResult {
        let key = Key(identifier, targetSize, contentMode, options)
        if let hit = pictures.entry(key.text)?.answer as? KeptImage { return hit.result }
        let result = try super.image(
            for: identifier, targetSize: targetSize, contentMode: contentMode, options: options, degraded: degraded)
        keep(result, as: key.text, file: nil, generation: 0)
        return result
    }

    private func keep(_ result: ImageResult, as key: String, file: Derivative.File?, generation: UInt64) {
        guard pictures.keeps(byteCount: result.data.count) else { return }
        pictures.remember(file, as: key, checked: generation)
        pictures.keep(KeptImage(result), for: key)
    }

    /// Marks the worker busy when there is work and it is idle; whether to start it.
    private func begin(_ work: inout Work) -> Bool {
        guard !work.working, !work.pending.isEmpty || !work.storedPending.isEmpty else { return false }
        work.working = true
        return true
    }

    /// Prepares pending pictures one at a time until none is left.
    private func drain() {
        while true {
            let next = work.withLock { work -> Either? in
                if !work.storedPending.isEmpty { return .stored(work.storedPending.removeFirst()) }
                guard !work.pending.isEmpty else {
                    work.working = false
                    return nil
                }
                return .request(work.pending.removeFirst())
            }
            switch next {
            case nil: return
            case .request(let (key, mode, options)):
                if pictures.entry(key.text)?.answer != nil { continue }
                // A picture that cannot be made is simply not cached: the request that follows reports why.
                _ = try? image(for: key.asset, targetSize: key.size, contentMode: mode, options: options)
            case .stored(let (identifier, kind, generation)):
                cacheStoredPicture(kind, of: identifier, generation: generation)
            }
        }
    }

    private enum Either {
        case request((Key, ContentMode, ImageRequestOptions))
        case stored((identifier: String, kind: DerivativeKind, generation: UInt64))
    }

    private func cacheStoredPicture(_ kind: DerivativeKind, of identifier: String, generation: UInt64) {
        guard let source = try? library.derivativeSource(ofAsset: identifier),
            let stored = try? storedDerivatives(of: source, makeMissing: true).first(where: { $0.kind == kind })
        else { return }
        let key = Self.storedPictureKey(
            of: identifier, kind: kind, version: String(stored.file.sha256.prefix(Self.storedVersionLength)))
        if let entry = pictures.entry(key), entry.answer != nil, entry.checked == generation { return }
        guard pictures.keeps(byteCount: Int(stored.file.byteCount)), let result = read(stored) else { return }
        keep(result, as: key, file: stored.file, generation: generation)
    }
}
