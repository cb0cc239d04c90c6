import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem

/// The original's bytes, a video's playable file, and a Live Photo's two halves (PhotoKit's
/// `requestImageDataAndOrientation`, `requestAVAsset`/`requestPlayerItem` and `requestLivePhoto`). On Linux there is
/// no AVFoundation: a video is handed out as its stored file with what a player needs to know about it.
extension ImageManager {
    /// The largest original read into memory by ``requestImageDataAndOrientation(for:options:resultHandler:)``.
    public static let maximumImageDataBytes: Int64 = 512 << 20

    /// The bytes of the photo's original (its edited rendition with ``ImageRequestOptions/Version/current``), its
    /// uniform type identifier and its EXIF orientation (1…8, 1 when it has none), on the manager's queue.
    @discardableResult
    public func requestImageDataAndOrientation(
        for asset: Asset, options: ImageRequestOptions? = nil,
        resultHandler: @escaping @Sendable (Data?, String?, Int, ImageResultInfo) -> Void
    ) -> ImageRequestID {
        let identifier = asset.localIdentifier
        let unedited = options?.version == .original
        return respond { () throws(ImageManagerError) in
            try self.imageData(of: identifier, unedited: unedited)
        } resultHandler: { found, info in
            resultHandler(found?.data, found?.source.uniformTypeIdentifier, found?.orientation ?? 1, info)
        }
    }

    /// ``requestImageDataAndOrientation(for:options:resultHandler:)``, synchronously.
    public func imageData(of identifier: String, unedited: Bool = false) throws(ImageManagerError)
        -> (data: Data, source: DerivativeSource, orientation: Int)
    {
        let source = try source(of: identifier, unedited: unedited)
        guard source.mediaType == .image else { throw .invalidRequest("\(identifier) is a video, not a photo") }
        guard source.byteCount <= Self.maximumImageDataBytes else {
            throw .invalidRequest("the original of \(identifier) is larger than \(Self.maximumImageDataBytes) bytes")
        }
        let descriptor: FileDescriptor
        do { descriptor = try library.openOriginal(source) } catch { throw .unavailable("\(error)") }
        var data = Data(count: Int(source.byteCount))
        let read = data.withUnsafeMutableBytes { try? descriptor.readFully(into: $0, at: 0) }
        guard read == data.count else { throw .unavailable("the original of \(identifier) could not be read whole") }
        let probed = try? MediaProber().probe(
            fileDescriptor: descriptor, fileSize: source.byteCount, prefix: nil)
        return (data, source, probed?.metadata.orientation ?? 1)
    }

    /// A video asset's stored file and what a player needs (`requestAVAsset`/`requestPlayerItem`): its duration,
    /// pixel size and codecs, read from the file.
    public func videoFile(of identifier: String, unedited: Bool = false) throws(ImageManagerError) -> VideoFile {
        let source = try source(of: identifier, unedited: unedited)
        guard source.mediaType == .video else { throw .invalidRequest("\(identifier) is not a video") }
        return try describeVideo(
            mimeType: source.mimeType, path: library.url.appendingPathComponent(source.relativePath))
    }

    /// ``videoFile(of:unedited:)`` on the manager's queue.
    @discardableResult
    public func requestPlayerItem(
        forVideo asset: Asset, options: ImageRequestOptions? = nil,
        resultHandler: @escaping @Sendable (VideoFile?, ImageResultInfo) -> Void
    ) -> ImageRequestID {
        let identifier = asset.localIdentifier
        let unedited = options?.version == .original
        return respond({ () throws(ImageManagerError) in try self.videoFile(of: identifier, unedited: unedited) },
                       resultHandler: resultHandler)
    }

    /// A Live Photo (`requestLivePhoto`): the photo at the target size and its paired movie.
    public func livePhoto(
        of identifier: String, targetSize: PixelSize, contentMode: ContentMode,
        options: ImageRequestOptions = ImageRequestOptions()
    ) throws(ImageManagerError) -> LivePhoto {
        let assets: FetchResult<Asset>
        do { assets = try Asset.fetchAssets(withLocalIdentifiers: [identifier], library: library) } catch {
            throw .unavailable("\(error)")
        }
        guard let asset = assets.firstObject else { throw .noSuchAsset(identifier) }
        guard let movie = asset.resources.first(where: { $0.type == .pairedVideo }) else {
            throw .invalidRequest("\(identifier) is not a Live Photo (it has no paired movie)")
        }
        let photo = try image(for: identifier, targetSize: targetSize, contentMode: contentMode, options: options)
        return LivePhoto(photo: photo, video: try describeVideo(mimeType: movie.mimeType, path: movie.fileURL))
    }

    // MARK: Helpers

    /// Runs `work` on the manager's queue and hands its result (or error) to `resultHandler`.
    func respond<Result: Sendable>(
        _ work: @escaping @Sendable () throws(ImageManagerError) -> Result,
        resultHandler: @escaping @Sendable (Result?, ImageResultInfo) -> Void
    ) -> ImageRequestID {
        let id = nextRequestID()
        queue.async {
            var info = ImageResultInfo(requestID: id, isDegraded: false, isCancelled: false, error: nil)
            do throws(ImageManagerError) {
                resultHandler(try work(), info)
            } catch {
                info.error = error
                resultHandler(nil, info)
            }
        }
        return id
    }

    func nextRequestID() -> ImageRequestID { ImageRequestID(rawValue: requestCounter.add(1, ordering: .relaxed).oldValue) }

    func source(of identifier: String, unedited: Bool) throws(ImageManagerError) -> DerivativeSource {
        let found: DerivativeSource?
        do { found = try library.derivativeSource(ofAsset: identifier, unedited: unedited) } catch {
            throw .unavailable("\(error)")
        }
        guard let found else { throw .noSuchAsset(identifier) }
        return found
    }

    func videoFile(at path: URL, mimeType: String?) throws(ImageManagerError) -> VideoFile {
        try describeVideo(mimeType: mimeType, path: path)
    }

    private func describeVideo(mimeType: String?, path: URL) throws(ImageManagerError) -> VideoFile {
        let probed: ProbeResult
        do { probed = try MediaProber().probe(path: path.path) } catch {
            throw .unavailable("the video \(path.path) cannot be read: \(error)")
        }
        let metadata = probed.metadata
        return VideoFile(
            fileURL: path, mimeType: mimeType ?? probed.mime, duration: metadata.duration ?? 0,
            pixelWidth: metadata.pixelWidth ?? 0, pixelHeight: metadata.pixelHeight ?? 0,
            videoCodec: metadata.videoCodec, audioCodec: metadata.audioCodec)
    }
}
