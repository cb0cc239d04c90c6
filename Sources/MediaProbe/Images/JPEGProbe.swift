import Foundation

/// Probes a JPEG: complete when its segments lie inside the file and its end-of-image marker is present.
enum JPEGProbe {
    static func probe(_ source: ByteSource) throws(ProbeError) -> ProbeResult {
        let s = try JPEGWalker.walk(source)
        var metadata = MediaMetadata(container: "jpeg")
        metadata.pixelWidth = s.width
        metadata.pixelHeight = s.height
        metadata.isMotionPhoto = s.trailingMovie
        // Every date the file records is offered; the precedence of their sources picks one.
        s.exif?.apply(to: &metadata)
        if let gps = s.xmpGPSDate { metadata.recordGPSDate(seconds: gps) }
        for (date, source) in [(s.xmpDate, MediaMetadata.CaptureDateSource.xmp), (s.iptcDate, .iptc)] {
            guard let date else { continue }
            metadata.offerCaptureDate(seconds: date.seconds, offset: date.offset, isLocalTime: true, source: source)
        }
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
