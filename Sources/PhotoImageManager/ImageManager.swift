import Dispatch
import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem
import Rendering
import Synchronization

/// Pictures of the library's assets at any size (`PHImageManager`), served from the stored derivatives where they
/// are large enough and from the original otherwise, resized by the render helper. A missing derivative is made on
/// demand and stored through the library's normal writer, whichever process asks.
///
/// Results are delivered on the manager's queue, never on the caller's thread; ``image(for:targetSize:contentMode:options:degraded:)``
/// is the synchronous form the command line and the HTTP server use.
public class ImageManager: @unchecked Sendable {
    public let library: PhotoLibrary
    public let maker: DerivativeMaker
    let queue = DispatchQueue(label: "photodrop.image-manager", qos: .userInitiated, attributes: .concurrent)
    let requestCounter = Atomic<Int32>(1)
    private let cancelled = Mutex<Set<Int32>>([])

    public init(library: PhotoLibrary, pool: RenderPool) {
        self.library = library
        maker = DerivativeMaker(library: library, pool: pool)
    }

    // MARK: Requests

    /// Asks for a picture of `asset` for `targetSize` (``PixelSize/maximum`` for the full original). With
    /// ``ImageRequestOptions/DeliveryMode/opportunistic`` the handler may be called twice: first with a degraded
    /// result (``ImageResultInfo/isDegraded``), then with the final one.
    @discardableResult
    public func requestImage(
        for asset: Asset, targetSize: PixelSize, contentMode: ContentMode, options: ImageRequestOptions? = nil,
        resultHandler: @escaping @Sendable (ImageResult?, ImageResultInfo) -> Void
    ) -> ImageRequestID {
        let id = nextRequestID()
        let options = options ?? ImageRequestOptions()
        let identifier = asset.localIdentifier
        queue.async {
            let deliver: @Sendable (ImageResult?, Bool, ImageManagerError?) -> Void = { result, degraded, error in
                let isCancelled = self.cancelled.withLock { $0.contains(id.rawValue) }
                resultHandler(
                    isCancelled ? nil : result,
                    ImageResultInfo(requestID: id, isDegraded: degraded, isCancelled: isCancelled, error: error))
            }
            do throws(ImageManagerError) {
                let result = try self.image(
                    for: identifier, targetSize: targetSize, contentMode: contentMode, options: options,
                    degraded: { degraded in
                        guard !self.cancelled.withLock({ $0.contains(id.rawValue) }) else { return }
                        deliver(degraded, true, nil)
                    })
                deliver(result, false, nil)
            } catch {
                deliver(nil, false, error)
            }
            _ = self.cancelled.withLock { $0.remove(id.rawValue) }
        }
        return id
    }

    /// Cancels a request: its handler is called once more with ``ImageResultInfo/isCancelled`` and no image (unless
    /// it already finished).
    public func cancelImageRequest(_ requestID: ImageRequestID) {
        _ = cancelled.withLock { $0.insert(requestID.rawValue) }
    }

    /// The picture of the asset `identifier`, synchronously. `degraded` gets the fast first result of an
    /// opportunistic request.
    public func image(
        for identifier: String, targetSize: PixelSize, contentMode: ContentMode,
        options: ImageRequestOptions = ImageRequestOptions(), degraded: (ImageResult) -> Void = { _ in }
    ) throws(ImageManagerError) -> ImageResult {
        guard targetSize.width > 0, targetSize.height > 0 else {
            throw .invalidRequest("the target size \(targetSize) is empty")
        }
        if let crop = options.normalizedCropRect, !crop.isValid {
            throw .invalidRequest("the crop rectangle lies outside the picture (x, y, width, height in 0…1)")
        }
        let unedited = options.version == .original
        let source = try source(of: identifier, unedited: unedited)
        let stored = try storedDerivatives(of: source, makeMissing: !unedited)
        let plan = ImagePlan(stored: stored, target: targetSize, mode: contentMode, options: options)
        if let fast = plan.degradedFirst, options.deliveryMode == .opportunistic, let result = read(fast) {
            degraded(result)
        }
        if let direct = plan.direct, let result = read(direct) { return result }
        return try render(plan.renderFrom, source: source, target: targetSize, mode: contentMode, options: options)
    }

