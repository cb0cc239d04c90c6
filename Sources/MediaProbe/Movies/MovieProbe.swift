import FoundationEssentials

/// Probes a QuickTime / ISO-BMFF movie: codecs against the ``VideoPolicy``, then completeness (boxes, sample data and
/// fragments inside the file, samples present), then metadata.
enum MovieProbe {
    /// The container as named in messages, JSON, MIME type and extension.
    struct Container {
        var name: String
        var display: String
        var mime: String
        var ext: String

        init(_ fileType: TopLevelBoxes.FileType?) {
            let major = fileType?.major.description ?? "qt  "
            switch major {
            case "qt  ": self = Container(name: "quicktime", display: "QuickTime", mime: "video/quicktime", ext: "mov")
            case "M4V ", "M4VH", "M4VP": self = Container(name: "m4v", display: "M4V", mime: "video/x-m4v", ext: "m4v")
            case "M4A ", "M4B ", "M4P ":
                self = Container(name: "m4a", display: "M4A", mime: "audio/x-m4a", ext: "m4a")
            default:
                if major.hasPrefix("3g2") {
                    self = Container(name: "3g2", display: "3G2", mime: "video/3gpp2", ext: "3g2")
                } else if major.hasPrefix("3g") {
                    self = Container(name: "3gp", display: "3GP", mime: "video/3gpp", ext: "3gp")
                } else {
                    self = Container(name: "mp4", display: "MP4", mime: "video/mp4", ext: "mp4")
                }
            }
        }

        private init(name: String, display: String, mime: String, ext: String) {
            self.name = name
            self.display = display
            self.mime = mime
            self.ext = ext
        }
    }

    static func probe(_ source: ByteSource, top: TopLevelBoxes, policy: VideoPolicy) throws(ProbeError) -> ProbeResult {
        let container = Container(top.fileType)
        var metadata = MediaMetadata(container: container.name)
        func truncated(_ message: String) -> ProbeResult {
            ISOBMFFProbe.truncated(message, mime: container.mime, ext: container.ext, metadata: metadata)
        }
        func broken(_ message: String) -> ProbeResult {
            ISOBMFFProbe.broken(message, mime: container.mime, ext: container.ext, metadata: metadata)
        }
        if let problem = top.broken, top.moov == nil {
            return broken("the box structure is broken: \(problem)")
        }
        guard let moovBox = top.moov else {
            if let truncation = top.truncation {
                return truncated("there is no movie header (moov) yet; \(truncation)")
            }
            // All boxes are complete but the header that indexes them is missing: a recording or upload that
            // stopped before the header was written at the end.
            return truncated("there is no movie header (moov box), so the samples cannot be located")
        }
        guard top.isComplete(moovBox) else {
            return truncated("the movie header (moov) is cut off: \(top.truncation ?? "it runs past the end")")
        }
        guard moovBox.size <= ISOBMFFProbe.maxMovieHeader else {
            return broken(
                "the movie header (moov) is \(moovBox.size >> 20) MB, more than photodrop reads "
                    + "(\(ISOBMFFProbe.maxMovieHeader >> 20) MB)")
        }
        guard let (bytes, moov) = try ISOBMFFProbe.load(source, moovBox) else {
            return truncated("the file shrank while the movie header was read")
        }
        var movie: Movie
        do {
            movie = try MovieParser.parse(bytes, moov: moov)
        } catch {
            return broken("the movie header (moov) is malformed: \(error)")
        }
        var fragmentProblem: String?
        if movie.isFragmented {
            fragmentProblem = try FragmentReader.read(source, moofs: top.moofs, into: &movie)
        }
        fill(&metadata, from: movie)
        try readXMP(source, top: top, moov: bytes, movie: movie, into: &metadata)
        if let (reason, message) = VideoCompatibility.evaluate(movie, policy: policy, container: container.display) {
            return .rejected(
                reason, message: message, mime: container.mime, fileExtension: container.ext, metadata: metadata)
        }
        if let fragmentProblem { return broken(fragmentProblem) }
        if let truncation = top.truncation { return truncated(truncation) }
        if let problem = top.broken { return broken("the box structure is broken: \(problem)") }
        for track in movie.tracks where track.dataEnd > source.size {
            let kind = track.isVideo ? "video" : track.isAudio ? "audio" : "'\(track.handler?.description ?? "?")'"
            return truncated(
                "the samples of the \(kind) track \(track.id) reach byte \(track.dataEnd) but the file has "
                    + "\(source.size) bytes")
        }
        if movie.fragmentDataEnd > source.size {
            return truncated(
                "the movie fragments' samples reach byte \(movie.fragmentDataEnd) but the file has "
                    + "\(source.size) bytes")
        }
        for track in movie.tracks where track.isVideo || track.isAudio {
            // Samples that lie outside every mdat (in the movie header, in a free box, between boxes) are not media:
            // a damaged or hand-made file with nothing to play.
            guard track.sampleCount > 0, let start = track.dataStart, start < track.dataEnd,
                !top.isMediaData(start..<track.dataEnd)
            else { continue }
            let kind = track.isVideo ? "video" : "audio"
            let place =
                moovBox.offset..<moovBox.end ~= start
                ? "into the movie header (moov) itself" : "outside the media data (every mdat box)"
            return broken(
                "the samples of the \(kind) track \(track.id) point \(place), bytes \(start)–\(track.dataEnd): there is "
                    + "nothing to play")
        }
        for track in movie.videoTracks where track.totalSamples == 0 {
            if movie.isFragmented, movie.fragmentCount == 0 {
                return truncated("the fragmented movie has no fragments (moof) with samples yet")
            }
            return broken("the video track \(track.id) has no samples: there is nothing to play")
        }
        let message = VideoCompatibility.describe(movie, container: container.display, metadata: metadata)
        return .accepted(
            .video, message: message, mime: container.mime, fileExtension: container.ext, metadata: metadata)
    }

