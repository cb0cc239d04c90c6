/// Probes HEIF and AVIF photos (also image sequences and motion photos with extra top-level boxes): the primary item
/// must be a supported image whose data, like every item's, lies inside the file.
enum HEIFProbe {
    /// Primary item types Apple devices show.
    static let supportedCodecs: Set<FourCC> = ["hvc1", "av01", "jpeg"]
    /// Derived items whose inputs are referenced with `dimg`.
    static let derivedTypes: Set<FourCC> = ["grid", "iden", "iovl", "tmap"]

    static func probe(_ source: ByteSource, top: TopLevelBoxes) throws(ProbeError) -> ProbeResult {
        let major = top.fileType?.major ?? "mif1"
        var codec: FourCC?
        var metadata = MediaMetadata(container: "heif")
        var mime: String {
            switch major {
            case "heic", "heix", "heim", "heis": return "image/heic"
            case "hevc", "hevx", "hevm", "hevs": return "image/heic-sequence"
            case "msf1": return "image/heif-sequence"
            case "avif", "avis", "avio": return "image/avif"
            default: return codec == "av01" ? "image/avif" : "image/heif"
            }
        }
        var ext: String {
            codec == "av01" || major == "avif" || major == "avis" ? "avif" : codec == "hvc1" ? "heic" : "heif"
        }
        func truncated(_ message: String) -> ProbeResult {
            ISOBMFFProbe.truncated(message, mime: mime, ext: ext, metadata: metadata)
        }
        func broken(_ message: String) -> ProbeResult {
            ISOBMFFProbe.broken(message, mime: mime, ext: ext, metadata: metadata)
        }
        if let problem = top.broken, top.meta == nil { return broken("the box structure is broken: \(problem)") }
        if top.meta == nil, let moovBox = top.moov {
            return try sequence(source, top: top, moov: moovBox, mime: mime)
        }
        guard let metaBox = top.meta else {
            if let truncation = top.truncation {
                return truncated("there is no item information (meta) yet; \(truncation)")
            }
            if top.mdatCount == 0 { return truncated("the file ends before its item information (meta box)") }
            return broken("the HEIF file has no item information (meta box), so it holds no image")
        }
        guard top.isComplete(metaBox) else {
            return truncated("the item information (meta) is cut off: \(top.truncation ?? "it runs past the end")")
        }
        guard metaBox.size <= ISOBMFFProbe.maxMetaBox else {
            return broken("the item information (meta) is \(metaBox.size >> 20) MB, more than photodrop reads")
        }
        guard let (bytes, meta) = try ISOBMFFProbe.load(source, metaBox) else {
            return truncated("the file shrank while it was read")
        }
        let info: HEIFParser.Info
        do {
            info = try HEIFParser.parse(bytes, meta: meta)
        } catch {
            return broken("the HEIF item structure is malformed: \(error)")
        }
        guard let primary = info.primaryID else { return broken("the HEIF file names no primary image (pitm)") }
        guard let primaryType = info.itemTypes[primary] else {
            return broken("the primary item \(primary) has no item information (infe)")
        }
        var required: [UInt32] = [primary]
        codec = primaryType
        if derivedTypes.contains(primaryType) {
            let inputs = info.referenced(from: primary, type: "dimg")
            guard let first = inputs.first else {
                return broken("the primary '\(primaryType)' image \(primary) refers to no input images (dimg)")
            }
            required += inputs
            codec = info.itemTypes[first]
            if let c = codec, derivedTypes.contains(c) {
                let nested = info.referenced(from: first, type: "dimg")
                required += nested
                codec = nested.first.flatMap { info.itemTypes[$0] }
            }
        }
        // Size, orientation, EXIF and XMP are metadata: collect them before judging so rejections carry them.
        for property in info.properties(of: primary) {
            if case .spatialExtent(let w, let h) = property, w > 0, h > 0, w <= 1_000_000, h <= 1_000_000 {
                metadata.pixelWidth = w
                metadata.pixelHeight = h
            }
        }
        metadata.orientation = HEIFParser.orientation(info.properties(of: primary))
        metadata.isMotionPhoto = top.hasMotionPhotoVideo
        if codec == "av01" { metadata.container = "avif" }
        try readMetadata(source, bytes: bytes, info: info, primary: primary, into: &metadata)
        guard let codec, supportedCodecs.contains(codec) else {
            let name = codec.map { "'\($0)'" } ?? "an unknown codec"
            return .rejected(
                .unsupportedType,
                message: "HEIF image coded as \(name) is not supported on Apple devices; convert it to HEIC or JPEG",
                mime: mime, fileExtension: "heif", metadata: metadata)
        }
        for item in required where info.locations[item] == nil {
            return broken("item \(item) of the primary image has no data location (iloc)")
        }
        for (item, location) in info.locations.sorted(by: { $0.key < $1.key }) {
            if let problem = check(location, item: item, type: info.itemTypes[item], info: info, size: source.size) {
                return problem.missing ? truncated(problem.message) : broken(problem.message)
            }
        }
        if let truncation = top.truncation { return truncated(truncation) }
        if let problem = top.broken { return broken("the box structure is broken: \(problem)") }
        if let moovBox = top.moov, let (movieBytes, moov) = try ISOBMFFProbe.load(source, moovBox),
            let movie = try? MovieParser.parse(movieBytes, moov: moov)
        {
            for track in movie.tracks where track.dataEnd > source.size {
                return truncated(
                    "the image sequence's samples reach byte \(track.dataEnd) but the file has \(source.size) bytes")
            }
            if let video = movie.videoTracks.first, video.sampleCount > 1 {
                metadata.isAnimated = true
                metadata.frameCount = video.sampleCount
                metadata.duration = movie.durationSeconds
            }
        }
        let kind = codec == "av01" ? "AVIF" : codec == "hvc1" ? "HEIC" : "HEIF"
        let animated = metadata.isAnimated ? "animated " : ""
        return .accepted(
            .photo, message: "\(animated)\(kind) photo\(metadata.sizeText)", mime: mime, fileExtension: ext,
            metadata: metadata)
    }

