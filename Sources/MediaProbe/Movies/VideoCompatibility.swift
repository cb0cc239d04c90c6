import PhotodropSystem
import FoundationEssentials

/// Decides whether a parsed movie plays on Apple devices under a ``VideoPolicy`` — photodrop's
/// `UIVideoAtPathIsCompatibleWithSavedPhotosAlbum` — and describes accepted movies.
enum VideoCompatibility {
    /// The verdict on the codecs and tracks of a movie (completeness is judged separately).
    static func evaluate(_ movie: Movie, policy: VideoPolicy, container: String) -> (RejectionReason, String)? {
        let videos = movie.videoTracks
        let audios = movie.audioTracks
        if videos.isEmpty {
            if !audios.isEmpty {
                let names = Set(audios.compactMap { $0.entries.first.map { audioName($0) } }).sorted()
                let what = names.isEmpty ? "" : ": " + names.joined(separator: ", ")
                return (
                    .unsupportedType,
                    "no video track (audio only\(what), in a \(container) container); photodrop keeps photos and "
                        + "videos, not audio files"
                )
            }
            if movie.tracks.isEmpty {
                return (.corrupt, "the movie has no tracks: there is nothing to play")
            }
            let handlers = Set(movie.tracks.map { $0.handler.map { "'\($0)'" } ?? "unknown" }).sorted()
            return (
                .unsupportedType,
                "no video track (only \(handlers.joined(separator: ", ")) tracks); there is nothing to show"
            )
        }
        for track in videos + audios {
            for entry in track.entries where entry.isEncrypted {
                let kind = track.isVideo ? "video" : "audio"
                var detail = "'\(entry.format)'"
                if let scheme = entry.schemeType { detail += ", scheme '\(scheme)'" }
                if let original = entry.originalFormat { detail += ", original codec '\(original)'" }
                return (
                    .unsupportedVideo,
                    "the \(kind) track \(track.id) is encrypted (\(detail)); DRM-protected video cannot be played "
                        + "from a photo library, use an unprotected copy"
                )
            }
        }
        for track in videos {
            if track.entries.isEmpty {
                return (.corrupt, "the video track \(track.id) has no sample description (stsd): it cannot be decoded")
            }
            for entry in track.entries where !policy.videoCodecs.contains(entry.codec.description) {
                return (.unsupportedVideo, Codecs.videoRejection(entry.codec, policy: policy))
            }
        }
        for track in audios {
            for entry in track.entries {
                let code = entry.codec
                if !policy.audioCodecs.contains(code.description) || !acceptsObjectType(entry, policy: policy) {
                    return (
                        .unsupportedVideo,
                        Codecs.audioRejection(code, objectType: entry.objectType, policy: policy)
                    )
                }
            }
        }
        return nil
    }

    /// `mp4a` carries AAC (object types 0x40, 0x66–0x68) or, when `ac-3`/`ec-3` are accepted, AC-3/E-AC-3 (0xA5,
    /// 0xA6); MP3 (0x69, 0x6B) and anything else are refused. Without an `esds` the stream is taken as AAC.
    private static func acceptsObjectType(_ entry: Movie.SampleEntry, policy: VideoPolicy) -> Bool {
        guard entry.codec == "mp4a", let type = entry.objectType else { return true }
        switch type {
        case 0x40, 0x66, 0x67, 0x68: return true
        case 0xA5: return policy.audioCodecs.contains("ac-3")
        case 0xA6: return policy.audioCodecs.contains("ec-3")
        default: return false
        }
    }

    static func videoName(_ entry: Movie.SampleEntry) -> String {
        if entry.hasDolbyVisionConfig, entry.codec == "hvc1" { return "Dolby Vision HEVC" }
        return Codecs.videoName(entry.codec)
    }

    static func audioName(_ entry: Movie.SampleEntry) -> String {
        Codecs.audioName(entry.codec, objectType: entry.objectType)
    }

    /// `H.264/AAC QuickTime movie 12.3 s, 1920×1080`.
    static func describe(_ movie: Movie, container: String, metadata: MediaMetadata) -> String {
        var codecs = movie.videoTracks.first?.entries.first.map(videoName) ?? "video"
        if let audio = movie.audioTracks.first?.entries.first {
            codecs += "/" + audioName(audio)
        }
        var text = "\(codecs) \(container) movie"
        if let duration = metadata.duration { text += " " + NumberText.fixed(duration, places: 1) + " s" }
        if let w = metadata.pixelWidth, let h = metadata.pixelHeight { text += ", \(w)×\(h)" }
        if movie.audioTracks.isEmpty { text += ", no audio" }
        return text
    }
}
