import FoundationEssentials
import MediaProbe
import PhotoCatalog

/// What a sidecar file that joined an asset says, read when its group is stored: an XMP sidecar's capture date, GPS,
/// title, caption, keywords, rating; a Takeout JSON's taken time, position, description and favourite mark. A sidecar that cannot be read is still stored
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

    /// Applies what the sidecars of one asset say to its media file's metadata: XMP sidecars first (their date
    /// first of all, their position, title, caption, keywords and rating over the file's), then Takeout JSON (its
    /// time after the file's own dates, its position only where none is known, its description where no XMP sidecar
    /// gave a caption).
    static func apply(_ readings: [SidecarReading], to metadata: inout MediaMetadata) {
        let xmp = readings.compactMap(\.xmp)
        metadata.adoptXMPSidecars(xmp)
        let xmpCaption = xmp.contains { $0.caption != nil }
        for takeout in readings.compactMap(\.takeout) {
            metadata.adoptTakeoutSidecar(takeout, keepCaption: xmpCaption)
        }
    }

    /// Sets the favourite mark a sidecar gives (XMP rating 5, Takeout `favorited`) on `request`.
    func apply(to request: AssetChangeRequest) {
        if xmp?.rating == 5 || takeout?.isFavorite == true { request.isFavorite = true }
    }
}
