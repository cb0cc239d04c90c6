/// Turns what a file is (our sniffers' verdict, or libmagic's MIME type for everything else) into a probe result:
/// the parsers for media photodrop accepts, and a rejection that names the format for the rest.
enum ContentClassifier {
    /// Probes `source`. `magic` is asked only when the own sniffers do not recognise the content; without it such
    /// content is `application/octet-stream`.
    static func analyze(_ source: ByteSource, policy: VideoPolicy, magic: MagicCookie?) throws(ProbeError)
        -> ProbeResult
    {
        if source.size == 0 {
            return .rejected(
                .empty,
                message: "the file is empty (0 bytes)",
                mime: "inode/x-empty", fileExtension: "bin", isTruncated: true)
        }
        guard let format = SniffedFormat.sniff(source.head, count: source.headCount, size: source.size) else {
            if source.size < 32, let name = SniffedFormat.signaturePrefix(source.head, count: source.headCount) {
                return ISOBMFFProbe.truncated(
                    "only \(source.size) bytes, the beginning of a \(name) file", mime: "application/octet-stream",
                    ext: "bin", metadata: MediaMetadata())
            }
            let mime = magic?.mimeType(of: source.head, count: source.headCount) ?? "application/octet-stream"
            return classify(mime: mime)
        }
        switch format {
        case .jpeg: return try JPEGProbe.probe(source)
        case .png: return try PNGProbe.probe(source)
        case .gif: return try GIFProbe.probe(source)
        case .webp: return try WebPProbe.probe(source)
        case .bmp: return try BMPProbe.probe(source)
        case .jpegXL(let container): return try JPEGXLProbe.probe(source, container: container)
        case .tiff(let cr2): return try TIFFProbe.probe(source, cr2: cr2)
        case .fujiRAF: return try RAFProbe.probe(source)
        case .isoBMFF: return try ISOBMFFProbe.probe(source, policy: policy)
        case .bigTIFF:
            return .rejected(
                .unsupportedType,
                message: "BigTIFF images are not supported on Apple devices; convert it to TIFF, JPEG or HEIC",
                mime: "image/tiff", fileExtension: "tiff", metadata: MediaMetadata(container: "tiff"))
        case .mpegTS:
            return container(.transportStream)
        case .id3Audio:
            return .rejected(
                .unsupportedType,
                message: "an MP3 audio file (audio only); photodrop keeps photos and videos, not audio files",
                mime: "audio/mpeg", fileExtension: "mp3", metadata: MediaMetadata(container: "mp3"))
        }
    }

    /// Containers that are video but not QuickTime/ISO-BMFF.
    enum VideoContainer: CaseIterable {
        case matroska, webm, avi, flv, transportStream, programStream, ogg, asf, dv, other

        var name: String {
            switch self {
            case .matroska: return "matroska"
            case .webm: return "webm"
            case .avi: return "avi"
            case .flv: return "flv"
            case .transportStream: return "mpeg-ts"
            case .programStream: return "mpeg-ps"
            case .ogg: return "ogg"
            case .asf: return "asf"
            case .dv: return "dv"
            case .other: return "video"
            }
        }

        var ext: String {
            switch self {
            case .matroska: return "mkv"
            case .webm: return "webm"
            case .avi: return "avi"
            case .flv: return "flv"
            case .transportStream: return "ts"
            case .programStream: return "mpg"
            case .ogg: return "ogv"
            case .asf: return "wmv"
            case .dv: return "dv"
            case .other: return "bin"
            }
        }

        var mime: String {
            switch self {
            case .matroska: return "video/x-matroska"
            case .webm: return "video/webm"
            case .avi: return "video/x-msvideo"
            case .flv: return "video/x-flv"
            case .transportStream: return "video/MP2T"
            case .programStream: return "video/mpeg"
            case .ogg: return "video/ogg"
            case .asf: return "video/x-ms-asf"
            case .dv: return "video/x-dv"
            case .other: return "application/octet-stream"
            }
        }

        private static let remux =
            "remux it to MP4 if it holds H.264/HEVC video and AAC audio (`ffmpeg -i INPUT -c copy OUTPUT.mp4`), "
            + "else transcode it (`ffmpeg -i INPUT -c:v libx264 -c:a aac OUTPUT.mp4`)"
        private static let transcode =
            "transcode it to H.264/AAC MP4: `ffmpeg -i INPUT -c:v libx264 -c:a aac OUTPUT.mp4`"

