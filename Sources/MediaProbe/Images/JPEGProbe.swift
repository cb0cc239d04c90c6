import FoundationEssentials

/// Probes a JPEG: complete when its segments lie inside the file and its end-of-image marker is present.
enum JPEGProbe {
    static func probe(_ source: ByteSource) throws(ProbeError) -> ProbeResult {
        let s = try JPEGWalker.walk(source)
        var metadata = MediaMetadata(container: "jpeg")
        metadata.pixelWidth = s.width
        metadata.pixelHeight = s.height
        metadata.isMotionPhoto = s.trailingMovie
        s.embedded.apply(to: &metadata)
        if let broken = s.broken {
            return .rejected(
                .corrupt, message: "not a valid JPEG: \(broken)", mime: "image/jpeg", fileExtension: "jpg",
                metadata: metadata)
        }
        if let shortfall = s.dataShortfall {
            return .rejected(
                .corrupt, message: "not a valid JPEG: \(shortfall)", mime: "image/jpeg", fileExtension: "jpg",
                metadata: metadata)
        }
        if let missing = s.missingData {
            return ISOBMFFProbe.truncated(
                "JPEG — \(missing)", mime: "image/jpeg", ext: "jpg", metadata: metadata)
        }
        let stray =
            s.strayBytes > 0
            ? " (\(s.strayBytes) stray byte\(s.strayBytes == 1 ? "" : "s") before markers skipped, as JPEG decoders do)"
            : ""
        return .accepted(
            .photo, message: "JPEG photo\(metadata.sizeText)\(stray)", mime: "image/jpeg", fileExtension: "jpg",
            metadata: metadata)
    }
}
