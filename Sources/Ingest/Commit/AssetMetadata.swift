import MediaProbe
import PhotoCatalog

/// What the probe learned, written onto a creation request: the one mapping from MediaProbe's metadata to the
/// catalog's asset properties, used by the daemon, `import`, and programs that save through the library API (the
/// `save-to-album` example), so that a file saved either way gets the same capture date, size and location.
public enum AssetMetadata {
    /// Sets the capture date (with its source, its UTC offset and whether it is a floating local time), the displayed
    /// pixel size, the duration, the location, the Live Photo content identifier, the camera, the title, caption,
    /// keywords and rating, and the ``CaptureDetails`` from `metadata` on `request`; what `metadata` does not know
    /// stays as it was.
    public static func apply(_ metadata: MediaMetadata, to request: AssetChangeRequest) {
        if let date = metadata.captureDate {
            request.creationDate = date
            request.creationDateSource = metadata.captureDateSource?.rawValue
            request.creationTimeZoneOffset = metadata.captureTimeZoneOffset
            request.isCreationDateFloating = metadata.captureDateIsFloating
        }
        if let size = metadata.displayedPixelSize {
            request.pixelWidth = size.width
            request.pixelHeight = size.height
        }
        if let duration = metadata.duration, duration.isFinite, duration >= 0 { request.duration = duration }
        if let location = metadata.location {
            let converted = Location(
                latitude: location.latitude, longitude: location.longitude, altitude: location.altitude)
            if converted.isValid { request.location = converted }
        }
        if let identifier = metadata.contentIdentifier { request.contentIdentifier = identifier }
        if let make = metadata.make, !make.isEmpty { request.cameraMake = make }
        if let model = metadata.model, !model.isEmpty { request.cameraModel = model }
        if metadata.isMotionPhoto, let creation = request as? AssetCreationRequest { creation.isMotionPhoto = true }
        applyDescription(metadata, to: request)
        let details = captureDetails(metadata)
        if !details.isEmpty { request.captureDetails = details }
    }

    /// Sets the title, caption, keywords and rating that `metadata` has (the file's own, or a sidecar's adopted into
    /// it); leaves the request's others as they are.
    static func applyDescription(_ metadata: MediaMetadata, to request: AssetChangeRequest) {
        if let title = metadata.title { request.title = title }
        if let caption = metadata.caption { request.caption = caption }
        if !metadata.keywords.isEmpty { request.keywords = metadata.keywords }
        if let rating = metadata.rating { request.rating = rating }
    }

    /// The catalog's ``CaptureDetails`` of what a probe found.
    public static func captureDetails(_ metadata: MediaMetadata) -> CaptureDetails {
        CaptureDetails(
            fNumber: metadata.fNumber, exposureTime: metadata.exposureTime, iso: metadata.iso,
            focalLength: metadata.focalLength, focalLength35mm: metadata.focalLength35mm,
            flashFired: metadata.flashFired, lensMake: metadata.lensMake, lensModel: metadata.lensModel,
            artist: metadata.artist, copyright: metadata.copyright, imageDirection: metadata.imageDirection,
            frameRate: metadata.frameRate)
    }

    /// What the library records of `asset`'s capture date and place, as metadata that sidecars can be applied to
    /// through the same precedence as at creation (a late XMP sidecar's date wins over the file's EXIF date; a late
    /// Takeout time only over weaker sources).
    static func recorded(of asset: Asset) -> MediaMetadata {
        MediaMetadata(
            captureDate: asset.creationDate,
            captureDateSource: asset.creationDateSource.flatMap(MediaMetadata.CaptureDateSource.init(rawValue:)),
            captureTimeZoneOffset: asset.creationTimeZoneOffset, captureDateIsFloating: asset.isCreationDateFloating,
            location: asset.location.map {
                MediaMetadata.Location(latitude: $0.latitude, longitude: $0.longitude, altitude: $0.altitude)
            })
    }
}
