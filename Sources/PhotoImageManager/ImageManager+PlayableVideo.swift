import FoundationEssentials
import MediaProbe
import PhotoCatalog
import PhotodropSystem
import Rendering

/// A video a browser plays: the original when it already is one (H.264 in MP4 or QuickTime), else the stored
/// playable version (H.264, at most 720p), made the first time it is asked for and recorded like the pictures.
extension ImageManager {
    /// Video codecs every browser plays, by the four-character codes MediaProbe reports.
    public static let browserPlayableCodecs: Set<String> = ["avc1", "avc3", "h264"]

    /// Whether a browser plays this video as it is: H.264 in MP4 or QuickTime (a MIME type nil when not known).
    static func isBrowserPlayable(codec: String?, mimeType: String?) -> Bool {
        guard let codec, browserPlayableCodecs.contains(codec) else { return false }
        return mimeType.map { ["video/mp4", "video/quicktime"].contains($0) } ?? true
    }

    /// The file to play for a video asset, or for a Live Photo's motion (`livePhotoMotion`).
    public func playableVideo(of identifier: String, livePhotoMotion: Bool = false) throws(ImageManagerError)
        -> VideoFile
    {
        let assets: FetchResult<Asset>
        do { assets = try Asset.fetchAssets(withLocalIdentifiers: [identifier], library: library) } catch {
            throw .unavailable("\(error)")
        }
        guard let asset = assets.firstObject else { throw .noSuchAsset(identifier) }
        let types: [AssetResourceType] = livePhotoMotion ? [.pairedVideo] : [.fullSizeVideo, .video]
        guard let movie = types.lazy.compactMap({ type in asset.resources.first { $0.type == type } }).first else {
            throw .invalidRequest(
                livePhotoMotion ? "\(identifier) is not a Live Photo (it has no paired movie)" : "\(identifier) is not a video")
        }
        let original = try videoFile(at: movie.fileURL, mimeType: movie.mimeType)
        if Self.isBrowserPlayable(codec: original.videoCodec, mimeType: original.mimeType ?? "") { return original }
        let recorded: [Derivative]
        do { recorded = try library.derivatives(ofAsset: identifier) } catch { throw .unavailable("\(error)") }
        var stored: Derivative.File?
        if let made = recorded.first(where: { $0.kind == .playableVideo && $0.sourceSHA256 == movie.sha256 }) {
            if let failure = made.failure { throw .undecodable(failure) }
            stored = made.file.flatMap { library.openDerivative($0) != nil ? $0 : nil }
        }
        let file: Derivative.File
        if let stored { file = stored } else { file = try maker.makePlayableVideo(of: asset, movie: movie) }
        return VideoFile(
            fileURL: file.fileURL, mimeType: file.mimeType, duration: original.duration, pixelWidth: file.pixelWidth,
            pixelHeight: file.pixelHeight, videoCodec: "avc1", audioCodec: original.audioCodec == "mp4a" ? "mp4a" : nil)
    }
}

extension DerivativeMaker {
    /// The longest a playable version of a video may run (a Live Photo's motion is about three seconds).
    public static let playableVideoSeconds: Double = 3 * 3600

    /// Transcodes `movie` (a resource of `asset`) into its playable version and stores it; a failure is recorded.
    public func makePlayableVideo(of asset: Asset, movie: AssetResource) throws(ImageManagerError) -> Derivative.File {
        let descriptor: FileDescriptor
        do { descriptor = try library.openResource(movie) } catch {
            throw .unavailable("the movie of \(asset.localIdentifier) cannot be opened: \(error)")
        }
        var request = RenderRequest(
            outputs: [.init(width: DerivativeKind.playableVideo.longestSide, height: 0, mimeType: "video/mp4", quality: 23)],
            mimeType: movie.mimeType ?? "video/quicktime")
        request.maximumSeconds = Self.playableVideoSeconds
        let result: Result<DerivativeContent.Picture, DerivativeFailure>
        do throws(RenderError) {
            // A long video takes a while to transcode: an hour of time limit instead of two minutes.
            // Decoding the original and encoding the 720p copy: the decoder's frames and the encoder's look-ahead.
            let estimate = DecodeCost.estimate(
                fileDescriptor: descriptor, mimeType: request.mimeType, pixelWidth: asset.pixelWidth,
                pixelHeight: asset.pixelHeight) + (64 << 20)
            let (_, pictures) = try pool.render(
                request, descriptor: descriptor, memoryEstimate: estimate, timeout: .seconds(3600))
            guard let video = pictures.first else { throw .unavailable("the render helper returned no video") }
            result = .success(
                .init(data: video.data, mimeType: video.mimeType, pixelWidth: video.width, pixelHeight: video.height))
        } catch {
            guard error.isFileFailure else { throw .unavailable(error.description) }
            result = .failure(DerivativeFailure(error.description))
        }
        let recorded: [Derivative]
        do {
            recorded = try library.storeDerivativesAndWait([
                DerivativeContent(
                    assetLocalIdentifier: asset.localIdentifier, kind: .playableVideo, sourceSHA256: movie.sha256,
                    result: result)
            ])
        } catch {
            throw .unavailable("\(error)")
        }
        if case .failure(let failure) = result { throw .undecodable(failure.message) }
        guard let file = recorded.first?.file else { throw .unavailable("the playable video was not recorded") }
        return file
    }
}

extension DerivativeMaker {
    /// At ingest, a Live Photo's motion gets its playable version when browsers cannot play the movie (an iPhone's
    /// HEVC): a few seconds, made once, so that showing the Live Photo never waits for a transcode. Failures are
    /// recorded; the pictures are unaffected.
    func makeLivePhotoMotion(for sources: [DerivativeSource]) {
        let identifiers = sources.map(\.assetLocalIdentifier)
        guard let assets = try? Asset.fetchAssets(withLocalIdentifiers: identifiers, library: library) else { return }
        for asset in assets {
            guard let movie = asset.resources.first(where: { $0.type == .pairedVideo }),
                let recorded = try? library.derivatives(ofAsset: asset.localIdentifier),
                !recorded.contains(where: { $0.kind == .playableVideo && $0.sourceSHA256 == movie.sha256 })
            else { continue }
            let codec = (try? MediaProber().probe(path: movie.fileURL.path))?.metadata.videoCodec
            if ImageManager.isBrowserPlayable(codec: codec, mimeType: movie.mimeType) { continue }
            _ = try? makePlayableVideo(of: asset, movie: movie)
        }
    }
}
