import Dispatch
import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem
import Rendering

/// Makes an asset's stored derivatives: opens its current original (beneath the library folder, never following a
/// link), has a render helper decode it once into the preview and the thumbnail, and stores both with the library's
/// normal writer. A file the decoders cannot read gets a recorded failure and stays a stored asset.
public final class DerivativeMaker: Sendable {
    public let library: PhotoLibrary
    public let pool: RenderPool
    /// Longest wait for one file before its helper is killed.
    public let timeout: Duration

    /// What became of one asset.
    public enum Outcome: Sendable, Equatable {
        /// Both derivatives stored.
        case made
        /// The decoders could not read it; the failure is recorded.
        case failed(String)
        /// Not made, and nothing recorded: a kind of file no decoder here handles yet, or an original that cannot
        /// be opened (`verify` reports those); the next run tries again.
        case skipped(String)
        /// The render helper could not be started or broke its protocol: nothing can be made until that is fixed.
        case helperUnavailable(String)
    }

    /// Told what the decoders logged about a file (libvips, libheif, libtiff warnings), for the caller's log.
    let onWarnings: @Sendable (DerivativeSource, [String]) -> Void

    public init(
        library: PhotoLibrary, pool: RenderPool, timeout: Duration = .seconds(120),
        onWarnings: @escaping @Sendable (DerivativeSource, [String]) -> Void = { _, _ in }
    ) {
        self.library = library
        self.pool = pool
        self.timeout = timeout
        self.onWarnings = onWarnings
    }

    /// The outputs of the stored derivatives, largest first (one decode feeds both).
    static let storedOutputs: [(DerivativeKind, RenderRequest.Output)] = [(DerivativeKind.preview, ImageFormat.jpeg), (.thumbnail, .webp)]
        .map { kind, format in
            let side = kind.longestSide
            return (kind, .init(width: side, height: side, mimeType: format.mimeType, quality: format.quality))
        }

    /// Renders `source`'s derivatives (blocking the calling thread while a helper works) without storing them.
    public func render(_ source: DerivativeSource) -> (contents: [DerivativeContent], outcome: Outcome) {
        guard source.mediaType == .image || source.mediaType == .video else {
            return ([], .skipped("\(source.assetLocalIdentifier) is neither a photo nor a video"))
        }
        let descriptor: FileDescriptor
        do { descriptor = try library.openOriginal(source) } catch {
            return ([], .skipped("\(error)"))
        }
        let request = RenderRequest(outputs: Self.storedOutputs.map(\.1), mimeType: source.mimeType)
        let estimate = DecodeCost.estimate(
            fileDescriptor: descriptor, mimeType: source.mimeType, pixelWidth: source.pixelWidth,
            pixelHeight: source.pixelHeight)
        let result: Result<[RenderedPicture], RenderError>
        do throws(RenderError) {
            let (response, pictures) = try pool.render(
                request, descriptor: descriptor, memoryEstimate: estimate, timeout: timeout)
            if !response.warnings.isEmpty { onWarnings(source, response.warnings) }
            result = .success(pictures)
        } catch {
            result = .failure(error)
        }
        switch result {
        case .success(let pictures) where pictures.count == Self.storedOutputs.count:
            let contents = zip(Self.storedOutputs, pictures).map { output, picture in
                DerivativeContent(
                    assetLocalIdentifier: source.assetLocalIdentifier, kind: output.0, sourceSHA256: source.sha256,
                    result: .success(
                        .init(data: picture.data, mimeType: picture.mimeType, pixelWidth: picture.width,
                              pixelHeight: picture.height)))
            }
            return (contents, .made)
        case .success:
            return ([], .helperUnavailable("the render helper answered with the wrong number of pictures"))
        case .failure(let error) where error.isFileFailure:
            let contents = Self.storedOutputs.map { output in
                DerivativeContent(
                    assetLocalIdentifier: source.assetLocalIdentifier, kind: output.0, sourceSHA256: source.sha256,
                    result: .failure(DerivativeFailure(error.description)))
            }
            return (contents, .failed(error.description))
        case .failure(let error):
            return ([], .helperUnavailable(error.description))
        }
    }