    /// An image sequence (`msf1`, `hevc`, `avis`) without still items: its frames are samples of a `pict`/`vide`
    /// track.
    private static func sequence(_ source: ByteSource, top: TopLevelBoxes, moov moovBox: BoxHeader, mime: String)
        throws(ProbeError) -> ProbeResult
    {
        var metadata = MediaMetadata(container: "heif")
        guard top.isComplete(moovBox) else {
            return ISOBMFFProbe.truncated(
                "the image sequence header (moov) is cut off", mime: mime, ext: "heif", metadata: metadata)
        }
        guard moovBox.size <= ISOBMFFProbe.maxMovieHeader, let (bytes, moov) = try ISOBMFFProbe.load(source, moovBox)
        else {
            return ISOBMFFProbe.broken(
                "the image sequence header cannot be read", mime: mime, ext: "heif", metadata: metadata)
        }
        let movie: Movie
        do {
            movie = try MovieParser.parse(bytes, moov: moov)
        } catch {
            return ISOBMFFProbe.broken(
                "the image sequence header (moov) is malformed: \(error)", mime: mime, ext: "heif", metadata: metadata)
        }
        let frames = movie.tracks.first { ($0.handler == "pict" || $0.handler == "vide") && $0.sampleCount > 0 }
        guard let frames, let codec = frames.codec else {
            return ISOBMFFProbe.broken("the image sequence has no frames", mime: mime, ext: "heif", metadata: metadata)
        }
        let ext = codec == "av01" ? "avif" : codec == "hvc1" ? "heic" : "heif"
        if codec == "av01" { metadata.container = "avif" }
        metadata.pixelWidth = frames.entries.first?.width
        metadata.pixelHeight = frames.entries.first?.height
        metadata.frameCount = frames.sampleCount
        metadata.isAnimated = frames.sampleCount > 1
        metadata.duration = movie.durationSeconds
        metadata.orientation = frames.orientation
        guard supportedCodecs.contains(codec) else {
            return .rejected(
                .unsupportedType,
                message:
                    "HEIF image sequence coded as '\(codec)' is not supported on Apple devices; convert it to HEIC",
                mime: mime, fileExtension: "heif", metadata: metadata)
        }
        if let truncation = top.truncation {
            return ISOBMFFProbe.truncated(truncation, mime: mime, ext: ext, metadata: metadata)
        }
        for track in movie.tracks where track.dataEnd > source.size {
            return ISOBMFFProbe.truncated(
                "the image sequence's samples reach byte \(track.dataEnd) but the file has \(source.size) bytes",
                mime: mime, ext: ext, metadata: metadata)
        }
        let kind = codec == "av01" ? "AVIF" : codec == "hvc1" ? "HEIC" : "HEIF"
        return .accepted(
            .photo, message: "\(metadata.isAnimated ? "animated " : "")\(kind) image sequence\(metadata.sizeText)",
            mime: mime, fileExtension: ext, metadata: metadata)
    }

