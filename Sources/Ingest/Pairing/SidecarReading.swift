import Foundation
import MediaProbe
import PhotoCatalog

/// What a sidecar file that joined an asset says, read when its group is stored: an XMP sidecar's capture date, GPS,
/// rating; a Takeout JSON's taken time, position and favourite mark. A sidecar that cannot be read is still stored
/// byte for byte; the reason is kept in ``problem`` for the log.
struct SidecarReading: Sendable {
    var xmp: XMPMetadata?
    var takeout: TakeoutMetadata?
    /// Why the sidecar could not be read, when it could not.
    var problem: String?

    init(item: StoreItem) {
        switch SidecarName.kind(of: item.job.originalName) {
        case .xmp?:
            guard let bytes = item.contents(atMost: XMPMetadata.maximumBytes) else {
                problem = "larger than \(XMPMetadata.maximumBytes >> 20) MB, or unreadable"
                return
            }
            do { xmp = try XMPMetadata.parse(bytes) } catch { problem = error.description }
        case .takeout?:
            guard let bytes = item.contents(atMost: TakeoutMetadata.maximumBytes) else {
                problem = "larger than \(TakeoutMetadata.maximumBytes >> 20) MB, or unreadable"
                return
            }
            do { takeout = try TakeoutMetadata.parse(bytes) } catch { problem = error.description }
        default:
            return
        }
    }

    /// Applies what the sidecar says to the media file's metadata through the capture-date precedence (an XMP
    /// sidecar's date first of all, a Takeout time after the file's own dates); a sidecar's position replaces the
    /// file's (an XMP sidecar is where people correct it), a Takeout position only fills a missing one.
    func apply(to metadata: inout MediaMetadata) {
        if let xmp { metadata.adoptXMPSidecar(xmp) }
        if let takeout { metadata.adoptTakeoutSidecar(takeout) }
    }

    /// Sets what the sidecar says beyond dates and places on `request`: the favourite mark (XMP rating 5, Takeout
    /// `favorited`), the XMP title, caption (else Takeout's description), keywords and rating. An earlier sidecar's
    /// values stay.
    func apply(to request: AssetChangeRequest) {
        if xmp?.rating == 5 || takeout?.isFavorite == true { request.isFavorite = true }
        if request.title == nil, let title = xmp?.title { request.title = title }
        if request.caption == nil, let caption = xmp?.caption ?? takeout?.description { request.caption = caption }
        if request.keywords.isEmpty, let keywords = xmp?.keywords, !keywords.isEmpty { request.keywords = keywords }
        if request.rating == nil, let rating = xmp?.rating { request.rating = rating }
    }
}