    /// Copies a movie's size, orientation, duration, frame rate, codecs, date, location, identifiers and
    /// descriptions into `metadata`.
    static func fill(_ metadata: inout MediaMetadata, from movie: Movie) {
        metadata.duration = movie.durationSeconds
        let video = movie.videoTracks.first { $0.totalSamples > 0 } ?? movie.videoTracks.first
        if let video {
            let entry = video.entries.first
            if let size = entry?.parameterSetSize {
                // The stream's own size: a container's claims (sample entry, track header) may lie.
                metadata.pixelWidth = size.width
                metadata.pixelHeight = size.height
            } else if let w = entry?.width, let h = entry?.height {
                metadata.pixelWidth = w
                metadata.pixelHeight = h
            } else if video.presentationWidth >= 1, video.presentationHeight >= 1 {
                metadata.pixelWidth = Int(video.presentationWidth.rounded())
                metadata.pixelHeight = Int(video.presentationHeight.rounded())
            }
            metadata.orientation = video.orientation
            metadata.frameCount = video.totalSamples
            metadata.frameRate = video.frameRate
            metadata.videoCodec = entry?.codec.description
        }
        metadata.audioCodec = movie.audioTracks.first?.entries.first?.codec.description
        let qt = movie.metadata
        if let text = qt.captureDate, let (seconds, offset) = DateParsing.iso8601(text) {
            metadata.offerCaptureDate(seconds: seconds, offset: offset, isLocalTime: true, source: .quickTime)
        }
        let headerTime = movie.creationTime > 0 ? movie.creationTime : (video?.creationTime ?? 0)
        if headerTime > secondsFrom1904To1970, headerTime < secondsFrom1904To2200 {
            metadata.offerCaptureDate(
                seconds: Double(headerTime - secondsFrom1904To1970), offset: nil, isLocalTime: false,
                source: .movieHeader)
        }
        metadata.location = qt.location.flatMap(QuickTimeMetadata.parseISO6709) ?? qt.locationInformation
        metadata.contentIdentifier = qt.contentIdentifier
        metadata.make = qt.make
        metadata.model = qt.model
        metadata.title = qt.title
        metadata.caption = qt.caption
        metadata.artist = qt.artist
        metadata.copyright = qt.copyright
        if let keywords = qt.keywords {
            var seen = Set<String>()
            metadata.keywords = keywords.split(separator: ",").map { String($0).trimmingSpaces() }
                .filter { !$0.isEmpty && seen.insert($0).inserted }
        }
    }

    /// The movie's XMP packet (a top-level `uuid` box, else `udta/XMP_`): its title, description, keywords, creator
    /// and rights come before QuickTime's own, as in photos; its dates, position and camera only fill what QuickTime's
    /// metadata left unknown.
    static func readXMP(
        _ source: ByteSource, top: TopLevelBoxes, moov bytes: [UInt8], movie: Movie, into metadata: inout MediaMetadata
    ) throws(ProbeError) {
        var packet: [UInt8]?
        if let box = top.xmp, box.payloadSize > 0, box.payloadSize <= Int64(XMPMetadata.maximumBytes) {
            packet = try source.read(at: box.payloadOffset, count: Int(box.payloadSize))
        } else if let range = movie.metadata.xmpPacket, range.count <= XMPMetadata.maximumBytes {
            packet = Array(bytes[range])
        }
        guard let packet, let xmp = try? XMPMetadata.parse(packet) else { return }
        metadata.title = xmp.title ?? metadata.title
        metadata.caption = xmp.caption ?? metadata.caption
        metadata.artist = xmp.creator ?? metadata.artist
        metadata.copyright = xmp.rights ?? metadata.copyright
        if !xmp.keywords.isEmpty { metadata.keywords = xmp.keywords }
        EmbeddedMetadata(xmp: xmp).apply(to: &metadata, orientation: false)
    }
    /// Seconds between 1904-01-01 (the QuickTime epoch) and 1970-01-01.
    static let secondsFrom1904To1970: UInt64 = 2_082_844_800
    /// Creation times after 2200 are garbage (or an encoder's "unknown").
    static let secondsFrom1904To2200: UInt64 = 2_082_844_800 + 7_258_118_400
}
