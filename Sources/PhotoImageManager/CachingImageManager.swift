import Dispatch
import FoundationEssentials
import PhotoCatalog
import Rendering
import Synchronization

/// An image manager that prepares pictures ahead of time and keeps them in memory (`PHCachingImageManager`): a grid
/// that is about to scroll asks for the next screenful with ``startCachingImages(for:targetSize:contentMode:options:)``,
/// and the requests that follow are answered from memory. The cache is bounded by ``memoryLimit`` bytes of encoded
/// pictures; the least recently used go first.
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
    }

    private struct Cache {
        var entries: [Key: (result: ImageResult, lastUse: UInt64)] = [:]
        var bytes = 0
        var clock: UInt64 = 0
        var pending: [(Key, ContentMode, ImageRequestOptions)] = []
        var working = false
        var allowsHighQuality = true
    }

    /// The most bytes of encoded pictures kept in memory.
    public let memoryLimit: Int
    private let cache = Mutex(Cache())
    private let worker = DispatchQueue(label: "photodrop.image-cache", qos: .utility)

    public init(library: PhotoLibrary, pool: RenderPool, memoryLimit: Int = 64 << 20) {
        self.memoryLimit = max(0, memoryLimit)
        super.init(library: library, pool: pool)
    }

    /// Whether pictures prepared ahead of time are made at the requested quality (`true`, the default) or only the
    /// fast way (the nearest stored picture, as with ``ImageRequestOptions/DeliveryMode/fastFormat``), which costs
    /// no decoding at all.
    public var allowsCachingHighQualityImages: Bool {
        get { cache.withLock { $0.allowsHighQuality } }
        set { cache.withLock { $0.allowsHighQuality = newValue } }
    }

    /// How many pictures and bytes are cached now.
    public var cachedCount: (pictures: Int, bytes: Int) { cache.withLock { ($0.entries.count, $0.bytes) } }

    /// Prepares the pictures of `assets` for these request parameters in the background, at low priority.
    public func startCachingImages(
        for assets: [Asset], targetSize: PixelSize, contentMode: ContentMode, options: ImageRequestOptions? = nil
    ) {
        var options = options ?? ImageRequestOptions()
        let start = cache.withLock { cache -> Bool in
            if !cache.allowsHighQuality { options.deliveryMode = .fastFormat }
            for asset in assets {
                let key = Key(asset.localIdentifier, targetSize, contentMode, options)
                if cache.entries[key] == nil, !cache.pending.contains(where: { $0.0 == key }) {
                    cache.pending.append((key, contentMode, options))
                }
            }
            guard !cache.working, !cache.pending.isEmpty else { return false }
            cache.working = true
            return true
        }
        if start { worker.async { self.work() } }
    }

    /// Stops preparing, and forgets, the pictures of `assets` for these request parameters.
    public func stopCachingImages(
        for assets: [Asset], targetSize: PixelSize, contentMode: ContentMode, options: ImageRequestOptions? = nil
    ) {
        var options = options ?? ImageRequestOptions()
        cache.withLock { cache in
            if !cache.allowsHighQuality { options.deliveryMode = .fastFormat }
            let keys = Set(assets.map { Key($0.localIdentifier, targetSize, contentMode, options) })
            cache.pending.removeAll { keys.contains($0.0) }
            for key in keys {
                if let removed = cache.entries.removeValue(forKey: key) { cache.bytes -= removed.result.data.count }
            }
        }
    }

    /// Stops all preparation and empties the cache.
    public func stopCachingImagesForAllAssets() {
        cache.withLock { cache in
            cache.pending.removeAll()
            cache.entries.removeAll()
            cache.bytes = 0
        }
    }

    /// Answers from the cache when it can; a picture made for a request is cached too.
    public override func image(
        for identifier: String, targetSize: PixelSize, contentMode: ContentMode,
        options: ImageRequestOptions = ImageRequestOptions(), degraded: (ImageResult) -> Void = { _ in }
    ) throws(ImageManagerError) -> ImageResult {
        let key = Key(identifier, targetSize, contentMode, options)
        if let hit = cache.withLock({ cache -> ImageResult? in
            guard let entry = cache.entries[key] else { return nil }
            cache.clock += 1
            cache.entries[key]?.lastUse = cache.clock
            return entry.result
        }) {
            return hit
        }
        let result = try super.image(
            for: identifier, targetSize: targetSize, contentMode: contentMode, options: options, degraded: degraded)
        insert(result, for: key)
        return result
    }

    private func insert(_ result: ImageResult, for key: Key) {
        guard result.data.count <= memoryLimit else { return }
        cache.withLock { cache in
            cache.clock += 1
            if let old = cache.entries[key] { cache.bytes -= old.result.data.count }
            cache.entries[key] = (result, cache.clock)
            cache.bytes += result.data.count
            while cache.bytes > memoryLimit, let oldest = cache.entries.min(by: { $0.value.lastUse < $1.value.lastUse }) {
                cache.entries.removeValue(forKey: oldest.key)
                cache.bytes -= oldest.value.result.data.count
            }
        }
    }

    /// Prepares pending pictures one at a time until none is left.
    private func work() {
        while true {
            let next = cache.withLock { cache -> (Key, ContentMode, ImageRequestOptions)? in
                guard !cache.pending.isEmpty else {
                    cache.working = false
                    return nil
                }
                return cache.pending.removeFirst()
            }
            guard let (key, mode, options) = next else { return }
            if cache.withLock({ $0.entries[key] != nil }) { continue }
            // A picture that cannot be made is simply not cached: the request that follows reports why.
            _ = try? image(for: key.asset, targetSize: key.size, contentMode: mode, options: options)
        }
    }
}