        var message: String {
            switch self {
            case .matroska: return "Matroska (MKV) container is not supported on Apple devices; \(Self.remux)"
            case .webm:
                return "WebM container (VP8/VP9/AV1, Vorbis/Opus) is not supported on Apple devices; \(Self.transcode)"
            case .avi: return "AVI container is not supported on Apple devices; \(Self.transcode)"
            case .flv: return "Flash video (FLV) container is not supported on Apple devices; \(Self.remux)"
            case .transportStream:
                return "MPEG transport stream (.ts) is not supported in a photo library; \(Self.remux)"
            case .programStream:
                return "MPEG program stream (MPEG-1/2 video) is not supported on Apple devices; \(Self.transcode)"
            case .ogg: return "Ogg video (Theora) is not supported on Apple devices; \(Self.transcode)"
            case .asf: return "Windows Media (ASF/WMV) video is not supported on Apple devices; \(Self.transcode)"
            case .dv: return "a raw DV stream is not supported in a photo library; \(Self.transcode)"
            case .other: return "this video container is not supported on Apple devices; \(Self.transcode)"
            }
        }
    }

    static func container(_ c: VideoContainer, mime: String? = nil) -> ProbeResult {
        .rejected(
            .unsupportedVideo, message: c.message, mime: mime ?? c.mime, fileExtension: c.ext,
            metadata: MediaMetadata(container: c.name))
    }

    /// MIME types of the formats photodrop parses itself: when libmagic names one but the own sniffers did not
    /// recognise the file, its structure is broken.
    private static let ownFormats: [String: String] = [
        "image/jpeg": "JPEG", "image/png": "PNG", "image/gif": "GIF", "image/webp": "WebP", "image/bmp": "BMP",
        "image/x-ms-bmp": "BMP", "image/tiff": "TIFF", "image/heic": "HEIC", "image/heif": "HEIF",
        "image/avif": "AVIF", "image/x-canon-cr2": "CR2", "image/x-canon-cr3": "CR3", "image/x-fuji-raf": "RAF",
        "image/x-olympus-orf": "ORF", "image/x-nikon-nef": "NEF", "image/x-sony-arw": "ARW",
        "video/quicktime": "QuickTime", "video/mp4": "MP4", "video/3gpp": "3GP", "video/3gpp2": "3G2",
        "video/x-m4v": "M4V",
    ]

    /// The verdict for content that only libmagic recognised.
    static func classify(mime: String) -> ProbeResult {
        switch mime {
        case "video/x-matroska": return container(.matroska, mime: mime)
        case "video/webm": return container(.webm, mime: mime)
        case "video/x-msvideo", "video/avi": return container(.avi, mime: mime)
        case "video/x-flv": return container(.flv, mime: mime)
        case "video/MP2T", "video/mp2t": return container(.transportStream, mime: mime)
        case "video/mpeg", "video/MP2P", "video/mpv": return container(.programStream, mime: mime)
        case "video/ogg": return container(.ogg, mime: mime)
        case "video/x-ms-asf", "video/x-ms-wmv", "video/x-ms-wma": return container(.asf, mime: mime)
        case "video/x-dv": return container(.dv, mime: mime)
        case "inode/x-empty":
            return .rejected(.empty, message: "the file is empty", mime: mime, fileExtension: "bin", isTruncated: true)
        default: break
        }
        if let name = ownFormats[mime] {
            return .rejected(
                .corrupt,
                message: "libmagic calls it \(mime), but it is not a readable \(name) file: its structure is broken",
                mime: mime, fileExtension: "bin")
        }
        let type = mime.split(separator: "/", maxSplits: 1).first.map(String.init) ?? mime
        let message: String
        switch type {
        case "video": return container(.other, mime: mime)
        case "audio":
            message = "an audio file (\(mime), audio only); photodrop keeps photos and videos, not audio files"
        case "image":
            message = "\(mime) images are not supported on Apple devices; convert it to JPEG, PNG or HEIC"
        case "text":
            message = "a text file (\(mime)), not a photo or video"
        default:
            switch mime {
            case "application/pdf": message = "a PDF document, not a photo or video"
            case "application/zip", "application/x-tar", "application/gzip", "application/x-7z-compressed",
                "application/x-rar", "application/vnd.rar", "application/x-xz", "application/x-bzip2",
                "application/zstd":
                message = "an archive (\(mime)); unpack it and drop the photos and videos themselves"
            case "application/ogg": message = "an Ogg file (audio), not a photo or video"
            case "application/octet-stream":
                message = "unknown content: neither a photo nor a video photodrop recognises"
            default: message = "\(mime) is not a photo or video"
            }
        }
        return .rejected(.unsupportedType, message: message, mime: mime, fileExtension: "bin")
    }
}
