import Foundation

/// Probes a JPEG: complete when its segments lie inside the file and its end-of-image marker is present.
enum JPEGProbe {
    static func probe(_ source: ByteSource) throws(ProbeError) -> ProbeResult {
        let s = try JPEGWalker.walk(source)
        var metadata = MediaMetadata(container: "jpeg")
        metadata.pixelWidth = s.width
        metadata.pixelHeight = s.height
        // The capture date, best source first: EXIF's camera dates, an XMP packet, IPTC, the GPS time stamp.
        s.exif?.apply(to: &metadata, gpsFallback: false)
        for (date, source) in [(s.xmpDate, MediaMetadata.CaptureDateSource.xmp), (s.iptcDate, .iptc)]
        where metadata.captureDate == nil {
            guard let date else { continue }
            metadata.captureDate = Date(timeIntervalSince1970: date.seconds)
            metadata.captureDateSource = source
            metadata.captureTimeZoneOffset = date.offset
        }
        s.exif?.applyGPSDate(to: &metadata)
        if let broken = s.broken {
            return .rejected(
                .corrupt, message: "not a valid JPEG: \(broken)", mime: "image/jpeg", fileExtension: "jpg",
                metadata: metadata)
        }
        if let missing = s.missingData {
            return ISOBMFFProbe.truncated(
                "JPEG — \(missing)", mime: "image/jpeg", ext: "jpg", metadata: metadata)
        }
        return .accepted(
            .photo, message: "JPEG photo\(metadata.sizeText)", mime: "image/jpeg", fileExtension: "jpg",
            metadata: metadata)
    }
}