    // MARK: Steps

    /// The asset's derivatives made from `source` whose files are intact; made now when missing (for the current
    /// version only: derivatives are never made of an unedited original that an edit replaced).
    func storedDerivatives(of source: DerivativeSource, makeMissing: Bool) throws(ImageManagerError) -> [ImagePlan.Stored] {
        func current() throws(ImageManagerError) -> (files: [ImagePlan.Stored], failure: String?, complete: Bool) {
            let recorded: [Derivative]
            do { recorded = try library.derivatives(ofAsset: source.assetLocalIdentifier) } catch {
                throw .unavailable("\(error)")
            }
            let made = recorded.filter { $0.sourceSHA256 == source.sha256 && DerivativeKind.pictures.contains($0.kind) }
            if let failure = made.compactMap(\.failure).first { return ([], failure, true) }
            let files = made.compactMap { derivative in
                derivative.file.flatMap { file in
                    library.openDerivative(file).map { ImagePlan.Stored(kind: derivative.kind, file: file, descriptor: $0) }
                }
            }
            return (files, nil, files.count == DerivativeKind.pictures.count)
        }
        var state = try current()
        if !state.complete, makeMissing {
            let (contents, outcome) = maker.render(source)
            switch outcome {
            case .skipped(let why), .helperUnavailable(let why): throw .unavailable(why)
            case .made, .failed: break
            }
            do { try library.storeDerivativesAndWait(contents) } catch { throw .unavailable("\(error)") }
            state = try current()
        }
        if let failure = state.failure { throw .undecodable(failure) }
        return state.files.sorted { $0.file.pixelWidth * $0.file.pixelHeight < $1.file.pixelWidth * $1.file.pixelHeight }
    }

    /// A stored derivative's bytes as a result.
    func read(_ stored: ImagePlan.Stored) -> ImageResult? {
        let file = stored.file
        var data = Data(count: Int(file.byteCount))
        let count = data.withUnsafeMutableBytes { try? stored.descriptor.readFully(into: $0, at: 0) }
        guard count == data.count else { return nil }
        return ImageResult(
            data: data, mimeType: file.mimeType, pixelWidth: file.pixelWidth, pixelHeight: file.pixelHeight,
            origin: stored.kind.name)
    }

    /// Renders the target from a stored derivative (nil: from the original).
    func render(
        _ stored: ImagePlan.Stored?, source: DerivativeSource, target: PixelSize, mode: ContentMode,
        options: ImageRequestOptions
    ) throws(ImageManagerError) -> ImageResult {
        let descriptor: FileDescriptor
        if let stored {
            descriptor = stored.descriptor
        } else {
            do { descriptor = try library.openOriginal(source) } catch { throw .unavailable("\(error)") }
        }
        let side = 1 << 20
        let width = target == .maximum ? side : min(side, target.width)
        let height = target == .maximum ? side : min(side, target.height)
        let crop = options.normalizedCropRect.map { [$0.x, $0.y, $0.width, $0.height] }
        let request = RenderRequest(
            outputs: [
                .init(
                    width: width, height: height, fill: mode == .aspectFill, mimeType: options.format.mimeType,
                    quality: options.format.quality)
            ], mimeType: stored?.file.mimeType ?? source.mimeType, crop: crop)
        do throws(RenderError) {
            // A stored derivative is small; the original costs what its format and size cost.
            let estimate = DecodeCost.estimate(
                fileDescriptor: descriptor, mimeType: request.mimeType,
                pixelWidth: stored?.file.pixelWidth ?? source.pixelWidth,
                pixelHeight: stored?.file.pixelHeight ?? source.pixelHeight)
            let (_, pictures) = try maker.pool.render(
                request, descriptor: descriptor, memoryEstimate: estimate, timeout: maker.timeout)
            guard let picture = pictures.first else { throw .unavailable("the render helper returned no picture") }
            return ImageResult(
                data: picture.data, mimeType: picture.mimeType, pixelWidth: picture.width, pixelHeight: picture.height,
                origin: "resized")
        } catch {
            if error.isFileFailure { throw .undecodable(error.description) }
            throw .unavailable(error.description)
        }
    }
}