    private static func check(
        _ location: HEIFParser.Location, item: UInt32, type: FourCC?, info: HEIFParser.Info, size: Int64
    ) -> (missing: Bool, message: String)? {
        let name = type.map { " ('\($0)')" } ?? ""
        for extent in location.extents {
            let (start, overflow) = location.baseOffset.addingReportingOverflow(extent.offset)
            let (end, overflow2) = start.addingReportingOverflow(extent.length)
            switch location.constructionMethod {
            case 0:
                if overflow || overflow2 || start > UInt64(size) || end > UInt64(size) {
                    return (
                        true,
                        "the data of item \(item)\(name) (bytes \(start)…\(end)) lies past the end of the file "
                            + "(\(size) bytes)"
                    )
                }
            case 1:
                guard let idat = info.idat, !overflow, !overflow2, end <= UInt64(idat.count) else {
                    return (false, "the data of item \(item)\(name) lies outside the item data box (idat)")
                }
            default:
                break
            }
        }
        return nil
    }

    /// Reads the `Exif` item and the XMP item (`mime`, `application/rdf+xml`) that describe the primary image (or
    /// the first of each) and applies their fields; HEIF's own transforms, not EXIF's orientation, decide how the
    /// image is shown.
    private static func readMetadata(
        _ source: ByteSource, bytes: [UInt8], info: HEIFParser.Info, primary: UInt32,
        into metadata: inout MediaMetadata
    ) throws(ProbeError) {
        let described = info.referring(to: primary, type: "cdsc")
        func item(_ matches: (UInt32) -> Bool) -> UInt32? {
            described.first(where: matches) ?? info.itemTypes.keys.sorted().first(where: matches)
        }
        let exifItem = item { info.itemTypes[$0] == "Exif" }
        let xmpItem = item { info.itemTypes[$0] == "mime" && info.contentTypes[$0] == "application/rdf+xml" }
        let exif = try exifItem.flatMap { (item) throws(ProbeError) -> ExifFields? in
            guard let data = try itemData(source, bytes: bytes, info: info, item: item) else { return nil }
            return try TIFFWalker.exif(inISOBMFFBlock: data)
        }
        let xmp = try xmpItem.flatMap { (item) throws(ProbeError) -> XMPMetadata? in
            try itemData(source, bytes: bytes, info: info, item: item).flatMap { try? XMPMetadata.parse($0) }
        }
        EmbeddedMetadata(exif: exif, xmp: xmp).apply(to: &metadata, orientation: false)
    }

    /// The bytes of a metadata item (at most 4 MiB), from the file or from `idat`; nil when they cannot be read.
    private static func itemData(_ source: ByteSource, bytes: [UInt8], info: HEIFParser.Info, item: UInt32)
        throws(ProbeError) -> [UInt8]?
    {
        guard let location = info.locations[item] else { return nil }
        var data: [UInt8] = []
        for extent in location.extents {
            let start = location.baseOffset &+ extent.offset
            var length = extent.length
            switch location.constructionMethod {
            case 0:
                if length == 0 { length = UInt64(max(0, source.size - Int64(clamping: start))) }
                guard start <= UInt64(source.size), length <= 4 << 20, data.count + Int(length) <= 4 << 20,
                    let chunk = try source.read(at: Int64(start), count: Int(length))
                else { return nil }
                data += chunk
            case 1:
                guard let idat = info.idat, start &+ length <= UInt64(idat.count), length <= 4 << 20 else { return nil }
                data += bytes[(idat.lowerBound + Int(start))..<(idat.lowerBound + Int(start) + Int(length))]
            default: return nil
            }
        }
        return data
    }
}
