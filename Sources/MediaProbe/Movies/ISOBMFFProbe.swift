import FoundationEssentials

/// Probes ISO-BMFF and QuickTime files: movies (MOV, MP4, M4V, 3GP, also fragmented and without `ftyp`), HEIF/AVIF
/// photos and Canon CR3 RAW photos, told apart by brand and structure, never by name.
enum ISOBMFFProbe {
    /// The largest `moov` (or HEIF `meta`) read into memory.
    static let maxMovieHeader: Int64 = 64 << 20
    static let maxMetaBox: Int64 = 16 << 20

    /// Brands that make a file a still image (or image sequence), not a movie.
    static let imageBrands: Set<FourCC> = [
        "heic", "heix", "heim", "heis", "hevc", "hevx", "hevm", "hevs", "mif1", "msf1", "mif2", "avif", "avis", "avio",
        "jpgs", "MiHE", "MiHA", "MiHB",
    ]

    static func probe(_ source: ByteSource, policy: VideoPolicy) throws(ProbeError) -> ProbeResult {
        let top = try TopLevelBoxes.walk(source)
        let fileType = top.fileType
        if let fileType, fileType.has("crx ") {
            return try CanonRAWProbe.probe(source, top: top)
        }
        let imageBrand = fileType.map { imageBrands.contains($0.major) } ?? false
        if imageBrand || (top.moov == nil && top.meta != nil) {
            return try HEIFProbe.probe(source, top: top)
        }
        return try MovieProbe.probe(source, top: top, policy: policy)
    }

    /// Reads a whole top-level box into memory; the returned header's offsets are indices into the bytes.
    static func load(_ source: ByteSource, _ box: BoxHeader) throws(ProbeError) -> (bytes: [UInt8], box: BoxHeader)? {
        guard box.size <= Int(Int32.max), let bytes = try source.read(at: box.offset, count: Int(box.size)) else {
            return nil
        }
        return (bytes, BoxHeader(type: box.type, offset: 0, headerSize: box.headerSize, size: box.size, userType: nil))
    }

    /// `corrupt`, for files whose data is missing at the end.
    static func truncated(_ message: String, mime: String, ext: String, metadata: MediaMetadata) -> ProbeResult {
        .rejected(
            .corrupt, message: "truncated: \(message)",
            mime: mime, fileExtension: ext, isTruncated: true, metadata: metadata)
    }

    /// `corrupt`, for structurally broken files.
    static func broken(_ message: String, mime: String, ext: String, metadata: MediaMetadata) -> ProbeResult {
        .rejected(.corrupt, message: message, mime: mime, fileExtension: ext, metadata: metadata)
    }
}

extension MediaMetadata {
    /// `640×480`, or an empty string when the size is unknown.
    var sizeText: String {
        guard let pixelWidth, let pixelHeight else { return "" }
        return " \(pixelWidth)×\(pixelHeight)"
    }
}