    /// Renders and stores the derivatives of `sources`, `pool.size` files at a time, in one writer transaction.
    public func make(_ sources: [DerivativeSource]) async throws -> [Outcome] {
        let rendered = renderAll(sources)
        try await library.storeDerivatives(rendered.flatMap(\.contents))
        return finish(sources, rendered)
    }

    /// Makes the derivatives that the assets `identifiers` lack (an import's new assets), `batch` at a time, telling
    /// `progress` how many of them are done. Returns what became of each asset that needed them.
    public func makeMissing(
        for identifiers: [String], batch: Int = 16, progress: (_ done: Int, _ total: Int) -> Void = { _, _ in }
    ) async throws -> [(assetLocalIdentifier: String, outcome: Outcome)] {
        var results: [(String, Outcome)] = []
        var start = 0
        var sources: [DerivativeSource] = []
        // Looked up a few hundred at a time: one query each, bounded memory for any import.
        while start < identifiers.count {
            let chunk = Array(identifiers[start..<min(start + 512, identifiers.count)])
            sources += try library.derivativeSources(missingFor: chunk)
            start += chunk.count
        }
        progress(0, sources.count)
        var index = 0
        while index < sources.count {
            let slice = Array(sources[index..<min(index + batch, sources.count)])
            let outcomes = try await make(slice)
            results += zip(slice.map(\.assetLocalIdentifier), outcomes).map { ($0, $1) }
            index += slice.count
            progress(index, sources.count)
            if case .helperUnavailable = outcomes.last { break }
        }
        return results
    }

    /// ``make(_:)`` for a thread that may block (a background render thread).
    public func makeAndWait(_ sources: [DerivativeSource]) throws -> [Outcome] {
        let rendered = renderAll(sources)
        try library.storeDerivativesAndWait(rendered.flatMap(\.contents))
        return finish(sources, rendered)
    }

    /// `sources` rendered, `pool.size` at a time, in two lanes: the small ones (``isSmall(_:)``) and the large ones
    /// side by side, each lane with threads of its own, so that large decodes waiting for memory never hold back a
    /// small one.
    private func renderAll(_ sources: [DerivativeSource]) -> [(contents: [DerivativeContent], outcome: Outcome)] {
        let indices = Array(sources.indices)
        let small = indices.filter { isSmall(sources[$0]) }
        let large = indices.filter { !isSmall(sources[$0]) }
        guard !small.isEmpty, !large.isEmpty else {
            return Self.concurrently(sources, width: pool.size) { self.render($0) }
        }
        let lanes: [[Int]] = [small, large]
        let results = Self.concurrently(lanes, width: 2) { lane in
            Self.concurrently(lane.map { sources[$0] }, width: pool.size) { self.render($0) }
        }
        var ordered: [(contents: [DerivativeContent], outcome: Outcome)?] = Array(repeating: nil, count: sources.count)
        for (lane, rendered) in zip(lanes, results) {
            for (index, result) in zip(lane, rendered) { ordered[index] = result }
        }
        return ordered.map { $0! }
    }

    /// Whether `source` is a small decode by its worst case (a phone's photo), which the budget lets through in a
    /// lane of its own.
    public func isSmall(_ source: DerivativeSource) -> Bool {
        DecodeCost.worstCase(mimeType: source.mimeType, pixelWidth: source.pixelWidth, pixelHeight: source.pixelHeight)
            <= pool.budget.smallDecodeBytes
    }

    /// After the pictures are stored: the motion of the Live Photos among them; the outcomes.
    private func finish(_ sources: [DerivativeSource], _ rendered: [(contents: [DerivativeContent], outcome: Outcome)])
        -> [Outcome]
    {
        makeLivePhotoMotion(for: zip(sources, rendered).filter { $0.1.outcome == .made }.map(\.0))
        return rendered.map(\.outcome)
    }

    /// `body` of each element on `width` threads at once; results in order.
    static func concurrently<T: Sendable, R: Sendable>(_ items: [T], width: Int, _ body: @Sendable (T) -> R) -> [R] {
        let results = ResultSlots<R>(count: items.count)
        let next = NextIndex()
        DispatchQueue.concurrentPerform(iterations: min(max(1, width), items.count)) { _ in
            while let index = next.take(below: items.count) {
                results.set(index, body(items[index]))
            }
        }
        return results.values()
    }
}
