import MediaProbe
import PhotoCatalog

/// What the probe learned, written onto a creation request: the one mapping from MediaProbe's metadata to the
/// catalog's asset properties, used by the daemon, `import`, and programs that save through the library API (the
/// `save-to-album` example), so that a file saved either way gets the same capture date, size and location.
public enum AssetMetadata {
    /// Sets the capture date (with its source, its UTC offset and whether it is a floating local time), the displayed pixel size, the duration, the location and the Live
    /// Photo content identifier from `metadata` on `request`.
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
