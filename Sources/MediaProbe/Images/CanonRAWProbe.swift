/// Probes Canon CR3 RAW photos: ISO-BMFF with the `crx ` brand whose `CRAW` "video" tracks hold the image data.
/// They are photos, never movies; their EXIF lives in the `CMT1`…`CMT4` boxes of Canon's `uuid` box in `moov`.
enum CanonRAWProbe {
    static let mime = "image/x-canon-cr3"
    /// The user type of Canon's metadata box: 85c0b687-820f-11e0-8111-f4ce462b6a48.
    static let canonUUID: [UInt8] = [
        0x85, 0xC0, 0xB6, 0x87, 0x82, 0x0F, 0x11, 0xE0, 0x81, 0x11, 0xF4, 0xCE, 0x46, 0x2B, 0x6A, 0x48,
    ]

    static func probe(_ source: ByteSource, top: TopLevelBoxes) throws(ProbeError) -> ProbeResult {
        var metadata = MediaMetadata(container: "cr3")
        func truncated(_ message: String) -> ProbeResult {
            ISOBMFFProbe.truncated(message, mime: mime, ext: "cr3", metadata: metadata)
        }
        func broken(_ message: String) -> ProbeResult {
            ISOBMFFProbe.broken(message, mime: mime, ext: "cr3", metadata: metadata)
        }
        guard let moovBox = top.moov else {
            if let truncation = top.truncation { return truncated("there is no moov box yet; \(truncation)") }
            if top.mdatCount == 0 { return truncated("the file ends before its moov box") }
            return broken("the CR3 file has no moov box, so its image data cannot be located")
        }
        guard top.isComplete(moovBox) else { return truncated(top.truncation ?? "the moov box is cut off") }
        guard moovBox.size <= ISOBMFFProbe.maxMovieHeader, let (bytes, moov) = try ISOBMFFProbe.load(source, moovBox)
        else { return broken("the moov box of the CR3 file cannot be read") }
        let movie: Movie
        do {
            movie = try MovieParser.parse(bytes, moov: moov)
        } catch {
            return broken("the CR3 structure (moov) is malformed: \(error)")
        }
        try readMetadata(bytes, moov: moov, into: &metadata)
        if metadata.pixelWidth == nil, let entry = movie.tracks.first?.entries.first, let w = entry.width,
            let h = entry.height
        {
            metadata.pixelWidth = w
            metadata.pixelHeight = h
        }
        if let truncation = top.truncation { return truncated(truncation) }
        if let problem = top.broken { return broken("the box structure is broken: \(problem)") }
        // The image data lives in `mdat`, whose completeness the box walk checked. Sample sizes are not held
        // against the file size: tools that shrink CR3 files for tests (ExifTool's samples) keep the original
        // sizes. Each track's data must start inside the file, though.
        guard top.mdatCount > 0, movie.tracks.contains(where: { $0.sampleCount > 0 }) else {
            return truncated("the CR3 file holds no image data (mdat) yet")
        }
        for track in movie.tracks where track.sampleCount > 0 && (track.dataStart ?? Int64.max) >= source.size {
            return truncated("the image data of track \(track.id) starts past the end of the file")
        }
        return .accepted(
            .photo, message: "camera RAW photo (Canon CR3)\(metadata.sizeText)", mime: mime, fileExtension: "cr3",
            metadata: metadata)
    }

    /// Reads `CMT1` (IFD0), `CMT2` (EXIF IFD) and `CMT4` (GPS IFD), each a TIFF stream of its own.
    private static func readMetadata(_ bytes: [UInt8], moov: BoxHeader, into metadata: inout MediaMetadata)
        throws(ProbeError)
    {
        var children = BoxIterator(bytes, payloadOf: moov)
        guard
            let canon = ((try? children.all(lenient: true)) ?? []).first(where: {
                $0.type == "uuid" && $0.userType == canonUUID
            })
        else { return }
        var boxes = BoxIterator(bytes, payloadOf: canon)
        var fields = ExifFields()
        for box in (try? boxes.all(lenient: true)) ?? [] {
            let range = Int(box.payloadOffset)..<Int(box.end)
            let kind: TIFFWalker.Kind
            switch box.type {
            case "CMT1": kind = .image(depth: 0)
            case "CMT2": kind = .exif
            case "CMT4": kind = .gps
            default: continue
            }
            let found = try TIFFWalker.walk(TIFFStream(bytes: bytes, range: range), structure: false, firstKind: kind)
                .exif
            fields.merge(found)
        }
        EmbeddedMetadata(exif: fields).apply(to: &metadata)
        if let w = fields.pixelXDimension, let h = fields.pixelYDimension {
            metadata.pixelWidth = w
            metadata.pixelHeight = h
        }
    }
}
